// OpenAI-compatible vendors that refuse request members OpenAI defines, where OpenAI accepts or
// ignores them; a gateway must send each only what it takes.
// Mistral's API differs in two ways:
// - it refuses any request member outside its own list with a 422 ("extra_forbidden"), inside
//   messages too: the built-in `mistral` provider (`request_fields: mistral`) is sent only Mistral's
//   members, a seed as `random_seed`, a developer message as system; what Mistral has no member for
//   (`user`, `logprobs`, a message's `refusal`, a member nobody defined) is left out and named in
//   `x-switchyard-ignored`, translated and relayed alike;
// - `stream_options` among the refused, it puts a stream's usage on its last chunk without being
//   asked: the provider is called without it (`stream_usage: always`), and its streams are still
//   metered.
// Groq answers the few members its compatibility page lists with a 400 (`request_fields: groq`).
// Any other chat upstream still gets every member and is asked for usage. The fakes take exactly
// what each vendor documents (test/fakes/openai.ts, `vendor`).
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";

let gw: RunningGateway;
let mistral: FakeUpstream;
let groq: FakeUpstream;
let deepseek: FakeUpstream;
let openaiOwn: FakeUpstream;
let openaiFake: FakeUpstream;
let openai: OpenAI;

before(async () => {
  [mistral, groq, deepseek, openaiOwn, openaiFake] = await Promise.all([
    startFakeUpstream("openai", { vendor: "mistral" }),
    startFakeUpstream("openai", { vendor: "groq" }),
    startFakeUpstream("openai", { vendor: "deepseek" }),
    startFakeUpstream("openai", { reasoningModels: ["r"] }),
    startFakeUpstream("openai"),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-strict-vendors-"));
  gw = await startGateway(
    baseConfig(dir, {
      // The built-in ids: their defaults (max_tokens, stream usage unasked, members) apply to these URLs.
      providers: [
        fakeProvider("mistral", mistral),
        fakeProvider("groq", groq),
        fakeProvider("deepseek", deepseek),
        fakeProvider("openai", openaiOwn),
        fakeProvider("fo", openaiFake),
      ],
      models: [
        fakeModel("mistral/m", ["mistral"]),
        fakeModel("groq/m", ["groq"]),
        fakeModel("deepseek/m", ["deepseek"]),
        { ...fakeModel("openai/r", ["openai"], { upstream: "r" }), reasoning: true },
        fakeModel("openai/plain", ["openai"], { upstream: "plain" }),
        fakeModel("fo/m", ["fo"]),
      ],
    }),
    { dir },
  );
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all([
    mistral?.close(),
    groq?.close(),
    deepseek?.close(),
    openaiOwn?.close(),
    openaiFake?.close(),
  ]);
});

/** A request straight to a fake, as the gateway would send it: what the vendor itself answers. */
function callFake(fake: FakeUpstream, body: unknown): Promise<Response> {
  return fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function sent(fake: FakeUpstream): Record<string, unknown> {
  return fake.requests.at(-1)!.body as Record<string, unknown>;
}

test("the fake refuses stream_options as Mistral does (422), so a gateway that sent it would fail", async () => {
  const res = await callFake(mistral, {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.equal(res.status, 422);
  const body = (await res.json()) as any;
  assert.deepEqual(body.message.detail[0].loc, ["body", "stream_options"]);
  assert.equal(body.message.detail[0].type, "extra_forbidden");
});

test("a relayed chat stream reaches Mistral without stream_options, the client's own included, and is metered", async () => {
  const stream = await openai.chat.completions.create({
    model: "mistral/m",
    messages: [{ role: "user", content: "hi" }],
    max_completion_tokens: 50,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let id = "";
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    id = chunk.id;
    text += chunk.choices[0]?.delta?.content ?? "";
    // As OpenAI writes it: the count only on a last chunk of its own (Mistral's is on its finish chunk).
    if (chunk.usage) assert.deepEqual(chunk.choices, [], "usage comes on a chunk without choices");
    usage = chunk.usage ?? usage;
  }
  assert.ok(text.length > 0);
  assert.equal("stream_options" in sent(mistral), false);
  assert.equal(sent(mistral).max_tokens, 50);
  assert.ok(usage && usage.completion_tokens > 0, "the client asked for usage and has it");
  const record = await lookupSettled(gw.url, id, PAYG_KEY);
  assert.equal(record.nativeTokens.completion_tokens, usage.completion_tokens);
  assert.equal(record.nativeTokens.prompt_tokens, usage.prompt_tokens);
  assert.ok(record.usage !== undefined, "rated: the upstream's usage reached the meter");
});

test("Mistral's unasked stream usage is not passed to a client that did not ask for it, and is still metered", async () => {
  const stream = await openai.chat.completions.create({
    model: "mistral/m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.ok(chunks.length > 1);
  // As OpenAI's own stream: no `usage` member at all unless `stream_options.include_usage` asked.
  for (const chunk of chunks) assert.equal("usage" in chunk, false, JSON.stringify(chunk));
  assert.ok(chunks.some((chunk) => chunk.choices[0]?.finish_reason === "stop"));
  const record = await lookupSettled(gw.url, chunks[0]!.id, PAYG_KEY);
  assert.ok(record.nativeTokens.completion_tokens > 0, "the meter read the upstream's usage");
  assert.ok(record.usage !== undefined, "rated");
});

test("a translated stream (messages client) reaches Mistral without stream_options and is metered", async () => {
  const anthropic = new Anthropic({
    apiKey: PAYG_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { "anthropic-version": "2023-06-01" },
  });
  const stream = anthropic.messages.stream({
    model: "mistral/m",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
  });
  const message = await stream.finalMessage();
  assert.equal("stream_options" in sent(mistral), false);
  assert.ok(message.usage.output_tokens > 0);
  const record = await lookupSettled(gw.url, message.id, PAYG_KEY);
  assert.equal(record.nativeTokens.completion_tokens, message.usage.output_tokens);
  assert.ok(record.usage !== undefined, "rated: the upstream's usage reached the meter");
});

test("any other chat upstream is still asked for the stream's usage", async () => {
  const stream = await openai.chat.completions.create({
    model: "fo/m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  for await (const _ of stream);
  assert.deepEqual(sent(openaiFake).stream_options, { include_usage: true });
});

function ignored(headers: Headers): string[] {
  return (headers.get("x-switchyard-ignored") ?? "").split(", ").filter(Boolean).sort();
}

test("the fake refuses what Mistral refuses (422 extra_forbidden), so a gateway that sent it would fail", async () => {
  for (const member of [{ seed: 7 }, { user: "u" }, { logprobs: true }, { verbosity: "low" }]) {
    const res = await callFake(mistral, {
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      ...member,
    });
    assert.equal(res.status, 422, JSON.stringify(member));
    const body = (await res.json()) as any;
    assert.equal(body.message.detail[0].type, "extra_forbidden");
  }
});

test("a content-generation client's seed reaches Mistral as random_seed", async () => {
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const answer = await ai.models.generateContent({
    model: "mistral/m",
    contents: "hi",
    config: { seed: 42, temperature: 0.5 },
  });
  assert.ok((answer.text ?? "").length > 0);
  assert.equal(sent(mistral).random_seed, 42);
  assert.equal("seed" in sent(mistral), false);
  assert.equal(sent(mistral).temperature, 0.5);
});

test("a Responses client's user and logprobs are left out for Mistral and named; the answer streams", async () => {
  const { data: stream, response } = await openai.responses
    .create({
      model: "mistral/m",
      input: "hi",
      safety_identifier: "user-123",
      include: ["message.output_text.logprobs"],
      top_logprobs: 2,
      stream: true,
    })
    .withResponse();
  let text = "";
  for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
  assert.ok(text.length > 0);
  const body = sent(mistral);
  for (const member of ["user", "logprobs", "top_logprobs"]) assert.equal(member in body, false, member);
  assert.deepEqual(ignored(response.headers), ["logprobs", "user"]);
});

test("a relayed chat request's logprobs and unknown members are left out for Mistral and named", async () => {
  const { data, response } = await openai.chat.completions
    .create({
      model: "mistral/m",
      messages: [{ role: "user", content: "hi" }],
      logprobs: true,
      top_logprobs: 2,
      parallel_tool_calls: false,
      // A member OpenAI may add tomorrow: passed to OpenAI-compatible upstreams, refused by Mistral.
      ...({ future_member: { on: true } } as object),
    })
    .withResponse();
  assert.ok((data.choices[0]?.message.content ?? "").length > 0);
  const body = sent(mistral);
  for (const member of ["logprobs", "top_logprobs", "future_member"])
    assert.equal(member in body, false, member);
  assert.equal(body.parallel_tool_calls, false, "a member Mistral takes is sent");
  assert.deepEqual(ignored(response.headers), ["future_member", "logprobs", "top_logprobs"]);
});

test("any other chat upstream still gets every member, seed and logprobs included", async () => {
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  await ai.models.generateContent({ model: "fo/m", contents: "hi", config: { seed: 42 } });
  assert.equal(sent(openaiFake).seed, 42);
  assert.equal("random_seed" in sent(openaiFake), false);
  await openai.chat.completions.create({
    model: "fo/m",
    messages: [{ role: "user", content: "hi" }],
    logprobs: true,
  });
  assert.equal(sent(openaiFake).logprobs, true);
});

test("the fake refuses a message member or role Mistral does not know (a replayed reasoning_content, developer)", async () => {
  const refused = [
    [{ role: "assistant", content: "a", reasoning_content: "r" }],
    [{ role: "developer", content: "be brief" }],
  ];
  for (const messages of refused) {
    const res = await callFake(mistral, {
      model: "m",
      messages: [...messages, { role: "user", content: "hi" }],
    });
    assert.equal(res.status, 422, JSON.stringify(messages));
  }
});

test("a relayed conversation reaches Mistral with its messages fitted: developer as system, other members left out and named", async () => {
  const first = await openai.chat.completions.create({
    model: "fo/m",
    messages: [{ role: "user", content: "hi" }],
  });
  // The OpenAI SDK's usual loop: the answer's message goes back as it came (refusal, annotations).
  const replayed = first.choices[0]!.message;
  const { data, response } = await openai.chat.completions
    .create({
      model: "mistral/m",
      messages: [
        { role: "developer", content: "Be brief." },
        { role: "user", content: "hi", name: "ada" },
        replayed,
        { role: "user", content: "again" },
      ],
    })
    .withResponse();
  assert.ok((data.choices[0]?.message.content ?? "").length > 0);
  const messages = sent(mistral).messages as Array<Record<string, unknown>>;
  assert.deepEqual(
    messages.map((m) => m.role),
    ["system", "user", "assistant", "user"],
  );
  assert.deepEqual(Object.keys(messages[1]!).sort(), ["content", "role"]);
  assert.deepEqual(Object.keys(messages[2]!).sort(), ["content", "role"]);
  assert.equal(messages[2]!.content, replayed.content);
  const named = ignored(response.headers);
  for (const member of ["messages[1].name", "messages[2].refusal", "messages[2].annotations"])
    assert.ok(named.includes(member), `${member} in ${named}`);
});

test("a translated conversation's earlier thinking is left out for Mistral and named", async () => {
  const anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
  const { data, response } = await anthropic.messages
    .create({
      model: "mistral/m",
      max_tokens: 100,
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "The user greets me.", signature: "c2lnbmF0dXJl" },
            { type: "text", text: "Hello!" },
          ],
        },
        { role: "user", content: "again" },
      ],
    })
    .withResponse();
  assert.ok(data.content.length > 0);
  const messages = sent(mistral).messages as Array<Record<string, unknown>>;
  assert.deepEqual(Object.keys(messages[1]!).sort(), ["content", "role"]);
  assert.ok(ignored(response.headers).includes("thinking"));
});

test("the Groq fake answers what Groq documents as unsupported with a 400", async () => {
  for (const member of [{ logprobs: true }, { messages: [{ role: "user", content: "hi", name: "ada" }] }]) {
    const res = await callFake(groq, { model: "m", messages: [{ role: "user", content: "hi" }], ...member });
    assert.equal(res.status, 400, JSON.stringify(member));
  }
});

test("Groq: a relayed request's logprobs and a message's name are left out and named; the rest is sent", async () => {
  const { data, response } = await openai.chat.completions
    .create({
      model: "groq/m",
      messages: [{ role: "user", content: "hi", name: "ada" }],
      logprobs: true,
      top_logprobs: 2,
      temperature: 0.3,
    })
    .withResponse();
  assert.ok((data.choices[0]?.message.content ?? "").length > 0);
  const body = sent(groq);
  for (const member of ["logprobs", "top_logprobs"]) assert.equal(member in body, false, member);
  assert.equal(body.temperature, 0.3);
  assert.deepEqual((body.messages as Array<Record<string, unknown>>)[0], { role: "user", content: "hi" });
  assert.deepEqual(ignored(response.headers), ["logprobs", "messages[0].name", "top_logprobs"]);
});

test("Groq: a translated request's logprobs are left out and named; its seed is sent as OpenAI names it", async () => {
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const answer = await ai.models.generateContent({
    model: "groq/m",
    contents: "hi",
    config: { seed: 7, responseLogprobs: true, logprobs: 2 },
  });
  assert.ok((answer.text ?? "").length > 0);
  const body = sent(groq);
  assert.equal(body.seed, 7);
  assert.equal("logprobs" in body, false);
  assert.equal(answer.sdkHttpResponse?.headers?.["x-switchyard-ignored"], "logprobs");
});

test("members named like an object's own properties (toString, constructor) are refused like any other, not a 500", async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "mistral/m",
      toString: 1,
      messages: [{ role: "user", content: "hi", constructor: "x" }],
    }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const body = sent(mistral);
  assert.equal(Object.hasOwn(body, "toString"), false);
  assert.deepEqual(Object.keys((body.messages as object[])[0]!).sort(), ["content", "role"]);
  assert.deepEqual(ignored(res.headers), ["messages[0].constructor", "toString"]);
});

describe("Mistral takes a tool call's id only as nine letters and digits", () => {
  const call = (id: string) => ({
    id,
    type: "function" as const,
    function: { name: "get_weather", arguments: "{}" },
  });
  const tools = [
    { type: "function" as const, function: { name: "get_weather", parameters: { type: "object" } } },
  ];
  const idsSent = () =>
    (sent(mistral).messages as Array<Record<string, any>>).flatMap((m) => [
      ...(m.tool_calls ?? []).map((c: { id: string }) => c.id),
      ...(m.tool_call_id ? [m.tool_call_id] : []),
    ]);

  test("the fake refuses another id with Mistral's 400", async () => {
    const res = await callFake(mistral, {
      model: "m",
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: null, tool_calls: [call("call_abc123")] },
        { role: "tool", tool_call_id: "call_abc123", content: "sunny" },
      ],
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as any).error.message, /must be a-z, A-Z, 0-9, with a length of 9/);
  });

  test("relayed: another provider's ids are replaced, a call and its result alike; Mistral's own are kept", async () => {
    const data = await openai.chat.completions.create({
      model: "mistral/m",
      tools,
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [call("call_Xy12ab34cd56ef78gh90ij12"), call("D681PevKs")],
        },
        { role: "tool", tool_call_id: "call_Xy12ab34cd56ef78gh90ij12", content: "sunny" },
        { role: "tool", tool_call_id: "D681PevKs", content: "rainy" },
      ],
    });
    assert.ok((data.choices[0]?.message.content ?? "").length > 0);
    const [first, kept, result, keptResult] = idsSent();
    assert.match(first!, /^[a-zA-Z0-9]{9}$/);
    assert.equal(result, first, "the result names the call it answers");
    assert.equal(kept, "D681PevKs");
    assert.equal(keptResult, "D681PevKs");
  });

  test("translated: a messages client's tool_use ids are replaced, each call and its result alike", async () => {
    const anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const answer = await anthropic.messages.create({
      model: "mistral/m",
      max_tokens: 100,
      tools: [{ name: "get_weather", input_schema: { type: "object" } }],
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: {} },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "sunny" }],
        },
      ],
    });
    assert.ok(answer.content.length > 0);
    const [callId, resultId] = idsSent();
    assert.match(callId!, /^[a-zA-Z0-9]{9}$/);
    assert.equal(resultId, callId);
  });
});

test("a refused member's name reaches x-switchyard-ignored encoded, however it is spelled", async () => {
  const names = ["line\r\nbreak", "ключ", "a,b%"];
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "mistral/m",
      messages: [{ role: "user", content: "hi" }],
      ...Object.fromEntries(names.map((name) => [name, 1])),
    }),
  });
  assert.equal(res.status, 200);
  const header = res.headers.get("x-switchyard-ignored") ?? "";
  assert.match(header, /^[\x21-\x7e, ]+$/, "visible ASCII only");
  assert.deepEqual(header.split(", ").map(decodeURIComponent).sort(), [...names].sort());
  for (const name of names) assert.equal(name in sent(mistral), false);
});

describe("DeepSeek's thinking mode wants an assistant turn's reasoning back as reasoning_content", () => {
  const history = (thinking: string) =>
    [
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking, signature: "c2lnbmF0dXJl" },
          { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: {} },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "sunny" }],
      },
    ] as Anthropic.MessageParam[];

  test("the fake refuses a tool-calling turn without it, with DeepSeek's 400", async () => {
    const res = await callFake(deepseek, {
      model: "m",
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: "c1", content: "sunny" },
      ],
    });
    assert.equal(res.status, 400);
    assert.match(
      ((await res.json()) as any).error.message,
      /Missing `reasoning_content` field in the assistant message at message index 1/,
    );
  });

  test("round trip: DeepSeek's reasoning reaches a messages client as thinking and goes back as it came", async () => {
    const anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const reasoning = "The user wants the weather, so I call get_weather.";
    deepseek.script({
      blocks: [
        { type: "thinking", text: reasoning },
        { type: "tool_call", name: "get_weather", args: {} },
      ],
      finish: "tool_calls",
    });
    const tools = [{ name: "get_weather", input_schema: { type: "object" as const } }];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "weather?" }];
    const first = await anthropic.messages
      .stream({ model: "deepseek/m", max_tokens: 2048, tools, messages })
      .finalMessage();
    assert.equal(first.content[0]?.type === "thinking" && first.content[0].thinking, reasoning);
    const call = first.content.find((b) => b.type === "tool_use")!;
    messages.push(
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "sunny" }] },
    );
    const second = await anthropic.messages.create({
      model: "deepseek/m",
      max_tokens: 2048,
      tools,
      messages,
    });
    assert.ok(second.content.length > 0);
    assert.equal(
      (sent(deepseek).messages as Array<Record<string, unknown>>)[1]!.reasoning_content,
      reasoning,
    );
  });

  test("translated: a messages client's replayed thinking goes back as reasoning_content, and the turn is answered", async () => {
    const anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const answer = await anthropic.messages.create({
      model: "deepseek/m",
      max_tokens: 100,
      tools: [{ name: "get_weather", input_schema: { type: "object" } }],
      messages: history("The user wants the weather; I call the tool."),
    });
    assert.ok(answer.content.length > 0);
    const assistant = (sent(deepseek).messages as Array<Record<string, unknown>>)[1]!;
    assert.equal(assistant.reasoning_content, "The user wants the weather; I call the tool.");
    assert.equal("reasoning_details" in assistant, false);
  });
});

describe("OpenAI's reasoning models take the sampling members only at their defaults while they reason", () => {
  const gemini = () => new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });

  test("the fake answers temperature 0 to a reasoning model with OpenAI's 400", async () => {
    const res = await callFake(openaiOwn, {
      model: "r",
      messages: [{ role: "user", content: "hi" }],
      temperature: 0,
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as any;
    assert.equal(body.error.code, "unsupported_value");
    assert.equal(body.error.param, "temperature");
  });

  test("translated: a content-generation client's temperature and topP are left out for a reasoning model, and named", async () => {
    const answer = await gemini().models.generateContent({
      model: "openai/r",
      contents: "hi",
      config: { temperature: 0, topP: 0.9, presencePenalty: 0.5 },
    });
    assert.ok((answer.text ?? "").length > 0);
    const body = sent(openaiOwn);
    for (const member of ["temperature", "top_p", "presence_penalty"])
      assert.equal(member in body, false, member);
    const named = (answer.sdkHttpResponse?.headers?.["x-switchyard-ignored"] ?? "").split(", ").sort();
    assert.deepEqual(named, ["presence_penalty", "temperature", "top_p"]);
  });

  test("the defaults go as they are; a model that does not reason, or effort none, keeps them all", async () => {
    await gemini().models.generateContent({ model: "openai/r", contents: "hi", config: { temperature: 1 } });
    assert.equal(sent(openaiOwn).temperature, 1);
    await gemini().models.generateContent({
      model: "openai/plain",
      contents: "hi",
      config: { temperature: 0 },
    });
    assert.equal(sent(openaiOwn).temperature, 0);
    const answer = await openai.responses.create({
      model: "openai/r",
      input: "hi",
      temperature: 0.2,
      reasoning: { effort: "none" },
    });
    assert.ok(answer.output_text.length > 0);
    assert.equal(sent(openaiOwn).reasoning_effort, "none");
    assert.equal(sent(openaiOwn).temperature, 0.2);
  });
});

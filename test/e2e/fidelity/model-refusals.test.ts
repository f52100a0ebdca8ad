// Members a model refuses. OpenAI answers a member one of its models does not take with a 400
// naming it ("Unsupported parameter: 'stop' is not supported with this model.", `param: "stop"`),
// xAI with a message naming it in camel case; the same request without it is answered. A translated
// request, whose members the client did not write for this upstream, is sent again without the
// refused member, which is named in `x-switchyard-ignored` (a refused `stop` is cut by the gateway
// itself instead); the model's later calls leave it out at once. A member the request cannot go
// without, and a relayed request (the client wrote it for this protocol), get the refusal.
// The fakes refuse as each vendor does (test/fakes/dialect.ts, `modelRefuses`).
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let chat: FakeUpstream;
let xai: FakeUpstream;
let responses: FakeUpstream;
let gemini: FakeUpstream;
let claude: FakeUpstream;
let openai: OpenAI;
let anthropic: Anthropic;

before(async () => {
  [chat, xai, responses, gemini, claude] = await Promise.all([
    startFakeUpstream("openai", {
      outputLimits: { "gpt-4o": 16384 },
      modelRefuses: {
        codex: ["stop", "temperature"],
        "codex-mini": ["stop"],
        plain: ["reasoning_effort"],
        "no-minimal": ["reasoning_effort=minimal"],
        "no-tools": ["tools"],
      },
    }),
    startFakeUpstream("openai", {
      vendor: "xai",
      modelRefuses: { grok: ["presence_penalty", "frequency_penalty"] },
    }),
    startFakeUpstream("openai-responses", { modelRefuses: { plain: ["reasoning.effort"] } }),
    startFakeUpstream("gemini", {
      modelRefuses: {
        "g-25": ["presencePenalty", "frequencyPenalty", "responseLogprobs"],
        "g-20": ["thinkingConfig"],
      },
    }),
    startFakeUpstream("anthropic", {
      modelRefuses: { "claude-45": ["temperature+top_p"] },
      outputLimits: { "claude-small": 20000 },
    }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-model-refusals-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        fakeProvider("fo", chat),
        fakeProvider("fx", xai),
        fakeProvider("fr", responses),
        fakeProvider("fg", gemini),
        fakeProvider("fa", claude),
      ],
      models: [
        fakeModel("fo/codex", ["fo"], { upstream: "codex" }),
        fakeModel("fo/codex-mini", ["fo"], { upstream: "codex-mini" }),
        fakeModel("fo/plain", ["fo"], { upstream: "plain" }),
        fakeModel("fo/no-minimal", ["fo"], { upstream: "no-minimal" }),
        fakeModel("fo/no-tools", ["fo"], { upstream: "no-tools" }),
        fakeModel("fx/grok", ["fx"], { upstream: "grok" }),
        fakeModel("fr/plain", ["fr"], { upstream: "plain" }),
        fakeModel("fg/g-25", ["fg"], { upstream: "g-25" }),
        fakeModel("fg/g-20", ["fg"], { upstream: "g-20" }),
        fakeModel("fa/claude-45", ["fa"], { upstream: "claude-45" }),
        fakeModel("fa/claude-small", ["fa"], { upstream: "claude-small" }),
        fakeModel("fo/gpt-4o", ["fo"], { upstream: "gpt-4o" }),
      ],
    }),
    { dir },
  );
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
});
beforeEach(() => {
  for (const fake of [chat, xai, responses, gemini, claude]) fake.reset();
});
after(async () => {
  await gw?.stop();
  await Promise.all([chat?.close(), xai?.close(), responses?.close(), gemini?.close(), claude?.close()]);
});

type Json = Record<string, unknown>;

function bodies(fake: FakeUpstream): Json[] {
  return fake.requests.map((r) => r.body as Json);
}

function ignored(headers: Headers): string[] {
  return (headers.get("x-switchyard-ignored") ?? "").split(", ").filter(Boolean).sort();
}

test("the fakes refuse as OpenAI and xAI do, so a gateway that sent the member would fail", async () => {
  const call = (fake: FakeUpstream, body: Json) =>
    fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
    });
  const openaiRefusal = await call(chat, { model: "codex", stop: ["X"] });
  assert.equal(openaiRefusal.status, 400);
  assert.deepEqual(((await openaiRefusal.json()) as Json).error, {
    message: "Unsupported parameter: 'stop' is not supported with this model.",
    type: "invalid_request_error",
    param: "stop",
    code: "unsupported_parameter",
  });
  const xaiRefusal = await call(xai, { model: "grok", presence_penalty: 0 });
  assert.equal(xaiRefusal.status, 400);
  assert.deepEqual(await xaiRefusal.json(), {
    code: "invalid-argument",
    error: "Model grok does not support parameter presencePenalty.",
  });
});

test("a messages client's stop sequences and temperature, refused by the model: left out, the answer cut by the gateway, temperature named; the next call leaves both out at once", async () => {
  chat.script({ blocks: [{ type: "text", text: "one two END three" }] });
  const { data, response } = await anthropic.messages
    .create({
      model: "fo/codex",
      max_tokens: 100,
      temperature: 0,
      stop_sequences: ["END"],
      messages: [{ role: "user", content: "count" }],
    })
    .withResponse();
  assert.equal(data.content.length, 1);
  assert.equal(data.content[0]?.type === "text" && data.content[0].text, "one two ");
  assert.equal(data.stop_reason, "stop_sequence");
  assert.equal(data.stop_sequence, "END");
  assert.deepEqual(ignored(response.headers), ["temperature"]);
  const sent = bodies(chat);
  assert.equal(sent.length, 3, "refused twice, one member each time, then answered");
  assert.deepEqual(sent[0]!.stop, ["END"]);
  assert.equal("stop" in sent[1]!, false);
  assert.equal(sent[1]!.temperature, 0);
  assert.equal("temperature" in sent[2]!, false);

  chat.reset();
  chat.script({ blocks: [{ type: "text", text: "again" }] });
  const again = await anthropic.messages
    .create({
      model: "fo/codex",
      max_tokens: 100,
      temperature: 0.2,
      stop_sequences: ["END"],
      messages: [{ role: "user", content: "again" }],
    })
    .withResponse();
  assert.equal(again.data.content[0]?.type === "text" && again.data.content[0].text, "again");
  assert.deepEqual(ignored(again.response.headers), ["temperature"]);
  assert.equal(chat.requests.length, 1, "the model's refusals were remembered");
  for (const member of ["stop", "temperature"]) assert.equal(member in bodies(chat)[0]!, false, member);
});

test("a streamed answer to stop sequences the model refused is cut by the gateway", async () => {
  chat.script({ blocks: [{ type: "text", text: "alpha beta HALT gamma delta" }], chunks: 5 });
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  let text = "";
  let finish: string | undefined;
  for await (const chunk of await ai.models.generateContentStream({
    model: "fo/codex-mini",
    contents: "go",
    config: { stopSequences: ["HALT"] },
  })) {
    text += chunk.text ?? "";
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
  }
  assert.equal(text, "alpha beta ");
  assert.equal(finish, "STOP");
  const sent = bodies(chat);
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[0]!.stop, ["HALT"]);
  assert.equal("stop" in sent[1]!, false);
});

test("a streamed content-generation request to an xAI model that refuses its penalties streams once they are left out", async () => {
  const res = await fetch(`${gw.url}/v1beta/models/fx/grok:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
    body: JSON.stringify({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      generationConfig: { presencePenalty: 0.5, frequencyPenalty: 0.5, temperature: 0.7 },
    }),
  });
  assert.equal(res.status, 200);
  assert.deepEqual(ignored(res.headers), ["frequency_penalty", "presence_penalty"]);
  const text = await res.text();
  assert.match(text, /"finishReason":"STOP"/);
  const sent = bodies(xai);
  assert.equal(sent.length, 3);
  assert.equal(sent[2]!.temperature, 0.7, "what the model takes still goes");
  for (const member of ["presence_penalty", "frequency_penalty"]) assert.equal(member in sent[2]!, false);

  // The SDK reads the same stream.
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  let streamed = "";
  for await (const chunk of await ai.models.generateContentStream({
    model: "fx/grok",
    contents: "hi",
    config: { presencePenalty: 0.5 },
  }))
    streamed += chunk.text ?? "";
  assert.ok(streamed.length > 0);
  assert.equal(xai.requests.length, 4, "one call: the refusal was remembered");
});

test("a chat client's reasoning effort, refused by a Responses upstream's model without reasoning, is left out and named", async () => {
  const { data, response } = await openai.chat.completions
    .create({
      model: "fr/plain",
      messages: [{ role: "user", content: "hi" }],
      reasoning_effort: "high",
    })
    .withResponse();
  assert.ok((data.choices[0]?.message.content ?? "").length > 0);
  assert.deepEqual(ignored(response.headers), ["reasoning"]);
  const sent = bodies(responses);
  assert.equal(sent.length, 2);
  assert.deepEqual((sent[0]!.reasoning as Json).effort, "high");
  assert.equal("reasoning" in sent[1]!, false, "the summary goes with the effort");
});

test("a messages client's thinking, refused by a chat model without reasoning, is left out and named", async () => {
  const { data, response } = await anthropic.messages
    .create({
      model: "fo/plain",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "hi" }],
    })
    .withResponse();
  assert.equal(data.content.at(-1)?.type, "text");
  assert.deepEqual(ignored(response.headers), ["reasoning"]);
  assert.equal("reasoning_effort" in bodies(chat).at(-1)!, false);
});

test("a value the model refuses is left out where it is sent; the member's other values still go", async () => {
  const ask = (effort: "minimal" | "high") =>
    openai.responses.create({ model: "fo/no-minimal", input: "hi", reasoning: { effort } }).withResponse();
  const first = await ask("minimal");
  assert.ok(first.data.output_text.length > 0);
  assert.deepEqual(ignored(first.response.headers), ["reasoning"]);
  assert.deepEqual(
    bodies(chat).map((b) => b.reasoning_effort),
    ["minimal", undefined],
    "refused at 'minimal' (unsupported_value), then answered without it",
  );
  chat.reset();
  const high = await ask("high");
  assert.deepEqual(ignored(high.response.headers), []);
  assert.deepEqual(
    bodies(chat).map((b) => b.reasoning_effort),
    ["high"],
    "another value goes, at once",
  );
  chat.reset();
  const again = await ask("minimal");
  assert.deepEqual(ignored(again.response.headers), ["reasoning"]);
  assert.deepEqual(
    bodies(chat).map((b) => b.reasoning_effort),
    [undefined],
    "the refused value is left out at once",
  );
});

test("a chat client's penalties and logprobs, refused by a Gemini model, are left out and named", async () => {
  const { data, response } = await openai.chat.completions
    .create({
      model: "fg/g-25",
      messages: [{ role: "user", content: "hi" }],
      presence_penalty: 0.5,
      frequency_penalty: 0.3,
      logprobs: true,
      top_logprobs: 2,
      temperature: 0.4,
    })
    .withResponse();
  assert.ok((data.choices[0]?.message.content ?? "").length > 0);
  assert.deepEqual(ignored(response.headers), ["frequency_penalty", "logprobs", "presence_penalty"]);
  const configs = bodies(gemini).map((b) => b.generationConfig as Json);
  assert.equal(
    configs.length,
    3,
    "refused for the penalties (both at once), then for logprobs, then answered",
  );
  assert.equal(configs[0]!.presencePenalty, 0.5);
  assert.equal("presencePenalty" in configs[1]! || "frequencyPenalty" in configs[1]!, false);
  assert.equal(configs[1]!.responseLogprobs, true);
  for (const member of ["responseLogprobs", "logprobs"]) assert.equal(member in configs[2]!, false, member);
  assert.equal(configs[2]!.temperature, 0.4, "what the model takes still goes");

  // The model's refusals are remembered: the next request is sent once, without them.
  gemini.reset();
  const again = await openai.chat.completions
    .create({ model: "fg/g-25", messages: [{ role: "user", content: "hi" }], presence_penalty: 0.5 })
    .withResponse();
  assert.deepEqual(ignored(again.response.headers), ["presence_penalty"]);
  assert.equal(gemini.requests.length, 1);
});

test("a messages client's thinking, refused by a Gemini model that does not think, is left out and named", async () => {
  const { data, response } = await anthropic.messages
    .create({
      model: "fg/g-20",
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 2048 },
      messages: [{ role: "user", content: "hi" }],
    })
    .withResponse();
  assert.equal(data.content.at(-1)?.type, "text");
  assert.deepEqual(ignored(response.headers), ["reasoning"]);
  const configs = bodies(gemini).map((b) => b.generationConfig as Json | undefined);
  assert.equal(configs.length, 2);
  assert.ok(configs[0]?.thinkingConfig, "asked to think first");
  assert.equal(configs[1] !== undefined && "thinkingConfig" in configs[1], false);
});

test("a chat client's temperature and top_p to a Claude model that takes one of them: top_p left out beside temperature only", async () => {
  const ask = (sampling: { temperature?: number; top_p?: number }) =>
    openai.chat.completions
      .create({ model: "fa/claude-45", messages: [{ role: "user", content: "hi" }], ...sampling })
      .withResponse();
  const both = await ask({ temperature: 0.3, top_p: 0.9 });
  assert.ok((both.data.choices[0]?.message.content ?? "").length > 0);
  assert.deepEqual(ignored(both.response.headers), ["top_p"]);
  assert.deepEqual(
    bodies(claude).map((b) => [b.temperature, b.top_p]),
    [
      [0.3, 0.9],
      [0.3, undefined],
    ],
  );
  claude.reset();
  const alone = await ask({ top_p: 0.9 });
  assert.deepEqual(ignored(alone.response.headers), [], "top_p alone is taken");
  assert.deepEqual(
    bodies(claude).map((b) => b.top_p),
    [0.9],
  );
  claude.reset();
  const again = await ask({ temperature: 0.5, top_p: 0.8 });
  assert.deepEqual(ignored(again.response.headers), ["top_p"]);
  assert.deepEqual(
    bodies(claude).map((b) => [b.temperature, b.top_p]),
    [[0.5, undefined]],
    "remembered: left out at once beside temperature",
  );
});

test("an output limit over the model's goes lowered to the limit the upstream names, at once on later calls", async () => {
  const ask = () =>
    anthropic.messages
      .create({ model: "fo/gpt-4o", max_tokens: 20000, messages: [{ role: "user", content: "hi" }] })
      .withResponse();
  const first = await ask();
  assert.equal(first.data.content[0]?.type, "text");
  assert.deepEqual(ignored(first.response.headers), [], "a limit lowered is not a field left out");
  assert.deepEqual(
    bodies(chat).map((b) => b.max_completion_tokens),
    [20000, 16384],
  );
  chat.reset();
  await ask();
  assert.deepEqual(
    bodies(chat).map((b) => b.max_completion_tokens),
    [16384],
  );
});

test("a Claude model's output limit lowers a thinking budget with it, which must stay below", async () => {
  const answer = await openai.chat.completions.create({
    model: "fa/claude-small",
    messages: [{ role: "user", content: "hi" }],
    max_completion_tokens: 60000,
    reasoning_effort: "high",
  });
  assert.ok((answer.choices[0]?.message.content ?? "").length > 0);
  const sent = bodies(claude).map((b) => [b.max_tokens, (b.thinking as Json | undefined)?.budget_tokens]);
  assert.equal(sent.length, 2);
  assert.equal(sent[0]![0], 60000);
  assert.equal(sent[1]![0], 20000);
  assert.ok((sent[1]![1] as number) < 20000, `budget ${sent[1]![1]} below max_tokens`);
});

test("a refused member the request cannot go without reaches the client as the upstream's 400, after one call", async () => {
  const error = await anthropic.messages
    .create({
      model: "fo/no-tools",
      max_tokens: 100,
      tools: [{ name: "f", description: "d", input_schema: { type: "object", properties: {} } }],
      messages: [{ role: "user", content: "hi" }],
    })
    .catch((e: unknown) => e);
  assert.ok(error instanceof Anthropic.BadRequestError, String(error));
  assert.match(error.message, /'tools' is not supported with this model/);
  assert.equal(chat.requests.length, 1);
});

test("a relayed chat request goes as the client wrote it: the model's refusal is the client's to read", async () => {
  const error = await openai.chat.completions
    .create({ model: "fo/codex", messages: [{ role: "user", content: "hi" }], stop: ["END"] })
    .catch((e: unknown) => e);
  assert.ok(error instanceof OpenAI.BadRequestError, String(error));
  assert.match(error.message, /'stop' is not supported with this model/);
  assert.equal(chat.requests.length, 1);
});

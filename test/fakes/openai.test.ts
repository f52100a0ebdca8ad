// The fake OpenAI upstream driven by the official `openai` SDK (no gateway): what the SDK assembles
// proves the wire shape; raw reads check what the SDK would smooth over.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import OpenAI, { RateLimitError } from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { type FakeUpstream, type Reply, startFakeUpstream } from "./index.ts";
import { post } from "./read-frames.ts";

const ARGS = { city: "Paris", unit: "celsius", days: [1, 2, 3] };
const RICH: Reply = {
  blocks: [
    { type: "thinking", text: "The user wants the weather in Paris.", signature: "sig-openai-1" },
    { type: "text", text: "Let me check the weather." },
    { type: "tool_call", id: "call_weather_1", name: "get_weather", args: ARGS },
  ],
  usage: { input: 100, cacheRead: 40, output: 20, reasoning: 7 },
};

let fake: FakeUpstream;
let client: OpenAI;
before(async () => {
  fake = await startFakeUpstream("openai");
  client = new OpenAI({ apiKey: "sk-fake", baseURL: fake.url, maxRetries: 0 });
});
after(() => fake.close());
beforeEach(() => fake.reset());

const params = { model: "gpt-fake", messages: [{ role: "user" as const, content: "weather?" }] };

describe("openai fake, whole responses", () => {
  test("a chat.completion with reasoning, signed reasoning_details, a tool call and usage semantics", async () => {
    fake.script(RICH);
    const completion = await client.chat.completions.create(params);
    assert.equal(completion.object, "chat.completion");
    assert.match(completion.id, /^chatcmpl-/);
    assert.equal(completion.model, "gpt-fake");
    const choice = completion.choices[0];
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, "Let me check the weather.");
    const message = choice.message as unknown as Record<string, any>;
    assert.equal(message.reasoning, "The user wants the weather in Paris.");
    assert.deepEqual(message.reasoning_details, [
      {
        type: "reasoning.text",
        text: "The user wants the weather in Paris.",
        signature: "sig-openai-1",
        format: "unknown",
        index: 0,
      },
    ]);
    const call = choice.message.tool_calls?.[0];
    assert.ok(call && call.type === "function");
    assert.equal(call.id, "call_weather_1");
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), ARGS);
    // prompt_tokens includes cached; completion_tokens includes reasoning.
    assert.equal(completion.usage?.prompt_tokens, 140);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 40);
    assert.equal(completion.usage?.completion_tokens, 27);
    assert.equal(completion.usage?.completion_tokens_details?.reasoning_tokens, 7);
    assert.equal(completion.usage?.total_tokens, 167);

    const recorded = fake.requests.at(-1)!;
    assert.equal(recorded.method, "POST");
    assert.equal(recorded.path, "/v1/chat/completions");
    assert.equal(recorded.headers.authorization, "Bearer sk-fake");
    assert.equal(recorded.body.model, "gpt-fake");
    assert.equal(recorded.aborted, false);
  });

  test("an empty script answers the default text reply", async () => {
    const completion = await client.chat.completions.create(params);
    assert.equal(completion.choices[0].message.content, "Hello from the fake upstream.");
    assert.equal(completion.choices[0].finish_reason, "stop");
    assert.equal(completion.usage?.prompt_tokens, 10);
  });

  test("cache writes show as prompt_tokens_details.cache_write_tokens, inside prompt_tokens", async () => {
    fake.script({
      blocks: [{ type: "text", text: "ok" }],
      usage: { input: 5, cacheWrite5m: 30, cacheWrite1h: 2 },
    });
    const completion = await client.chat.completions.create(params);
    const details = completion.usage?.prompt_tokens_details as Record<string, unknown>;
    assert.equal(details.cache_write_tokens, 32);
    assert.equal(completion.usage?.prompt_tokens, 37);
  });

  test("status 429 with retry-after is the SDK's RateLimitError", async () => {
    fake.script({ status: 429, headers: { "retry-after": "3" } });
    await assert.rejects(client.chat.completions.create(params), (err: unknown) => {
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.headers?.get("retry-after"), "3");
      assert.equal(err.code, "rate_limit_exceeded");
      return true;
    });
  });

  test("a request without a Bearer key is a native 401 and does not use up the script", async () => {
    fake.script({ blocks: [{ type: "text", text: "kept" }] });
    const res = await post(`${fake.url}/chat/completions`, params, {});
    assert.equal(res.status, 401);
    const body = JSON.parse(res.text);
    assert.equal(body.error.type, "invalid_request_error");
    assert.ok("param" in body.error && "code" in body.error);
    assert.equal(fake.queued, 1);
    const completion = await client.chat.completions.create(params);
    assert.equal(completion.choices[0].message.content, "kept");
  });
});

describe("openai fake, streams", () => {
  test("stream().finalChatCompletion assembles a tool call split mid-JSON, reasoning and usage", async () => {
    fake.script({ ...RICH, chunks: 3 });
    const chunks: ChatCompletionChunk[] = [];
    const runner = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
    runner.on("chunk", (chunk) => chunks.push(chunk));
    const completion = await runner.finalChatCompletion();

    assert.equal(completion.choices[0].message.content, "Let me check the weather.");
    assert.equal(completion.choices[0].finish_reason, "tool_calls");
    const call = completion.choices[0].message.tool_calls?.[0];
    assert.ok(call && call.type === "function");
    assert.equal(call.id, "call_weather_1");
    assert.deepEqual(JSON.parse(call.function.arguments), ARGS);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 40);
    assert.equal(completion.usage?.completion_tokens, 27);

    // The wire: role first; the call's first piece names it, later pieces carry only arguments.
    assert.equal(chunks[0].choices[0].delta.role, "assistant");
    assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.id === chunks[0].id));
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    assert.equal(toolDeltas[0].id, "call_weather_1");
    assert.equal(toolDeltas[0].type, "function");
    assert.equal(toolDeltas[0].function?.name, "get_weather");
    const pieces = toolDeltas.slice(1);
    assert.equal(pieces.length, 3);
    for (const piece of pieces) {
      assert.deepEqual(Object.keys(piece).sort(), ["function", "index"]);
      assert.deepEqual(Object.keys(piece.function ?? {}), ["arguments"]);
    }
    assert.throws(() => JSON.parse(pieces[0].function?.arguments ?? ""), "the first piece is not whole JSON");
    const reasoning = chunks.map(
      (c) => (c.choices[0]?.delta as Record<string, any> | undefined)?.reasoning ?? "",
    );
    assert.equal(reasoning.join(""), "The user wants the weather in Paris.");
    const details = chunks.flatMap(
      (c) => (c.choices[0]?.delta as Record<string, any> | undefined)?.reasoning_details ?? [],
    );
    assert.equal(details.length, 3);
    assert.equal(details.at(-1).signature, "sig-openai-1");
    assert.equal(details[0].signature, undefined);
    // Usage last, on a chunk of its own with no choices.
    const last = chunks.at(-1)!;
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage?.prompt_tokens, 140);
    assert.equal(fake.requests.at(-1)!.body.stream_options.include_usage, true);
  });

  test("the raw stream ends with a finish chunk, the usage chunk and [DONE]", async () => {
    fake.script({ blocks: [{ type: "text", text: "Hi there" }], chunks: 2 });
    const res = await post(
      `${fake.url}/chat/completions`,
      { ...params, stream: true, stream_options: { include_usage: true } },
      { authorization: "Bearer k" },
    );
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    const data = res.frames.map((f) => f.data);
    assert.equal(data.at(-1), "[DONE]");
    const json = data.slice(0, -1).map((d) => JSON.parse(d));
    assert.deepEqual(json[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
    assert.deepEqual(
      json.slice(1, 3).map((c) => c.choices[0].delta.content),
      ["Hi t", "here"],
    );
    assert.deepEqual(json.at(-2).choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
    assert.equal(json.at(-2).usage, null);
    assert.deepEqual(json.at(-1).choices, []);
    assert.equal(json.at(-1).usage.total_tokens, 16);
  });

  test("without stream_options.include_usage no chunk carries usage", async () => {
    const res = await post(
      `${fake.url}/chat/completions`,
      { ...params, stream: true },
      { authorization: "Bearer k" },
    );
    const json = res.frames.filter((f) => f.data !== "[DONE]").map((f) => JSON.parse(f.data));
    assert.ok(json.length > 2);
    assert.ok(json.every((c) => !("usage" in c) && c.choices.length === 1));
  });

  test("extraFields ride on the whole response and on every chunk", async () => {
    const extra = { provider: "FakeCloud", x_unknown: { a: 1 } };
    fake.script({ extraFields: extra }, { extraFields: extra });
    const whole = await post(`${fake.url}/chat/completions`, params, { authorization: "Bearer k" });
    assert.deepEqual(JSON.parse(whole.text).x_unknown, { a: 1 });
    const streamed = await post(
      `${fake.url}/chat/completions`,
      { ...params, stream: true, stream_options: { include_usage: true } },
      { authorization: "Bearer k" },
    );
    const json = streamed.frames.filter((f) => f.data !== "[DONE]").map((f) => JSON.parse(f.data));
    assert.ok(json.every((c) => c.provider === "FakeCloud"));
  });

  test("a Gemini-style tool-call signature rides as extra_content.google.thought_signature", async () => {
    fake.script({ blocks: [{ type: "tool_call", name: "noop", args: {}, signature: "gsig" }] });
    const completion = await client.chat.completions.create(params);
    const call = completion.choices[0].message.tool_calls?.[0] as unknown as Record<string, any>;
    assert.equal(call.extra_content.google.thought_signature, "gsig");
    assert.match(call.id, /^call_/);
    assert.equal(call.function.arguments, "{}");
  });
});

test("the reasoningField option sends DeepSeek-style reasoning_content", async () => {
  const deepseek = await startFakeUpstream("openai", { reasoningField: "reasoning_content" });
  try {
    deepseek.script({
      blocks: [
        { type: "thinking", text: "hmm" },
        { type: "text", text: "ok" },
      ],
    });
    const res = await post(`${deepseek.url}/chat/completions`, params, { authorization: "Bearer k" });
    const message = JSON.parse(res.text).choices[0].message;
    assert.equal(message.reasoning_content, "hmm");
    assert.equal(message.reasoning, undefined);
    assert.equal(message.reasoning_details, undefined, "unsigned thinking has no reasoning_details");
  } finally {
    await deepseek.close();
  }
});

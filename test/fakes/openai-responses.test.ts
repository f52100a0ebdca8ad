// The fake Responses API upstream driven by the official `openai` SDK (no gateway): what the SDK
// assembles proves the wire shape; raw reads check what the SDK would smooth over.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import OpenAI from "openai";
import { type FakeUpstream, type Reply, startFakeUpstream } from "./index.ts";
import { post } from "./read-frames.ts";

const ARGS = { city: "Paris", unit: "celsius" };
const RICH: Reply = {
  blocks: [
    { type: "thinking", text: "The user wants the weather in Paris.", signature: "gAAAA-enc-1" },
    { type: "text", text: "Let me check the weather." },
    { type: "tool_call", id: "call_weather_1", name: "get_weather", args: ARGS },
  ],
  usage: { input: 100, cacheRead: 40, output: 20, reasoning: 7 },
};
const ASK_REASONING = {
  reasoning: { effort: "low" as const, summary: "auto" as const },
  include: ["reasoning.encrypted_content" as const],
};

let fake: FakeUpstream;
let client: OpenAI;
before(async () => {
  fake = await startFakeUpstream("openai-responses");
  client = new OpenAI({ apiKey: "sk-fake", baseURL: fake.url, maxRetries: 0 });
});
after(() => fake.close());
beforeEach(() => fake.reset());

describe("openai-responses fake", () => {
  test("a whole response: reasoning with summary and encrypted content, a message, a call, usage", async () => {
    fake.script(RICH);
    const response = await client.responses.create({
      model: "gpt-fake",
      input: "weather?",
      ...ASK_REASONING,
    });
    assert.match(response.id, /^resp_/);
    assert.equal(response.status, "completed");
    assert.deepEqual(
      response.output.map((item) => item.type),
      ["reasoning", "message", "function_call"],
    );
    const reasoning = response.output[0];
    assert.ok(reasoning.type === "reasoning");
    assert.equal(reasoning.encrypted_content, "gAAAA-enc-1");
    assert.deepEqual(reasoning.summary, [
      { type: "summary_text", text: "The user wants the weather in Paris." },
    ]);
    assert.equal(response.output_text, "Let me check the weather.");
    const call = response.output[2];
    assert.ok(call.type === "function_call");
    assert.equal(call.call_id, "call_weather_1");
    assert.deepEqual(JSON.parse(call.arguments), ARGS);
    // input_tokens includes cached; output_tokens includes reasoning.
    assert.equal(response.usage?.input_tokens, 140);
    assert.equal(response.usage?.input_tokens_details.cached_tokens, 40);
    assert.equal(response.usage?.output_tokens, 27);
    assert.equal(response.usage?.output_tokens_details.reasoning_tokens, 7);
  });

  test("without include and summary, reasoning comes back as OpenAI sends it: empty", async () => {
    fake.script(RICH);
    const response = await client.responses.create({ model: "gpt-fake", input: "weather?" });
    const reasoning = response.output[0];
    assert.ok(reasoning.type === "reasoning");
    assert.equal(reasoning.encrypted_content, undefined);
    assert.deepEqual(reasoning.summary, []);
  });

  test("the SDK's ResponseStream assembles the same response from the events", async () => {
    fake.script({ ...RICH, chunks: 4 });
    const stream = client.responses.stream({ model: "gpt-fake", input: "weather?", ...ASK_REASONING });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const final = await stream.finalResponse();
    assert.equal(types[0], "response.created");
    assert.equal(types.at(-1), "response.completed");
    assert.equal(types.filter((t) => t === "response.output_text.delta").length, 4);
    assert.equal(types.filter((t) => t === "response.reasoning_summary_text.delta").length, 4);
    assert.equal(final.output_text, "Let me check the weather.");
    const call = final.output[2];
    assert.ok(call.type === "function_call");
    assert.deepEqual(JSON.parse(call.arguments), ARGS);
    assert.equal(final.usage?.total_tokens, 167);
  });

  test("sequence numbers count from 0 and every event names its type on the event line", async () => {
    fake.script(RICH);
    const { frames } = await post(
      `${fake.url}/responses`,
      { model: "m", input: "x", stream: true },
      { authorization: "Bearer sk" },
    );
    frames.forEach((frame, i) => {
      const data = JSON.parse(frame.data);
      assert.equal(frame.event, data.type);
      assert.equal(data.sequence_number, i);
    });
  });

  test("length is response.incomplete with its reason", async () => {
    fake.script({ blocks: [{ type: "text", text: "One two" }], finish: "length" });
    const response = await client.responses.create({ model: "gpt-fake", input: "count" });
    assert.equal(response.status, "incomplete");
    assert.deepEqual(response.incomplete_details, { reason: "max_output_tokens" });
  });

  test("errors in OpenAI's shape: a missing input, a stored-response reference, a 429", async () => {
    const res = await fetch(`${fake.url}/responses`, {
      method: "POST",
      headers: { authorization: "Bearer sk", "content-type": "application/json" },
      body: JSON.stringify({ model: "m" }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.param, "input");
    await assert.rejects(
      client.responses.create({ model: "m", input: "x", previous_response_id: "resp_x" }),
      OpenAI.BadRequestError,
    );
    fake.script({ status: 429 });
    await assert.rejects(client.responses.create({ model: "m", input: "x" }), OpenAI.RateLimitError);
  });
});

// What the encoders write, read back by real clients: the openai SDK's own stream assembly
// (`finalChatCompletion`) and the Vercel AI SDK's OpenAI chat provider (the strictest validator).
// Each client gets our bytes from a custom `fetch`, as if the gateway had answered.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import OpenAI from "openai";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { Response as IrResponse } from "../../../src/ir/response.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { encodeContext } from "./helpers.ts";

const usage = {
  ...emptyUsage(),
  promptTokens: 30,
  cacheReadTokens: 10,
  completionTokens: 12,
  reasoningTokens: 4,
};

function sseBody(events: StreamEvent[], request = {}): string {
  const encoder = openaiChat.streamEncoder(encodeContext(request));
  return events.map((e) => encoder.encode(e)).join("") + encoder.end();
}

function answering(body: string, contentType: string): typeof fetch {
  return async () => new Response(body, { status: 200, headers: { "content-type": contentType } });
}

function openaiClient(body: string, contentType = "text/event-stream"): OpenAI {
  return new OpenAI({
    apiKey: "sk-test",
    baseURL: "http://gateway.test/v1",
    maxRetries: 0,
    fetch: answering(body, contentType),
  });
}

function vercelModel(body: string, contentType = "text/event-stream") {
  return createOpenAI({
    apiKey: "sk-test",
    baseURL: "http://gateway.test/v1",
    fetch: answering(body, contentType),
  }).chat("openai/gpt-4.1");
}

const toolStream: StreamEvent[] = [
  { type: "start" },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "block_delta", index: 0, delta: { type: "thinking", text: "Two cities." } },
  { type: "block_delta", index: 0, delta: { type: "signature", signature: "sig" } },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "block_delta", index: 1, delta: { type: "text", text: "Checking " } },
  { type: "block_delta", index: 1, delta: { type: "text", text: "both." } },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "call_a", name: "weather" } },
  { type: "block_delta", index: 2, delta: { type: "tool_arguments", json: '{"city":' } },
  { type: "block_delta", index: 2, delta: { type: "tool_arguments", json: '"Paris"}' } },
  { type: "block_stop", index: 2 },
  { type: "block_start", index: 3, block: { type: "tool_call", id: "call_b", name: "now" } },
  { type: "block_stop", index: 3 },
  { type: "finish", reason: "tool_calls" },
  { type: "usage", usage },
];

describe("openai SDK reads what we write", () => {
  test("stream → finalChatCompletion assembles text, both tool calls and usage", async () => {
    const stream = openaiClient(sseBody(toolStream, { streamUsage: true })).chat.completions.stream({
      model: "openai/gpt-4.1",
      messages: [{ role: "user", content: "Weather in Paris, and the time?" }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    assert.equal(completion.id, "gen-01TEST");
    assert.equal(completion.model, "openai/gpt-4.1");
    const [choice] = completion.choices;
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.role, "assistant");
    assert.equal(choice.message.content, "Checking both.");
    assert.deepEqual(
      choice.message.tool_calls?.map((c) =>
        c.type === "function" ? [c.id, c.function.name, c.function.arguments] : [],
      ),
      [
        ["call_a", "weather", '{"city":"Paris"}'],
        ["call_b", "now", "{}"],
      ],
    );
    assert.equal(completion.usage?.prompt_tokens, 30);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 10);
    assert.equal(completion.usage?.completion_tokens_details?.reasoning_tokens, 4);
  });

  test("an error chunk mid-stream surfaces as an APIError carrying our message", async () => {
    const body = sseBody([
      { type: "start" },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Par" } },
      { type: "error", error: new GatewayError("api_error", "upstream connection reset") },
    ]);
    const stream = await openaiClient(body).chat.completions.create({
      model: "openai/gpt-4.1",
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? "");
      })(),
      (err: unknown) => err instanceof OpenAI.APIError && err.message.includes("upstream connection reset"),
    );
    assert.deepEqual(seen, ["", "Par"]);
  });

  test("a whole completion parses with the SDK's types", async () => {
    const response: IrResponse = {
      id: "u",
      model: "m",
      content: [{ type: "text", text: "Hi" }],
      finishReason: "stop",
      usage,
    };
    const body = JSON.stringify(openaiChat.encodeResponse(response, encodeContext()));
    const completion = await openaiClient(body, "application/json").chat.completions.create({
      model: "openai/gpt-4.1",
      messages: [{ role: "user", content: "x" }],
    });
    assert.equal(completion.object, "chat.completion");
    assert.equal(completion.choices[0].message.content, "Hi");
    assert.equal(completion.usage?.total_tokens, 42);
  });
});

describe("Vercel AI SDK reads what we write", () => {
  test("streamText: text, tool calls with parsed input, finish reason and usage", async () => {
    const result = streamText({
      model: vercelModel(sseBody(toolStream, { streamUsage: true })),
      prompt: "Weather?",
    });
    assert.equal(await result.text, "Checking both.");
    const calls = await result.toolCalls;
    assert.deepEqual(
      calls.map((c) => [c.toolCallId, c.toolName, c.input]),
      [
        ["call_a", "weather", { city: "Paris" }],
        ["call_b", "now", {}],
      ],
    );
    assert.equal(await result.finishReason, "tool-calls");
    const total = await result.usage;
    assert.equal(total.inputTokens, 30);
    assert.equal(total.outputTokens, 12);
  });

  test("an error chunk is an error, not an empty chunk", async () => {
    const body = sseBody([
      { type: "start" },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Par" } },
      { type: "error", error: new GatewayError("rate_limit", "slow down") },
    ]);
    const errors: unknown[] = [];
    const result = streamText({
      model: vercelModel(body),
      prompt: "x",
      onError: ({ error }) => void errors.push(error),
    });
    await result.consumeStream();
    assert.equal(errors.length, 1);
    assert.match(String((errors[0] as Error).message ?? errors[0]), /slow down/);
  });

  test("generateText reads a whole completion with reasoning fields beside it", async () => {
    const response: IrResponse = {
      id: "u",
      model: "m",
      content: [
        { type: "thinking", text: "hmm", signature: "s" },
        { type: "text", text: "Hello" },
        { type: "tool_call", id: "call_1", name: "f", arguments: "" },
      ],
      finishReason: "tool_calls",
      usage,
    };
    const body = JSON.stringify(openaiChat.encodeResponse(response, encodeContext()));
    const result = await generateText({ model: vercelModel(body, "application/json"), prompt: "x" });
    assert.equal(result.text, "Hello");
    assert.deepEqual(
      result.toolCalls.map((c) => [c.toolCallId, c.input]),
      [["call_1", {}]],
    );
    assert.equal(result.finishReason, "tool-calls");
  });
});

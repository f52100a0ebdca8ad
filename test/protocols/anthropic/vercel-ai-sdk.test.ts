// The Vercel AI SDK validates every response and chunk with strict schemas: our bytes must pass them.

import assert from "node:assert/strict";
import { test } from "node:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, jsonSchema, streamText, tool } from "ai";
import type { Response as IrResponse } from "../../../src/ir/response.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { encodeContext } from "./helpers.ts";

const usage = { ...emptyUsage(), promptTokens: 50, cacheReadTokens: 10, completionTokens: 12 };

function provider(answer: { response?: IrResponse; events?: StreamEvent[] }) {
  const fetch = async (_url: string | URL | globalThis.Request, init?: RequestInit) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const req = anthropic.decodeRequest(JSON.parse(String(init?.body)), { headers });
    const ctx = encodeContext({ request: req });
    if (req.stream) {
      const encoder = anthropic.streamEncoder(ctx);
      const sse = (answer.events ?? []).map((e) => encoder.encode(e)).join("") + encoder.end();
      return new globalThis.Response(sse, { headers: { "content-type": "text/event-stream" } });
    }
    return new globalThis.Response(JSON.stringify(anthropic.encodeResponse(answer.response!, ctx)), {
      headers: { "content-type": "application/json" },
    });
  };
  return createAnthropic({ apiKey: "x", baseURL: "http://gateway.test/v1", fetch });
}

test("generateText accepts our message (thinking and text)", async () => {
  const model = provider({
    response: {
      id: "",
      model: "",
      content: [
        { type: "thinking", text: "hm", signature: "sig" },
        { type: "text", text: "Hello there" },
      ],
      finishReason: "stop",
      usage,
    },
  })("anthropic/claude-sonnet-4-5");
  const result = await generateText({ model, prompt: "Hi", maxRetries: 0 });
  assert.equal(result.text, "Hello there");
  assert.equal(result.reasoningText, "hm");
  assert.equal(result.finishReason, "stop");
  assert.equal(result.usage.outputTokens, 12);
});

test("streamText accepts our stream, tool-call pieces included", async () => {
  const model = provider({
    events: [
      { type: "start" },
      { type: "usage", usage },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Looking" } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "call_1", name: "lookup" } },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: '{"q":' } },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: '"x"}' } },
      { type: "block_stop", index: 1 },
      { type: "finish", reason: "tool_calls" },
      { type: "usage", usage },
    ],
  })("anthropic/claude-sonnet-4-5");
  const result = streamText({
    model,
    prompt: "Find x",
    maxRetries: 0,
    tools: {
      lookup: tool({ inputSchema: jsonSchema({ type: "object", properties: { q: { type: "string" } } }) }),
    },
  });
  const parts: string[] = [];
  for await (const part of result.fullStream) {
    if (part.type === "error") assert.fail(`stream error: ${String((part as any).error)}`);
    parts.push(part.type);
  }
  assert.equal(await result.text, "Looking");
  const calls = await result.toolCalls;
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0].input, { q: "x" });
  assert.equal(await result.finishReason, "tool-calls");
});

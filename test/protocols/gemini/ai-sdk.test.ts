// The Vercel AI SDK's Google provider (the strictest response validator among our clients) against
// bytes this module writes.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, streamText } from "ai";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { blockEvents, encodeContext, startServer, type TestServer } from "./helpers.ts";

const usage = {
  ...emptyUsage(),
  promptTokens: 40,
  cacheReadTokens: 10,
  completionTokens: 25,
  reasoningTokens: 5,
};
const events: StreamEvent[] = [
  ...blockEvents(
    0,
    { type: "thinking" },
    { type: "thinking", text: "Weighing it." },
    { type: "signature", signature: "VEg=" },
  ),
  ...blockEvents(
    1,
    { type: "text" },
    { type: "text", text: "Calling " },
    { type: "text", text: "the tool." },
  ),
  ...blockEvents(
    2,
    { type: "tool_call", id: "call_1", name: "weather", signature: "Q0E=" },
    { type: "tool_arguments", json: '{"city":"Oslo"}' },
  ),
  { type: "finish", reason: "tool_calls" },
  { type: "usage", usage },
];
const request = { reasoning: { exclude: false } };

let server: TestServer;
let google: ReturnType<typeof createGoogleGenerativeAI>;
let streaming = false;

before(async () => {
  server = await startServer((_req, res) => {
    if (streaming) {
      const encoder = gemini.streamEncoder(encodeContext(request));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(events.map((event) => encoder.encode(event)).join("") + encoder.end());
    } else {
      const response = {
        id: "",
        model: "",
        content: [
          { type: "thinking" as const, text: "Weighing it.", signature: "VEg=" },
          { type: "text" as const, text: "Calling the tool." },
          {
            type: "tool_call" as const,
            id: "call_1",
            name: "weather",
            arguments: '{"city":"Oslo"}',
            signature: "Q0E=",
          },
        ],
        finishReason: "tool_calls" as const,
        usage,
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(gemini.encodeResponse(response, encodeContext(request))));
    }
  });
  google = createGoogleGenerativeAI({ apiKey: "test", baseURL: `${server.baseUrl}/v1beta` });
});
after(() => server.close());

describe("@ai-sdk/google reads what the encoders write", () => {
  test("generateText: text, reasoning, tool call with its signature, usage, finish reason", async () => {
    streaming = false;
    const result = await generateText({ model: google("gemini-2.5-flash"), prompt: "Weather in Oslo?" });
    assert.equal(result.text, "Calling the tool.");
    assert.equal(result.reasoningText, "Weighing it.");
    assert.equal(result.toolCalls.length, 1);
    assert.equal(result.toolCalls[0].toolName, "weather");
    assert.deepEqual(result.toolCalls[0].input, { city: "Oslo" });
    assert.equal((result.toolCalls[0].providerMetadata as any)?.google?.thoughtSignature, "Q0E=");
    assert.equal(result.finishReason, "tool-calls");
    assert.equal(result.usage.inputTokens, 40);
    assert.equal(result.usage.outputTokens, 25);
  });

  test("streamText: the same through the stream", async () => {
    streaming = true;
    const result = streamText({ model: google("gemini-2.5-flash"), prompt: "Weather in Oslo?" });
    const parts: string[] = [];
    for await (const part of result.fullStream) {
      if (part.type === "error") throw part.error;
      parts.push(part.type);
    }
    assert.equal(await result.text, "Calling the tool.");
    assert.equal(await result.reasoningText, "Weighing it.");
    const calls = await result.toolCalls;
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].input, { city: "Oslo" });
    assert.equal((calls[0].providerMetadata as any)?.google?.thoughtSignature, "Q0E=");
    assert.equal(await result.finishReason, "tool-calls");
    assert.equal((await result.usage).inputTokens, 40);
    assert.ok(
      parts.includes("text-delta") && parts.includes("reasoning-delta") && parts.includes("tool-call"),
    );
  });
});

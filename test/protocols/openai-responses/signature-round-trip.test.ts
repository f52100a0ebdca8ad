// Signatures survive a Responses client's turn (thinking signatures and Gemini's call thoughtSignature):
// what the encoder writes, sent back as the next request's input, decodes to the very blocks the
// upstream produced, whole and streamed.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { OutputBlock, Response } from "../../../src/ir/response.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { openaiResponses } from "../../../src/protocols/openai-responses/index.ts";
import { decode, encodeContext, written } from "./helpers.ts";

const BLOCKS: OutputBlock[] = [
  // An Anthropic thinking signature.
  { type: "thinking", text: "I should call the tool.", signature: "EqQBCkYIBxgCKkDsig+/thinking==" },
  // Signed thinking with no text (kept: dropping it loses replayed reasoning).
  { type: "thinking", text: "", signature: "gAAAAABo-openai-encrypted" },
  // Anthropic redacted thinking.
  { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/redacted" },
  { type: "text", text: "Calling it." },
  // A Gemini function call's thoughtSignature.
  {
    type: "tool_call",
    id: "call_g1",
    name: "get_weather",
    arguments: '{"city":"Paris"}',
    signature: "CiQB0e2Kb7call+sig/Gemini==",
  },
];

function replayed(output: unknown[]): ReturnType<typeof decode> {
  return decode({ model: "m", input: [{ role: "user", content: "Weather?" }, ...output] });
}

describe("a Responses client gets every signature back to the upstream", () => {
  test("whole answer", () => {
    const response: Response = {
      id: "",
      model: "",
      content: BLOCKS,
      finishReason: "tool_calls",
      usage: emptyUsage(),
    };
    const body = openaiResponses.encodeResponse(response, encodeContext()) as { output: unknown[] };
    // JSON, as it crosses the wire.
    const next = replayed(JSON.parse(JSON.stringify(body.output)));
    assert.deepEqual(next.messages[1], { role: "assistant", content: BLOCKS });
  });

  test("streamed: the items of the output_item.done events", () => {
    const events: StreamEvent[] = [{ type: "start" }];
    BLOCKS.forEach((block, index) => {
      if (block.type === "thinking") {
        events.push({ type: "block_start", index, block: { type: "thinking" } });
        if (block.text)
          events.push({ type: "block_delta", index, delta: { type: "thinking", text: block.text } });
        events.push({
          type: "block_delta",
          index,
          delta: { type: "signature", signature: block.signature ?? "" },
        });
      } else if (block.type === "redacted_thinking") {
        events.push({ type: "block_start", index, block: { type: "redacted_thinking", data: block.data } });
      } else if (block.type === "text") {
        events.push({ type: "block_start", index, block: { type: "text" } });
        events.push({ type: "block_delta", index, delta: { type: "text", text: block.text } });
      } else if (block.type === "tool_call") {
        events.push({
          type: "block_start",
          index,
          block: { type: "tool_call", id: block.id, name: block.name, signature: block.signature },
        });
        events.push({ type: "block_delta", index, delta: { type: "tool_arguments", json: block.arguments } });
      }
      events.push({ type: "block_stop", index });
    });
    events.push({ type: "finish", reason: "tool_calls" });
    const encoder = openaiResponses.streamEncoder(encodeContext());
    const text = events.map((e) => encoder.encode(e)).join("") + encoder.end();
    const items = written(text)
      .filter((e) => e.data.type === "response.output_item.done")
      .map((e) => e.data.item);
    const next = replayed(items);
    assert.deepEqual(next.messages[1], { role: "assistant", content: BLOCKS });
  });
});

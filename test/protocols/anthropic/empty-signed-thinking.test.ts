// Known trap (docs/architecture.md §10; BerriAI/litellm#41361): thinking blocks whose text is empty but which
// carry a signature were dropped on the way back, and replayed reasoning was lost. They must survive every
// path here.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "../../../src/ir/collect.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { baseRequest, encodeContext, parseSse, sseFrames, VERSION_HEADERS } from "./helpers.ts";

const signature = "EuYBCkQYAiJAsignature-of-omitted-thinking==";

describe("a thinking block with empty text and a signature", () => {
  test("client request → IR → upstream request keeps it, in place", () => {
    const ir = anthropic.decodeRequest(
      {
        model: "anthropic/claude-sonnet-4-5",
        max_tokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [
          { role: "user", content: "Weather in Paris?" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "", signature },
              { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18C" }] },
        ],
      },
      { headers: VERSION_HEADERS },
    );
    const body = anthropic.encodeRequest(ir, { model: "claude-sonnet-4-5", stream: false }).body as any;
    assert.deepEqual(body.messages[1].content[0], { type: "thinking", thinking: "", signature });
    assert.equal(body.messages[1].content[1].type, "tool_use");
  });

  test("upstream message → IR → client message keeps it", () => {
    const ir = anthropic.decodeResponse({
      id: "msg_1",
      model: "claude",
      content: [
        { type: "thinking", thinking: "", signature },
        { type: "text", text: "It is 18C." },
      ],
      stop_reason: "end_turn",
      usage: { input_tokens: 5, output_tokens: 9 },
    });
    assert.deepEqual(ir.content[0], { type: "thinking", text: "", signature });
    const message = anthropic.encodeResponse(ir, encodeContext()) as any;
    assert.deepEqual(message.content[0], { type: "thinking", thinking: "", signature });
  });

  test("upstream stream → IR events → client stream keeps it", () => {
    const upstream = [
      {
        type: "message_start",
        message: { id: "m", model: "c", content: [], usage: { input_tokens: 3, output_tokens: 1 } },
      },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature } },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "18C" } },
      { type: "content_block_stop", index: 1 },
      {
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 4 },
      },
      { type: "message_stop" },
    ];
    const decoder = anthropic.streamDecoder();
    const events = [
      ...upstream.flatMap((f) => decoder.decode({ event: f.type, data: JSON.stringify(f) })),
      ...decoder.end(),
    ];
    assert.deepEqual(collectResponse(events).content[0], { type: "thinking", text: "", signature });

    const encoder = anthropic.streamEncoder(encodeContext());
    const sse = events.map((e) => encoder.encode(e)).join("") + encoder.end();
    const block0 = sseFrames(sse).filter((f) => f.data.index === 0);
    assert.deepEqual(
      block0.map((f) => f.event),
      ["content_block_start", "content_block_delta", "content_block_stop"],
    );
    assert.deepEqual(block0[0].data.content_block, { type: "thinking", thinking: "", signature: "" });
    assert.deepEqual(block0[1].data.delta, { type: "signature_delta", signature });
    // Our client-face bytes read back by our upstream face give the same block: the two faces agree.
    const again = anthropic.streamDecoder();
    const replayed = [...parseSse(sse).flatMap((e) => again.decode(e)), ...again.end()];
    assert.deepEqual(collectResponse(replayed).content[0], { type: "thinking", text: "", signature });
  });

  test("a thinking block with no text and no signature is nothing, and is not sent upstream", () => {
    const message = anthropic.encodeResponse(
      {
        ...baseResponse(),
        content: [
          { type: "thinking", text: "" },
          { type: "text", text: "x" },
        ],
      },
      encodeContext(),
    ) as any;
    assert.deepEqual(
      message.content.map((b: any) => b.type),
      ["text"],
    );
    const body = anthropic.encodeRequest(
      baseRequest({
        messages: [
          { role: "user", content: [{ type: "text", text: "q" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", text: "" },
              { type: "text", text: "a" },
            ],
          },
        ],
      }),
      { model: "c", stream: false, maxOutputTokens: 100 },
    ).body as any;
    assert.deepEqual(body.messages[1].content, [{ type: "text", text: "a" }]);
  });
});

function baseResponse() {
  return collectResponse([{ type: "finish", reason: "stop" }]);
}

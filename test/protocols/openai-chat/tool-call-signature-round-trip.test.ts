// Known trap (docs/architecture.md §10): Gemini `thoughtSignature` on a functionCall part must survive a
// round trip through a chat client (BerriAI/litellm#16893, maximhq/bifrost#1437, Portkey-AI/gateway#1442).
// The chat protocol has no field for it, so it rides inside the tool-call id the client echoes back.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { dataPayloads, encodeContext } from "./helpers.ts";

// A real-looking Gemini signature: base64 with + / = that must come back byte for byte.
const signature = "CiQB0e2Kb+3h/Vx9QmJ0c2lnbmF0dXJlLWJ5dGVzLWhlcmU=";

function secondTurn(echoedId: string, args: string) {
  return openaiChat.decodeRequest(
    {
      model: "google/gemini-3-pro",
      messages: [
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: echoedId, type: "function", function: { name: "weather", arguments: args } }],
        },
        { role: "tool", tool_call_id: echoedId, content: "18C" },
      ],
    },
    { headers: {} },
  );
}

test("non-streamed: signed call → chat client → next turn restores the signature and the bare id", () => {
  const body = openaiChat.encodeResponse(
    {
      id: "r",
      model: "gemini-3-pro",
      content: [{ type: "tool_call", id: "fc_7", name: "weather", arguments: '{"city":"Paris"}', signature }],
      finishReason: "tool_calls",
      usage: emptyUsage(),
    },
    encodeContext(),
  ) as any;
  const call = body.choices[0].message.tool_calls[0];
  assert.match(call.id, /^[A-Za-z0-9_-]+$/, "the id stays within what clients accept");
  // The client echoes the JSON it received.
  const echoed = JSON.parse(JSON.stringify(call));
  const next = secondTurn(echoed.id, echoed.function.arguments);
  assert.deepEqual(next.messages[1].content[0], {
    type: "tool_call",
    id: "fc_7",
    name: "weather",
    arguments: '{"city":"Paris"}',
    signature,
  });
  const result = next.messages[2].content[0];
  assert.equal(result.type === "tool_result" && result.toolCallId, "fc_7");
  assert.equal(result.type === "tool_result" && result.name, "weather");
});

test("streamed: the signature from block_start comes back on the next turn", () => {
  const encoder = openaiChat.streamEncoder(encodeContext());
  const events: StreamEvent[] = [
    { type: "start" },
    { type: "block_start", index: 0, block: { type: "tool_call", id: "fc_8", name: "weather", signature } },
    { type: "block_delta", index: 0, delta: { type: "tool_arguments", json: '{"city":"Paris"}' } },
    { type: "block_stop", index: 0 },
    { type: "finish", reason: "tool_calls" },
  ];
  const text = events.map((e) => encoder.encode(e)).join("") + encoder.end();
  const opening = dataPayloads(text)
    .flatMap((p: any) => (p === "[DONE]" ? [] : p.choices))
    .flatMap((c: any) => c.delta.tool_calls ?? [])
    .find((t: any) => t.id);
  const next = secondTurn(opening.id, '{"city":"Paris"}');
  const call = next.messages[1].content[0];
  assert.equal(call.type === "tool_call" && call.signature, signature);
  assert.equal(call.type === "tool_call" && call.id, "fc_8");
});

test("and onward to an OpenAI-compatible Gemini endpoint as extra_content", () => {
  const next = secondTurn(
    (
      openaiChat.encodeResponse(
        {
          id: "r",
          model: "m",
          content: [{ type: "tool_call", id: "fc_9", name: "weather", arguments: "{}", signature }],
          finishReason: "tool_calls",
          usage: emptyUsage(),
        },
        encodeContext(),
      ) as any
    ).choices[0].message.tool_calls[0].id,
    "{}",
  );
  const upstream = openaiChat.encodeRequest(next, { model: "gemini-3-pro-preview", stream: false })
    .body as any;
  assert.deepEqual(upstream.messages[1].tool_calls[0], {
    id: "fc_9",
    type: "function",
    function: { name: "weather", arguments: "{}" },
    extra_content: { google: { thought_signature: signature } },
  });
  assert.deepEqual(upstream.messages[2], { role: "tool", tool_call_id: "fc_9", content: "18C" });
});

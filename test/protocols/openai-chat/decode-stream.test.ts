import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "../../../src/ir/collect.ts";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { AWKWARD_PIECES, countingParses, decodeAll, laidOutApart, readInTwo } from "../../support/streams.ts";
import { decodeSse, fixtureText, sseEvents } from "./helpers.ts";

/** Blocks must start before their deltas and stop after them; every started block stops. */
function assertWellFormed(events: StreamEvent[]) {
  const open = new Set<number>();
  const seen = new Set<number>();
  for (const e of events) {
    if (e.type === "block_start") {
      assert.ok(!seen.has(e.index), `block ${e.index} started twice`);
      seen.add(e.index);
      open.add(e.index);
    } else if (e.type === "block_delta")
      assert.ok(open.has(e.index), `delta for block ${e.index} outside it`);
    else if (e.type === "block_stop") assert.ok(open.delete(e.index), `stop for block ${e.index} not open`);
  }
  assert.equal(open.size, 0, "every block stops");
  assert.equal(events.filter((e) => e.type === "finish").length, 1, "finish comes once");
}

describe("streamDecoder on recorded streams", () => {
  test("OpenAI text with a usage chunk (choices: [])", () => {
    const events = decodeSse(fixtureText("text.sse"));
    assertWellFormed(events);
    assert.deepEqual(events[0], {
      type: "start",
      id: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0",
      model: "gpt-4.1-nano-2025-04-14",
    });
    const response = collectResponse(events);
    assert.deepEqual(response.content, [{ type: "text", text: "**Holiday Name:** Harmony Day" }]);
    assert.equal(response.finishReason, "stop");
    assert.equal(response.usage.promptTokens, 2071);
    assert.equal(response.usage.cacheReadTokens, 1920);
    assert.equal(response.usage.completionTokens, 7);
    assert.equal(events.filter((e) => e.type === "block_delta").length, 6, "one delta per content chunk");
    assert.equal(events.at(-1)?.type, "usage");
  });

  test("two parallel tool calls with arguments split over many chunks", () => {
    const events = decodeSse(fixtureText("parallel-tool-calls.sse"));
    assertWellFormed(events);
    const response = collectResponse(events);
    assert.equal(response.finishReason, "tool_calls");
    assert.deepEqual(response.content, [
      {
        type: "tool_call",
        id: "call_PieqNSej6kM9hgYbcQdbZSaC",
        name: "get_weather",
        arguments: '{"location":"Paris, France"}',
      },
      {
        type: "tool_call",
        id: "call_lpHYK7xiJ1b2DzZ9J5Pqa8vK",
        name: "get_weather",
        arguments: '{"location":"Tokyo, Japan"}',
      },
    ]);
    assert.equal(
      events.filter((e) => e.type === "block_delta").length,
      14,
      "each argument piece is its own delta",
    );
    assert.equal(response.usage.completionTokens, 48);
  });

  test("OpenRouter → Claude: reasoning pieces, a signature alone in its own piece, then a tool call", () => {
    const events = decodeSse(fixtureText("openrouter-reasoning-signed.sse"));
    assertWellFormed(events);
    const response = collectResponse(events);
    assert.equal(response.content.length, 2);
    const [thinking, call] = response.content;
    assert.equal(thinking.type, "thinking");
    if (thinking.type !== "thinking") return;
    assert.ok(thinking.text.startsWith("The user is asking for weather information for Florence, Italy."));
    assert.ok(thinking.text.endsWith("to make this function call."));
    assert.ok(thinking.signature?.startsWith("EqcDCkgICBACGAIqQDV0Mem0naIq"));
    assert.ok(thinking.signature?.endsWith("KBKt23QRcoTGAE="));
    // `reasoning` repeats the text of `reasoning_details`: it must not be counted twice.
    assert.equal(thinking.text.split("The user is asking").length, 2);
    assert.deepEqual(call, {
      type: "tool_call",
      id: "toolu_vrtx_01UHJryQUb53RxSkCgqC1gwD",
      name: "weather",
      arguments: '{"location": "Florence, Italy"}',
    });
    // Repeated `type` and empty argument pieces do not become deltas.
    const argumentDeltas = events.filter(
      (e) => e.type === "block_delta" && e.delta.type === "tool_arguments",
    );
    assert.equal(argumentDeltas.length, 4);
    assert.equal(response.finishReason, "tool_calls");
    assert.equal(response.usage.reasoningTokens, 63);
  });

  test("OpenRouter → Gemini: the encrypted item naming the call becomes the call's signature (trap: bifrost#1437)", () => {
    const text = fixtureText("openrouter-gemini-tool-signature.sse");
    const sent = sseEvents(text).map((e) => (e.data === "[DONE]" ? undefined : JSON.parse(e.data)));
    const signature = sent[2].choices[0].delta.reasoning_details[0].data as string;
    const events = decodeSse(text);
    assertWellFormed(events);
    const response = collectResponse(events);
    assert.deepEqual(
      response.content.map((b) => b.type),
      ["thinking", "tool_call"],
      "the signature is not a block of its own",
    );
    const call = response.content[1];
    assert.equal(call.type === "tool_call" && call.id, "tool_weather_wJMhKbJOiIeWsXDA84qT");
    assert.equal(call.type === "tool_call" && call.signature, signature);
    assert.equal(call.type === "tool_call" && call.arguments, '{"location":"Florence, Italy"}');
    const start = events.find((e) => e.type === "block_start" && e.block.type === "tool_call");
    assert.equal(
      start?.type === "block_start" && start.block.type === "tool_call" && start.block.signature,
      signature,
    );
  });

  test("DeepSeek reasoning_content, with usage on the finish chunk", () => {
    const events = decodeSse(fixtureText("deepseek-reasoning-content.sse"));
    assertWellFormed(events);
    const response = collectResponse(events);
    assert.deepEqual(response.content, [
      { type: "thinking", text: "Okay, the user says hello." },
      { type: "text", text: "Hello! How can I help?" },
    ]);
    assert.equal(response.usage.reasoningTokens, 31);
    assert.equal(response.usage.completionTokens, 42);
    const kinds = events.map((e) => e.type);
    assert.ok(kinds.indexOf("finish") < kinds.indexOf("usage"));
  });

  test("an error chunk mid-stream becomes an IR error event (trap: Portkey PR #949)", () => {
    const events = decodeSse(fixtureText("error-midstream.sse"));
    const last = events.at(-1);
    assert.equal(last?.type, "error");
    if (last?.type !== "error") return;
    assert.ok(last.error instanceof GatewayError);
    assert.equal(last.error.message, "Provider disconnected unexpectedly");
    assert.equal(last.error.status, 502);
    assert.equal(events.filter((e) => e.type === "error").length, 1, "end() adds nothing after an error");
    assert.equal(events.filter((e) => e.type === "finish").length, 0);
    const text = events.flatMap((e) =>
      e.type === "block_delta" && e.delta.type === "text" ? [e.delta.text] : [],
    );
    assert.deepEqual(text, ["The current"]);
  });
});

describe("streamDecoder, chunk by chunk", () => {
  test("each chunk yields its events at once", () => {
    const decoder = openaiChat.streamDecoder();
    const chunk = (delta: object, finish: string | null = null) => ({
      data: JSON.stringify({ id: "c", model: "m", choices: [{ index: 0, delta, finish_reason: finish }] }),
    });
    assert.deepEqual(decoder.decode(chunk({ role: "assistant", content: "" })), [
      { type: "start", id: "c", model: "m" },
    ]);
    assert.deepEqual(decoder.decode(chunk({ content: "Hi" })), [
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Hi" } },
    ]);
    assert.deepEqual(decoder.decode(chunk({ content: "!" })), [
      { type: "block_delta", index: 0, delta: { type: "text", text: "!" } },
    ]);
    assert.deepEqual(decoder.decode(chunk({}, "length")), [
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "length" },
    ]);
    assert.deepEqual(decoder.decode({ data: "[DONE]" }), []);
    assert.deepEqual(decoder.end(), []);
  });

  test("interleaved tool calls keep their own blocks and arguments", () => {
    const text = [
      {
        tool_calls: [
          { index: 0, id: "call_a", type: "function", function: { name: "a", arguments: '{"x":' } },
        ],
      },
      {
        tool_calls: [
          { index: 1, id: "call_b", type: "function", function: { name: "b", arguments: '{"y":' } },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: "1}" } }] },
      { tool_calls: [{ index: 1, function: { arguments: "2}" } }] },
    ]
      .map(
        (delta) =>
          `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
      )
      .join("");
    const finish = `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] })}\n\ndata: [DONE]\n\n`;
    const events = decodeSse(text + finish);
    assertWellFormed(events);
    const response = collectResponse(events);
    assert.deepEqual(
      response.content.map((b) => (b.type === "tool_call" ? [b.id, b.name, b.arguments] : [])),
      [
        ["call_a", "a", '{"x":1}'],
        ["call_b", "b", '{"y":2}'],
      ],
    );
  });

  test("a Gemini thought signature on a streamed call is on its block_start", () => {
    const events = decodeSse(
      `data: ${JSON.stringify({
        choices: [
          {
            index: 0,
            delta: {
              role: "assistant",
              tool_calls: [
                {
                  index: 0,
                  id: "fc_1",
                  type: "function",
                  function: { name: "f", arguments: "{}" },
                  extra_content: { google: { thought_signature: "CiQB" } },
                },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
      })}\n\n`,
    );
    const start = events.find((e) => e.type === "block_start");
    assert.deepEqual(start, {
      type: "block_start",
      index: 0,
      block: { type: "tool_call", id: "fc_1", name: "f", signature: "CiQB" },
    });
  });

  test("a second reasoning segment (new index) opens a new thinking block; encrypted reasoning is redacted_thinking", () => {
    const chunk = (delta: object) => `data: ${JSON.stringify({ choices: [{ index: 0, delta }] })}\n\n`;
    const events = decodeSse(
      chunk({ reasoning_details: [{ type: "reasoning.text", text: "one", index: 0 }] }) +
        chunk({ reasoning_details: [{ type: "reasoning.text", text: "", signature: "s0", index: 0 }] }) +
        chunk({ reasoning_details: [{ type: "reasoning.text", text: "two", index: 1 }] }) +
        chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "enc", index: 2 }] }) +
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
    );
    assertWellFormed(events);
    assert.deepEqual(collectResponse(events).content, [
      { type: "thinking", text: "one", signature: "s0" },
      { type: "thinking", text: "two" },
      { type: "redacted_thinking", data: "enc" },
    ]);
  });

  test("an encrypted item naming an id no call takes is redacted reasoning, in its place", () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const events = decodeSse(
      chunk({
        reasoning_details: [{ type: "reasoning.encrypted", data: "rs-blob", id: "rs_123", index: 0 }],
      }) +
        chunk({ content: "Hi" }) +
        chunk({
          reasoning_details: [{ type: "reasoning.encrypted", data: "late", id: "call_1", index: 1 }],
        }) +
        chunk({}, "stop"),
    );
    assertWellFormed(events);
    assert.deepEqual(collectResponse(events).content, [
      { type: "redacted_thinking", data: "rs-blob" },
      { type: "text", text: "Hi" },
      { type: "redacted_thinking", data: "late" },
    ]);
  });

  test("a signature item naming a call that already started is a signature delta on it", () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const events = decodeSse(
      chunk({
        tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "{}" } }],
      }) +
        chunk({ reasoning_details: [{ type: "reasoning.encrypted", data: "sig", id: "call_1", index: 0 }] }) +
        chunk({}, "tool_calls"),
    );
    assertWellFormed(events);
    assert.deepEqual(collectResponse(events).content, [
      { type: "tool_call", id: "call_1", name: "f", arguments: "{}", signature: "sig" },
    ]);
  });

  test("a stream that ends without a finish is a 502: the upstream stream ended without a finish_reason", () => {
    const decoder = openaiChat.streamDecoder();
    for (const e of sseEvents(fixtureText("text.sse")).slice(0, 3)) decoder.decode(e);
    const tail = decoder.end();
    assert.equal(tail.length, 1);
    assert.equal(tail[0].type, "error");
    assert.match(
      tail[0].type === "error" ? tail[0].error.message : "",
      /upstream stream ended without a finish_reason/,
    );
    assert.equal(tail[0].type === "error" ? tail[0].error.status : 0, 502);
  });

  test("OpenAI's own error chunk and a chunk that is not JSON are error events", () => {
    const decoder = openaiChat.streamDecoder();
    const [event] = decoder.decode({
      data: JSON.stringify({
        error: { message: "The server had an error", type: "server_error", param: null, code: null },
      }),
    });
    assert.equal(event.type, "error");
    assert.equal(event.type === "error" && event.error.message, "The server had an error");
    assert.deepEqual(decoder.decode({ data: '{"choices":[]}' }), [], "nothing after a failure");
    const other = openaiChat.streamDecoder();
    assert.equal(other.decode({ data: "{not json" })[0].type, "error");
  });
});

describe("text chunks read without JSON.parse (src/protocols/shared/string-slots.ts)", () => {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-4.1",
      choices,
      usage: null,
      ...extra,
    });
  const choice = (delta: unknown, more: Record<string, unknown> = {}) => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: null,
    ...more,
  });
  const text = (piece: string, extra?: Record<string, unknown>) => ({
    data: chunk([choice({ content: piece })], extra),
  });

  /** Plain pieces around awkward ones, and chunks of the same layout that carry more than text. */
  const stream = [
    { data: chunk([choice({ role: "assistant", content: "", refusal: null })]) },
    text("Hello"),
    text(" there"),
    ...AWKWARD_PIECES.map((piece) => text(piece)),
    text(" end", { obfuscation: "abc" }),
    text(" end!", { obfuscation: "Zz" }),
    text(" and"),
    {
      data: chunk([
        choice(
          { content: " more" },
          { logprobs: { content: [{ token: " more", logprob: -0.5, bytes: [32], top_logprobs: [] }] } },
        ),
      ]),
    },
    text(" more"),
    { data: chunk([choice({ content: " refused", refusal: "no" })]) },
    { data: chunk([choice({ content: " again", refusal: "no" })]) },
    { data: chunk([choice({ content: " last" }, { finish_reason: "stop" })]) },
    text(" after the finish"),
    { data: chunk([], { usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 } }) },
    { data: "[DONE]" },
  ];

  test("a stream decodes to the same events as when every chunk is parsed", () => {
    const decoded = decodeAll(openaiChat.streamDecoder(), stream);
    assert.deepEqual(decoded, decodeAll(openaiChat.streamDecoder(), laidOutApart(stream)));
    assert.equal(
      collectResponse(decoded)
        .content.map((b) => (b.type === "text" ? b.text : ""))
        .join(""),
      `Hello there${AWKWARD_PIECES.join("")} end end! and more more refusedno againno last`,
    );
  });

  test("a run of text chunks is parsed once, then read as the template (OpenAI's obfuscation too)", () => {
    for (const extra of [{}, { obfuscation: "x" }]) {
      const pieces = Array.from({ length: 20 }, (_, i) => text(` w${i}`, extra));
      const { parses } = countingParses(() => decodeAll(openaiChat.streamDecoder(), pieces));
      assert.equal(parses, 1);
    }
  });

  test("the role chunk gives the text chunks their template: none of them is parsed when written as OpenAI does", () => {
    for (const extra of [{}, { obfuscation: "x" }]) {
      const role = { data: chunk([choice({ role: "assistant", content: "", refusal: null })], extra) };
      const pieces = Array.from({ length: 20 }, (_, i) => text(` w${i}`, extra));
      const { parses, result } = countingParses(() =>
        decodeAll(openaiChat.streamDecoder(), [role, ...pieces]),
      );
      assert.equal(parses, 1);
      assert.deepEqual(result, decodeAll(openaiChat.streamDecoder(), laidOutApart([role, ...pieces])));
    }
  });

  test("the role chunk's template is learned only once a text chunk may use it (a relay's tap sees none)", () => {
    const role = { data: chunk([choice({ role: "assistant", content: "", refusal: null })]) };
    const finish = { data: chunk([choice({}, { finish_reason: "stop" })]) };
    const usage = {
      data: chunk([], { usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 } }),
    };
    const stringify = JSON.stringify;
    let learned = 0;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      learned++;
      return stringify(...args);
    }) as typeof stringify;
    try {
      const events = decodeAll(openaiChat.streamDecoder(), [role, finish, usage, { data: "[DONE]" }]);
      assert.deepEqual(
        events.map((e) => e.type),
        ["start", "finish", "usage"],
      );
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(learned, 0, "the role chunk's delta was written out to learn a template no chunk used");
  });

  test("a text chunk written otherwise than the role chunk's template is parsed, and learned", () => {
    const role = { data: chunk([choice({ role: "assistant", content: "", refusal: null })]) };
    const other = (piece: string) => ({ data: chunk([{ delta: { content: piece }, index: 0 }]) });
    const events = [role, other("a"), other("b"), other("c"), text("d")];
    const { parses, result } = countingParses(() => decodeAll(openaiChat.streamDecoder(), events));
    assert.equal(parses, 3, "the role chunk, the first of the other layout and the one like the role chunk");
    assert.deepEqual(result, decodeAll(openaiChat.streamDecoder(), laidOutApart(events)));
  });

  test("a chunk cut across reads anywhere, even inside a character, decodes the same", () => {
    const bytes = Buffer.from(stream.map((e) => `data: ${e.data}\n\n`).join(""));
    const whole = decodeAll(openaiChat.streamDecoder(), readInTwo(bytes, bytes.length));
    for (let at = 1; at < bytes.length; at += 7)
      assert.deepEqual(decodeAll(openaiChat.streamDecoder(), readInTwo(bytes, at)), whole, `cut at ${at}`);
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "../../../src/ir/collect.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { JSON_TOOL_NAME } from "../../../src/protocols/anthropic/json-mode.ts";
import type { SseEvent } from "../../../src/protocols/types.ts";
import { AWKWARD_PIECES, countingParses, decodeAll, laidOutApart, readInTwo } from "../../support/streams.ts";
import { fixtureText, parseSse } from "./helpers.ts";

/** Events per SSE event, so tests can see what came out when. */
function decodeEach(events: SseEvent[]): {
  perEvent: StreamEvent[][];
  tail: StreamEvent[];
  all: StreamEvent[];
} {
  const decoder = anthropic.streamDecoder();
  const perEvent = events.map((e) => decoder.decode(e));
  const tail = decoder.end();
  return { perEvent, tail, all: [...perEvent.flat(), ...tail] };
}

describe("streamDecoder (Anthropic-protocol upstream)", () => {
  test("the docs' text stream: start, text, finish, usage; ping ignored", () => {
    const { all, tail } = decodeEach(parseSse(fixtureText("stream-text.sse")));
    assert.deepEqual(tail, []);
    assert.deepEqual(all[0], {
      type: "start",
      id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY",
      model: "claude-opus-4-8",
    });
    const response = collectResponse(all);
    assert.deepEqual(response.content, [{ type: "text", text: "Hello!" }]);
    assert.equal(response.finishReason, "stop");
    assert.equal(response.usage.promptTokens, 25);
    assert.equal(response.usage.completionTokens, 15);
  });

  test("the docs' tool-use stream: each input_json_delta piece becomes one IR delta as it arrives", () => {
    const sse = parseSse(fixtureText("stream-tool-use.sse"));
    const { perEvent, all } = decodeEach(sse);
    const pieces = ['{"location":', ' "San', " Francisc", "o,", ' CA"}'];
    const jsonEvents = sse
      .map((e, k) => ({ e, out: perEvent[k] }))
      .filter(({ e }) => e.data.includes("input_json_delta") && !e.data.includes('"partial_json":""'));
    assert.equal(jsonEvents.length, pieces.length);
    jsonEvents.forEach(({ out }, k) => {
      assert.deepEqual(out, [
        { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: pieces[k] } },
      ]);
    });
    const response = collectResponse(all);
    assert.equal(response.finishReason, "tool_calls");
    assert.deepEqual(response.content[1], {
      type: "tool_call",
      id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
      name: "get_weather",
      arguments: '{"location": "San Francisco, CA"}',
    });
    assert.equal(response.usage.completionTokens, 89);
    assert.equal(response.usage.promptTokens, 472, "input from message_start survives the final usage");
  });

  test("the docs' thinking stream keeps text and signature", () => {
    const response = collectResponse(decodeEach(parseSse(fixtureText("stream-thinking.sse"))).all);
    assert.deepEqual(response.content[0], {
      type: "thinking",
      text: "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\nThe remainder is 0, so GCD(1071, 462) = 21.",
      signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...",
    });
    assert.deepEqual(response.content[1], {
      type: "text",
      text: "The greatest common divisor of 1071 and 462 is **21**.",
    });
  });

  test("a web search (its query streamed, its result whole) is one IR block where the result stands; final usage wins", () => {
    const { all } = decodeEach(parseSse(fixtureText("stream-web-search-usage.sse")));
    const starts = all.filter((e) => e.type === "block_start");
    assert.deepEqual(
      starts.map((e) => e.type === "block_start" && [e.index, e.block.type]),
      [
        [0, "text"],
        [1, "web_search"],
        [2, "text"],
      ],
    );
    const response = collectResponse(all);
    assert.equal(response.content.length, 3);
    const search = response.content[1];
    assert.ok(search.type === "web_search");
    assert.equal(search.id, "srvtoolu_014hJH82Qum7Td6UV8gDXThB");
    assert.equal(search.query, "weather NYC today", "assembled from its input_json_delta pieces");
    assert.deepEqual(
      search.results.map((r) => [r.url, r.encryptedContent]),
      [["https://world-weather.info/forecast/usa/new_york/may-2025/", "Ev0DCioIAxgCIiQ3NmU4ZmI4OC1k..."]],
    );
    assert.equal(response.usage.promptTokens, 10682);
    assert.equal(response.usage.completionTokens, 510);
    assert.equal(response.usage.webSearchRequests, 1);
  });

  test("an error event in the middle of the stream becomes an IR error, and the stream is over (a known trap)", () => {
    const { all, tail } = decodeEach(parseSse(fixtureText("stream-error-midway.sse")));
    const error = all.at(-1)!;
    assert.equal(error.type, "error");
    assert.ok(error.type === "error");
    assert.equal(error.error.kind, "overloaded");
    assert.equal(error.error.status, 529);
    assert.equal(error.error.message, "Overloaded");
    assert.deepEqual(tail, [], "no second error at end()");
    assert.throws(() => collectResponse(all), /Overloaded/);
  });

  test("a stream that ends without message_stop ends with an error", () => {
    const cut = parseSse(fixtureText("stream-text.sse")).slice(0, 4);
    const { tail } = decodeEach(cut);
    assert.equal(tail.length, 1);
    assert.ok(tail[0].type === "error");
    assert.match(tail[0].error.message, /message_stop/);
  });

  test("cache usage from message_start is merged with message_delta's cumulative counts", () => {
    const { all } = decodeEach([
      {
        event: "message_start",
        data: JSON.stringify({
          type: "message_start",
          message: {
            id: "m",
            model: "c",
            content: [],
            usage: {
              input_tokens: 10,
              cache_creation_input_tokens: 300,
              cache_read_input_tokens: 2000,
              cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
              output_tokens: 1,
            },
          },
        }),
      },
      {
        event: "message_delta",
        data: JSON.stringify({
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 40 },
        }),
      },
      { event: "message_stop", data: '{"type":"message_stop"}' },
    ]);
    const usages = all.filter((e) => e.type === "usage");
    assert.equal(usages.length, 2, "input counts right away, then the final usage");
    assert.deepEqual(collectResponse(all).usage, {
      promptTokens: 2310,
      cacheReadTokens: 2000,
      cacheWrite5mTokens: 100,
      cacheWrite1hTokens: 200,
      completionTokens: 40,
      reasoningTokens: 0,
      webSearchRequests: 0,
    });
  });

  test("JSON mode: the reserved tool streams as text and ends as a normal stop", () => {
    const frames = [
      {
        type: "message_start",
        message: { id: "m", model: "c", content: [], usage: { input_tokens: 1, output_tokens: 1 } },
      },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: JSON_TOOL_NAME, input: {} },
      },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"a":' } },
      { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "1}" } },
      { type: "content_block_stop", index: 0 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 5 },
      },
      { type: "message_stop" },
    ];
    const { all } = decodeEach(frames.map((f) => ({ event: f.type, data: JSON.stringify(f) })));
    const response = collectResponse(all);
    assert.deepEqual(response.content, [{ type: "text", text: '{"a":1}' }]);
    assert.equal(response.finishReason, "stop");
  });

  test("events without an event line are read by their data type; unknown events are skipped", () => {
    const frames = parseSse(fixtureText("stream-text.sse")).map((e) => ({ data: e.data }));
    frames.splice(2, 0, { data: '{"type":"some_future_event","x":1}' });
    const response = collectResponse(decodeEach(frames).all);
    assert.deepEqual(response.content, [{ type: "text", text: "Hello!" }]);
  });
});

describe("text_delta events read without JSON.parse (src/protocols/shared/string-slots.ts)", () => {
  const event = (name: string | undefined, data: Record<string, unknown>): SseEvent =>
    name === undefined ? { data: JSON.stringify(data) } : { event: name, data: JSON.stringify(data) };
  const text = (index: number, piece: string, name: string | undefined = "content_block_delta") =>
    event(name, { type: "content_block_delta", index, delta: { type: "text_delta", text: piece } });
  const start = (index: number) =>
    event("content_block_start", {
      type: "content_block_start",
      index,
      content_block: { type: "text", text: "" },
    });
  const stop = (index: number) => event("content_block_stop", { type: "content_block_stop", index });

  const stream: SseEvent[] = [
    event("message_start", {
      type: "message_start",
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude",
        content: [],
        usage: { input_tokens: 3, output_tokens: 1 },
      },
    }),
    start(0),
    event("ping", { type: "ping" }),
    { event: "ping", data: "not JSON: a ping is skipped unread" },
    text(0, "Hello"),
    text(0, " there"),
    ...AWKWARD_PIECES.map((piece) => text(0, piece)),
    // Named otherwise (skipped as a ping is), or not named (its type names it).
    text(0, " skipped", "ping"),
    text(0, " unnamed", undefined),
    text(0, " unnamed too", undefined),
    stop(0),
    // A delta of a block that is not open, then another block.
    text(0, " late"),
    text(4, " nowhere"),
    text(4, " nowhere still"),
    start(1),
    text(1, "Second"),
    text(1, " block"),
    stop(1),
    event("message_delta", {
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: 9 },
    }),
    event("message_stop", { type: "message_stop" }),
  ];

  test("a stream decodes to the same events as when every event is parsed", () => {
    const decoded = decodeAll(anthropic.streamDecoder(), stream);
    assert.deepEqual(decoded, decodeAll(anthropic.streamDecoder(), laidOutApart(stream)));
    assert.deepEqual(
      collectResponse(decoded).content.map((b) => (b.type === "text" ? b.text : "")),
      [`Hello there${AWKWARD_PIECES.join("")} unnamed unnamed too late`, "Second block"],
    );
  });

  test("a text block as the API writes it is not parsed at all, nor a ping: message_start only", () => {
    const pieces = Array.from({ length: 20 }, (_, i) => text(0, ` w${i}`));
    const { parses } = countingParses(() =>
      decodeAll(anthropic.streamDecoder(), [...stream.slice(0, 4), ...pieces]),
    );
    assert.equal(parses, 1);
  });

  test("a text block's deltas written otherwise are parsed once, then read as the template", () => {
    const pieces = Array.from({ length: 20 }, (_, i) => ({
      event: "content_block_delta",
      data: `{"index":0,"type":"content_block_delta","delta":{"text":" w${i}","type":"text_delta"}}`,
    }));
    const decoded = countingParses(() =>
      decodeAll(anthropic.streamDecoder(), [...stream.slice(0, 2), ...pieces]),
    );
    assert.equal(decoded.parses, 2);
    assert.deepEqual(
      decoded.result,
      decodeAll(anthropic.streamDecoder(), laidOutApart([...stream.slice(0, 2), ...pieces])),
    );
  });

  test("the texts every stream sends alike are read as their parse; other spellings are parsed", () => {
    const opening = [stream[0], start(0), start(12)];
    for (const data of [
      '{"type":"content_block_stop","index":0}',
      '{"type":"content_block_stop","index":12}',
      '{"type":"content_block_stop","index":1.0}',
      '{"type":"content_block_stop","index":-0}',
      '{"type":"content_block_stop","index":0,"x":1}',
      '{"type":"message_stop"}',
      '{"type":"message_stop" }',
      '{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}',
      '{"type":"content_block_start","index":3,"content_block":{"type":"text","text":"","citations":null}}',
    ]) {
      const events = [...opening, { event: JSON.parse(data).type, data }, text(3, "after")];
      assert.deepEqual(
        decodeAll(anthropic.streamDecoder(), events),
        decodeAll(anthropic.streamDecoder(), laidOutApart(events)),
        data,
      );
    }
    // Not JSON (a leading zero): the stream's error, as the parse makes it.
    const broken = { event: "content_block_stop", data: '{"type":"content_block_stop","index":01}' };
    const decoder = anthropic.streamDecoder();
    for (const event of opening) decoder.decode(event);
    assert.deepEqual(
      decoder.decode(broken).map((e) => e.type),
      ["error"],
    );
  });

  test("an event cut across reads anywhere, even inside a character, decodes the same", () => {
    const bytes = Buffer.from(
      stream.map((e) => `${e.event ? `event: ${e.event}\n` : ""}data: ${e.data}\n\n`).join(""),
    );
    const whole = decodeAll(anthropic.streamDecoder(), readInTwo(bytes, bytes.length));
    for (let at = 1; at < bytes.length; at += 7)
      assert.deepEqual(decodeAll(anthropic.streamDecoder(), readInTwo(bytes, at)), whole, `cut at ${at}`);
  });
});

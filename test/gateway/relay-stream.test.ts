// A relayed stream passes the events that carry only content on as the upstream's bytes, undecoded
// (Relay.passBytes, docs/architecture.md §4). On real-format streams, cut into reads anywhere, it
// must write exactly what decoding every event writes, and the meter must read the same usage,
// finish reason and failure.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Meter } from "../../src/gateway/meter.ts";
import { RelayFastPath } from "../../src/gateway/relay-fast-path.ts";
import { RelayStream } from "../../src/gateway/relay-stream.ts";
import type { Piece } from "../../src/gateway/route.ts";
import type { Request } from "../../src/ir/request.ts";
import type { StreamEvent } from "../../src/ir/stream.ts";
import { protocols } from "../../src/protocols/index.ts";
import { relays } from "../../src/protocols/relays.ts";
import { SseReader } from "../../src/protocols/shared/sse-reader.ts";
import type { EncodeContext, ProtocolName, RawSseEvent } from "../../src/protocols/types.ts";
import { countingCalls } from "../support/streams.ts";

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url));

function context(request: Partial<Request> = {}): EncodeContext {
  return {
    id: "gen-test-1",
    model: "catalog/model-ü",
    created: 1,
    request: {
      streamUsage: true,
      tools: [],
      messages: [],
      stopSequences: [],
      ignored: [],
      ...request,
    } as Request,
  };
}

/** What the client and the ledger get from a stream: its bytes and the meter's reading. */
function outcome(pieces: Piece[]) {
  const meter = new Meter();
  let failed: string | undefined;
  for (const piece of pieces) {
    if (piece.content) meter.contentArrived();
    for (const event of piece.events) {
      meter.observe(event);
      if (event.type === "error") failed ??= event.error.message;
    }
  }
  meter.end();
  return {
    text: Buffer.concat(pieces.map((p) => bytesOf(p))).toString(),
    usage: meter.usage,
    sawUsage: meter.sawUsage,
    finishReason: meter.finishReason,
    timed: meter.latencyMs !== undefined,
    failed,
  };
}

function bytesOf(piece: Piece): Buffer {
  return typeof piece.text === "string"
    ? Buffer.from(piece.text, piece.latin1 ? "latin1" : "utf8")
    : piece.text;
}

/** The fast path on, and off (every event read as text): the same bytes and meter reading either way. */
const FAST_PATHS = [new RelayFastPath(true), new RelayFastPath(false)];

/** The stream through RelayStream, in reads of `size` bytes (the whole body in one read when 0). */
function relayed(name: ProtocolName, body: Buffer, size: number, ctx = context(), fastPath = FAST_PATHS[0]) {
  const p = protocols[name];
  const stream = new RelayStream(
    relays[name],
    ctx,
    p.streamDecoder(),
    p.streamEncoder(ctx),
    undefined,
    fastPath,
  );
  const pieces: Piece[] = [];
  for (let at = 0; at < body.length && !stream.failed; at += size || body.length)
    pieces.push(...stream.read(body.subarray(at, at + (size || body.length))));
  if (!stream.failed) pieces.push(...stream.end());
  return { pieces, passed: pieces.filter((p) => p.content).length };
}

/** The same stream with every event decoded and framed again (what the relay did before bytes passed). */
function decodedEveryEvent(name: ProtocolName, body: Buffer, ctx = context()) {
  const p = protocols[name];
  const tap = p.streamDecoder();
  const encoder = p.streamEncoder(ctx);
  const reader = new SseReader();
  const memo = { shared: {} };
  const pieces: Piece[] = [];
  for (const e of [...reader.read(body), ...reader.end()]) {
    const events = tap.decode(e);
    const failure = events.find((event) => event.type === "error");
    if (failure) {
      // The error goes on from the upstream's own events, as the relay's encoder is told.
      encoder.follow?.(pieces.map((piece) => piece.text).join(""));
      return [...pieces, { text: encoder.encode(failure), events }];
    }
    pieces.push({ text: relays[name].streamEvent(e, ctx, memo), events });
  }
  const tail = tap.end();
  const endWith = (tail: StreamEvent[]) => {
    encoder.follow?.(pieces.map((piece) => piece.text).join(""));
    return tail.map((e) => (e.type === "error" ? encoder.encode(e) : "")).join("");
  };
  return [...pieces, { text: endWith(tail), events: tail }];
}

const cases: Array<[ProtocolName, string]> = [
  ["openai-chat", "openai-chat/text.sse"],
  ["openai-chat", "openai-chat/parallel-tool-calls.sse"],
  ["openai-chat", "openai-chat/deepseek-reasoning-content.sse"],
  ["openai-chat", "openai-chat/openrouter-reasoning-signed.sse"],
  ["openai-chat", "openai-chat/openrouter-gemini-tool-signature.sse"],
  ["openai-chat", "openai-chat/error-midstream.sse"],
  ["anthropic", "anthropic/stream-text.sse"],
  ["anthropic", "anthropic/stream-thinking.sse"],
  ["anthropic", "anthropic/stream-tool-use.sse"],
  ["anthropic", "anthropic/stream-web-search-usage.sse"],
  ["anthropic", "anthropic/stream-error-midway.sse"],
  ["openai-responses", "openai-responses/text.sse"],
  ["openai-responses", "openai-responses/reasoning-function-call.sse"],
  ["openai-responses", "openai-responses/failed-midstream.sse"],
  ["gemini", "gemini/stream-text.sse"],
  ["gemini", "gemini/stream-function-call.sse"],
];

describe("relayed stream", () => {
  for (const [name, path] of cases) {
    test(`${path}: the same bytes and meter reading as decoding every event, in reads of any size, fast path on and off`, () => {
      const body = fixture(path);
      const expected = outcome(decodedEveryEvent(name, body));
      for (const fastPath of FAST_PATHS)
        for (const size of [0, 1, 7, 64]) {
          const { pieces, passed } = relayed(name, body, size, context(), fastPath);
          const how = `reads of ${size || "all"} bytes, fast path ${fastPath.on ? "on" : "off"}`;
          assert.deepEqual(outcome(pieces), expected, how);
          // Gemini's events all carry usage: it has no content-only event to pass.
          if (!fastPath.on) assert.equal(passed, 0, how);
          else if (name !== "gemini") assert.ok(passed > 0, `some events went on undecoded (${how})`);
        }
    });
  }

  // The gateway asks an OpenAI upstream for usage whatever the client asked, so OpenAI writes
  // `"usage":null` on every chunk; a client that did not ask must see no such member, as from OpenAI
  // itself (OpenRouter's SDK refuses the null), and one that asked gets the bytes as they came.
  for (const path of ["openai-chat/text.sse", "openai-chat/parallel-tool-calls.sse"]) {
    test(`${path}: "usage":null is cut from every chunk when the client did not ask for usage, kept when it did, fast path on and off`, () => {
      const body = fixture(path);
      for (const streamUsage of [false, true]) {
        const ctx = () => context({ streamUsage });
        const expected = outcome(decodedEveryEvent("openai-chat", body, ctx()));
        assert.equal(expected.text.includes('"usage":null'), streamUsage, `asked: ${streamUsage}`);
        for (const line of expected.text.split("\n\n").filter((l) => l.startsWith("data: {"))) {
          const chunk = JSON.parse(line.slice("data: ".length));
          assert.equal("usage" in chunk, streamUsage, line);
        }
        assert.equal(expected.usage.completionTokens > 0, true, "the meter still reads the usage");
        for (const fastPath of FAST_PATHS)
          for (const size of [0, 1, 7, 64]) {
            const { pieces, passed } = relayed("openai-chat", body, size, ctx(), fastPath);
            const how = `asked: ${streamUsage}, reads of ${size || "all"} bytes, fast path ${fastPath.on ? "on" : "off"}`;
            assert.deepEqual(outcome(pieces), expected, how);
            if (fastPath.on) assert.ok(passed > 0, `some events went on undecoded (${how})`);
          }
      }
    });
  }

  test("a null usage written another way (first member, spaces) is decoded and removed, fast path on and off", () => {
    const chunk = (members: string) =>
      `data: {"id":"c1",${members}"object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]}\n\n`;
    const body = Buffer.from(chunk("") + chunk('"usage":null,') + chunk('"usage" : null,') + chunk(""));
    const ctx = () => context({ streamUsage: false });
    const expected = outcome(decodedEveryEvent("openai-chat", body, ctx()));
    assert.equal(expected.text.includes('"usage"'), false);
    for (const fastPath of FAST_PATHS)
      assert.deepEqual(outcome(relayed("openai-chat", body, 0, ctx(), fastPath).pieces), expected);
  });

  // Some OpenAI-style upstreams write usage unasked, on the last chunk (Mistral) or on every chunk
  // (a running count): a client that did not ask sees no `usage` member, the meter reads the last.
  test("a count on chunks with choices: cut when the client did not ask for usage, moved to a last usage chunk when it did; metered; fast path on and off", () => {
    const usage = (n: number) => `{"prompt_tokens":3,"completion_tokens":${n},"total_tokens":${3 + n}}`;
    const chunk = (text: string, n: number, finish = "null", members = `,"usage":${usage(n)}`) =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":${finish}}]${members}}\n\n`;
    const body = Buffer.from(
      chunk("a", 1) +
        chunk("b", 2) +
        chunk("ü", 3, "null", `,"usage":${usage(3)},"more":1`) +
        chunk("d", 4, "null", `,"usage" : ${usage(4)}`) +
        chunk("", 5, '"stop"') +
        "data: [DONE]\n\n",
    );
    for (const streamUsage of [false, true]) {
      const ctx = () => context({ streamUsage });
      const expected = outcome(decodedEveryEvent("openai-chat", body, ctx()));
      assert.equal(expected.text.includes('"usage"'), streamUsage, `asked: ${streamUsage}`);
      assert.equal(expected.text.includes('"more":1'), true);
      assert.equal(expected.usage.completionTokens, 5);
      const chunks = expected.text
        .split("\n\n")
        .filter((line) => line.startsWith("data: {"))
        .map((line) => JSON.parse(line.slice(6)));
      if (streamUsage) {
        // As OpenAI writes it to a client that asked: null beside choices, the count on its own last.
        const last = chunks.pop();
        assert.deepEqual(last.choices, []);
        assert.equal(last.usage.completion_tokens, 5);
        assert.equal(last.id, "gen-test-1");
        assert.ok(expected.text.endsWith(`${JSON.stringify(last)}\n\ndata: [DONE]\n\n`));
        for (const chunk of chunks) assert.equal(chunk.usage, null, JSON.stringify(chunk));
      } else for (const chunk of chunks) assert.equal("usage" in chunk, false, JSON.stringify(chunk));
      for (const fastPath of FAST_PATHS)
        for (const size of [0, 1, 7, 64]) {
          const { result, calls } = countingCalls(relays["openai-chat"], "streamEvent", () =>
            relayed("openai-chat", body, size, ctx(), fastPath),
          );
          const how = `asked: ${streamUsage}, reads of ${size || "all"} bytes, fast path ${fastPath.on ? "on" : "off"}`;
          assert.deepEqual(outcome(result.pieces), expected, how);
          // Cut: only the first chunk and the one spelled otherwise (`"usage" : `) are decoded and
          // framed again, the others go on as bytes. Moved: every counted chunk and the end mark are.
          if (fastPath.on) assert.equal(calls, streamUsage ? 6 : 2, how);
        }
    }
  });

  // An upstream may end its stream after the finish without an end mark (the decoder takes it whole):
  // the count held back for a client that asked still reaches it, as the stream's last chunk.
  test("a count held back for a client that asked is written at the end when no [DONE] comes", () => {
    const usage = '{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}';
    const body = Buffer.from(
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n` +
        `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":${usage}}\n\n`,
    );
    for (const fastPath of FAST_PATHS) {
      const {
        text,
        usage: metered,
        failed,
      } = outcome(relayed("openai-chat", body, 0, context({ streamUsage: true }), fastPath).pieces);
      assert.equal(failed, undefined);
      assert.equal(metered.completionTokens, 2);
      const chunks = text
        .split("\n\n")
        .filter((line) => line.startsWith("data: {"))
        .map((line) => JSON.parse(line.slice(6)));
      assert.equal(chunks.length, 3, text);
      assert.deepEqual(chunks[2].choices, []);
      assert.deepEqual(chunks[2].usage, JSON.parse(usage));
      assert.equal(chunks[1].usage, null);
    }
  });

  // A stream cut before its usage is settled on the gateway's estimate (Meter.estimate): the text the
  // meter decoded plus what the fast path passed undecoded, about the same either way.
  const longChunks = (n: number) => {
    const chunk = (delta: string, finish = "null") =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"finish_reason":${finish}}],"usage":null}\n\n`;
    const words = Array.from({ length: n }, (_, i) => chunk(`{"content":"${`word${i} `.repeat(8)}"}`));
    return Buffer.from(chunk('{"role":"assistant","content":""}') + words.join("") + chunk("{}", '"stop"'));
  };
  for (const [name, body] of [
    ["openai-chat/text.sse (a token a chunk)", fixture("openai-chat/text.sse")],
    ["chunks of 48 characters", longChunks(6)],
  ] as const)
    test(`${name}: the output passed undecoded is estimated from its text, near the decoded text's estimate`, () => {
      const text = outcome(decodedEveryEvent("openai-chat", body)).text;
      const chars = text
        .split("\n\n")
        .filter((line) => line.startsWith("data: {"))
        .reduce((n, line) => n + (JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "").length, 0);
      for (const fastPath of FAST_PATHS) {
        const p = protocols["openai-chat"];
        const ctx = context();
        const stream = new RelayStream(
          relays["openai-chat"],
          ctx,
          p.streamDecoder(),
          p.streamEncoder(ctx),
          undefined,
          fastPath,
        );
        const meter = new Meter();
        for (const piece of [...stream.read(body), ...stream.end()])
          for (const event of piece.events) if (event.type !== "usage") meter.observe(event);
        meter.estimate(7, stream.undecodedOutputTokens());
        const how = `fast path ${fastPath.on ? "on" : "off"}`;
        if (!fastPath.on) assert.equal(stream.undecodedOutputTokens(), 0, how);
        else assert.ok(stream.undecodedOutputTokens() > 0, how);
        const { completionTokens, promptTokens, estimated } = meter.usage;
        assert.deepEqual({ promptTokens, estimated }, { promptTokens: 7, estimated: true }, how);
        // A token per four characters, give or take the first chunk's (counted as one token).
        const expected = Math.ceil(chars / 4);
        assert.ok(Math.abs(completionTokens - expected) <= 2, `${how}: ${completionTokens} vs ${expected}`);
      }
    });

  // The same for a messages stream: its content deltas' text, thinking and tool arguments measured
  // where the fast path passes them on undecoded, a signature as nothing.
  for (const name of ["stream-text.sse", "stream-thinking.sse", "stream-tool-use.sse"])
    test(`anthropic/${name}: the deltas passed undecoded are estimated from their text`, () => {
      const body = fixture(`anthropic/${name}`);
      let chars = 0;
      for (const line of body.toString().split("\n"))
        if (line.startsWith("data: {")) {
          const delta = JSON.parse(line.slice(6)).delta ?? {};
          chars += (delta.text ?? delta.thinking ?? delta.partial_json ?? "").length;
        }
      const expected = Math.ceil(chars / 4);
      for (const fastPath of FAST_PATHS) {
        const p = protocols.anthropic;
        const ctx = context();
        const stream = new RelayStream(
          relays.anthropic,
          ctx,
          p.streamDecoder(),
          p.streamEncoder(ctx),
          undefined,
          fastPath,
        );
        const meter = new Meter();
        for (const piece of [...stream.read(body), ...stream.end()])
          for (const event of piece.events)
            if (event.type !== "usage" && event.type !== "finish") meter.observe(event);
        meter.estimate(7, stream.undecodedOutputTokens());
        const how = `fast path ${fastPath.on ? "on" : "off"}`;
        const { completionTokens } = meter.usage;
        // Text measured in bytes as written (an escape, a character past ASCII, counts more).
        assert.ok(
          completionTokens >= expected && completionTokens <= expected * 1.1 + 2,
          `${how}: ${completionTokens} vs ${expected}`,
        );
      }
    });

  test("a stream cut off after its content ends with an error, not as a finished one", () => {
    const body = fixture("openai-chat/text.sse").toString();
    const cut = Buffer.from(body.slice(0, body.indexOf('"finish_reason":"')));
    const reading = outcome(relayed("openai-chat", cut, 0).pieces);
    assert.equal(reading.failed, "upstream stream ended without a finish_reason");
    assert.equal(reading.timed, true);
  });

  test("a chat chunk with usage, a finish, an error or images is decoded, not passed", () => {
    const chunk = (tail: string) =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":null}]${tail}}\n\n`;
    // [the last chunk, passed when it comes second (found content only by its member names), passed
    // when it comes third (held to the content shape the second left: the same bytes around a
    // string free of quotes)]
    const cases: Array<[string, boolean, boolean]> = [
      [chunk(""), true, true],
      [chunk(',"usage":null'), true, false],
      [chunk(',"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}'), false, false],
      [chunk(',"error":{"message":"x"}'), false, false],
      [chunk(',"images":[]'), false, false],
      [chunk("").replace('"finish_reason":null', '"finish_reason":"stop"'), false, false],
      // Content that quotes those names is still content: inside a string their quotes are escaped.
      [chunk("").replace('"x"', '"say \\"usage\\" or \\"error\\""'), true, false],
      [chunk("").replace('"x"', '"ends in a backslash \\\\"'), true, false],
      // A line end inside the text makes two lines of the event: not the shape, nor one data line.
      [chunk("").replace('"x"', '"two\nlines"'), false, false],
      // Another id, another model: the identity edits need the decoding path.
      [chunk("").replace('"c1"', '"c2"'), false, false],
      // Cut short: never passed on.
      [chunk("").replace("}]}", "}]"), false, false],
      // The same bytes around the text, but what lies between holds a finish and usage.
      [
        chunk("").replace(
          '"x"},"finish_reason":null}]}',
          '"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2},"more":[{"delta":{"content":"b"},"finish_reason":null}]}',
        ),
        false,
        false,
      ],
    ];
    for (const [last, second, third] of cases) {
      // The first chunk is decoded (it leaves the identity opening); each chunk is a read of its own.
      for (const [reads, passes] of [
        [[chunk(""), last], second],
        [[chunk(""), chunk(""), last], third],
      ] as const) {
        const p = protocols["openai-chat"];
        const ctx = context();
        const stream = new RelayStream(relays["openai-chat"], ctx, p.streamDecoder(), p.streamEncoder(ctx));
        const pieces = reads.map((read) => stream.read(Buffer.from(read))[0]);
        assert.equal(pieces.at(-1)?.content ?? false, passes, `${reads.length} reads, last: ${last}`);
        // A chunk passed as bytes gets the generation id like a decoded one.
        if (passes) assert.equal(outcome(pieces).text.split('"id":"gen-test-1"').length - 1, reads.length);
      }
    }
  });

  test("a stream's text chunks take the shape the last stream learned, unsearched; others are still read", () => {
    const chunk = (id: string, text: string, tail = "") =>
      `data: {"id":"${id}","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]${tail}}\n\n`;
    const p = protocols["openai-chat"];
    const relay = relays["openai-chat"];
    const fastPath = new RelayFastPath(true);
    const opened = (id: string) => {
      const ctx = context();
      const stream = new RelayStream(
        relay,
        ctx,
        p.streamDecoder(),
        p.streamEncoder(ctx),
        undefined,
        fastPath,
      );
      stream.read(Buffer.from(chunk(id, ""))); // decoded: it leaves the stream's identity opening
      return stream;
    };
    opened("first").read(Buffer.from(chunk("first", "learned here")));
    // The next stream's text chunk, seen as passBytes sees it, counting the searches made in it: its
    // memo as a stream's, its first chunk decoded.
    const ctx = context();
    const memo = fastPath.memo(relay);
    relay.streamEvent({ data: chunk("second", "").slice("data: ".length, -2) }, ctx, memo);
    let searches = 0;
    const event = (text: string): RawSseEvent => {
      const view = Buffer.from(text).toString("latin1");
      return {
        view,
        from: 0,
        end: view.length - 2,
        find: (what) => {
          searches++;
          return view.indexOf(what);
        },
        utf8: (from, to) => Buffer.from(view, "latin1").toString("utf8", from, to),
      };
    };
    assert.deepEqual(relay.passBytes?.(event(chunk("second", "hello")), ctx, memo)?.tap, undefined);
    assert.equal(searches, 0, "the chunk was searched for the members the meter reads");
    // A chunk of the same shape but for what follows its choices is the meter's: decoded.
    const usage = chunk("second", "x", ',"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}');
    assert.equal(outcome(opened("second").read(Buffer.from(usage))).usage.completionTokens, 2);
  });

  test("OpenAI's padding of random length on every chunk does not stop its text chunks passing as bytes", () => {
    const chunk = (delta: string, padding: string, finish = "null", usage = "null") =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}],"usage":${usage},"obfuscation":"${padding}"}\n\n`;
    const text = (piece: string, padding: string) => chunk(`{"content":"${piece}"}`, padding);
    const reads = [
      chunk('{"role":"assistant","content":""}', "Qup1BsQ3"),
      text("Hel", "x"),
      text("lo", "abcdefghijk"),
      text(" there", ""),
      // Not text alone: the padding hides a quote, and another chunk has more after its padding.
      text("!", 'a\\"b'),
      chunk('{"content":"?"}', "pad").replace('"}\n', '","x":1}\n'),
      chunk("{}", "Zz", '"stop"'),
      chunk("{}", "y", "null", '{"prompt_tokens":3,"completion_tokens":5,"total_tokens":8}').replace(
        '"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":null}]',
        '"choices":[]',
      ),
      "data: [DONE]\n\n",
    ];
    const body = Buffer.from(reads.join(""));
    const expected = outcome(decodedEveryEvent("openai-chat", body));
    assert.equal(expected.usage.completionTokens, 5);
    const p = protocols["openai-chat"];
    const ctx = context();
    const stream = new RelayStream(relays["openai-chat"], ctx, p.streamDecoder(), p.streamEncoder(ctx));
    const pieces = reads.flatMap((read) => stream.read(Buffer.from(read)));
    pieces.push(...stream.end());
    assert.deepEqual(outcome(pieces), expected);
    // Each read a piece: the three text chunks pass undecoded, whatever their padding; no other does.
    assert.deepEqual(
      pieces.map((piece) => piece.content === true),
      [false, true, true, true, false, false, false, false, false],
    );
    // In one read, too.
    assert.deepEqual(outcome(relayed("openai-chat", body, 0).pieces), expected);
  });

  test("a tool call's argument pieces pass on as bytes too", () => {
    const call = (args: string) =>
      `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":${JSON.stringify(args)}}}]},"finish_reason":null}]}\n\n`;
    const { pieces, passed } = relayed("openai-chat", Buffer.from(call('{"a"') + call(":1}") + call("")), 7);
    assert.ok(passed > 0);
    assert.equal(outcome(pieces).text.split('"id":"gen-test-1"').length - 1, 3);
  });

  test("with reasoning excluded, no chunk is passed undecoded", () => {
    const ctx = context({ reasoning: { exclude: true } } as Partial<Request>);
    const body = fixture("openai-chat/deepseek-reasoning-content.sse");
    const { pieces, passed } = relayed("openai-chat", body, 0, ctx);
    assert.equal(passed, 0);
    assert.ok(!outcome(pieces).text.includes("reasoning_content"));
  });

  test("an upstream that turns to CRLF line ends is read as text from then on", () => {
    const lf =
      'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}\n\n';
    const crlf = lf.replace("\n\n", "\r\n\r\n").replace('"a"', '"b"');
    const { pieces } = relayed("openai-chat", Buffer.from(lf + lf + crlf), 0);
    const text = outcome(pieces).text;
    assert.equal(text.split("gen-test-1").length - 1, 3);
    assert.ok(text.includes('"b"'));
  });
});

test("a 10 MB event arriving in 16 KiB reads is joined once, not once per read", () => {
  // Joined and scanned again on every read, such an event (a generated image's base64) cost seconds
  // of CPU; joined once it costs tens of milliseconds. Bounded in CPU time, not wall time.
  const text = "x".repeat(10_000_000);
  const event = Buffer.from(
    `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`,
  );
  const cpu = process.cpuUsage();
  const { pieces } = relayed("openai-chat", event, 16 * 1024);
  const used = process.cpuUsage(cpu);
  const written = Buffer.concat(pieces.map((p) => bytesOf(p)));
  assert.ok(written.includes(text), "the event is relayed whole");
  assert.ok((used.user + used.system) / 1000 < 1000, `${(used.user + used.system) / 1000} ms of CPU`);
});

test("what a stream learns from a read does not keep the read alive while the stream lasts", () => {
  // A shape or an opening kept as a slice of the read's text would hold the whole read (V8's sliced
  // strings point into their parent): a 256 KiB read per open stream, for as long as it stays open.
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const chunk = (text: string) =>
    `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${text}"},"finish_reason":null}]}\n\n`;
  const p = protocols["openai-chat"];
  const streams: RelayStream[] = [];
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100; i++) {
    const ctx = context();
    const stream = new RelayStream(relays["openai-chat"], ctx, p.streamDecoder(), p.streamEncoder(ctx));
    // The first chunk is decoded (the opening); the second, in a read made large by a third, is the shape.
    stream.read(Buffer.from(chunk("a")));
    stream.read(Buffer.from(chunk("b") + chunk("x".repeat(256 * 1024))));
    streams.push(stream);
  }
  gc();
  const held = (process.memoryUsage().heapUsed - before) / streams.length;
  assert.ok(held < 64 * 1024, `${Math.round(held)} bytes held per open stream`);
});

describe("an upstream event that never ends", () => {
  const limit = 4096;
  const chunk = (text: string) => Buffer.from(text);
  /** A chat relay whose events may grow to `limit` bytes. */
  const limitedChatStream = () => {
    const ctx = context();
    const p = protocols["openai-chat"];
    return new RelayStream(relays["openai-chat"], ctx, p.streamDecoder(), p.streamEncoder(ctx), limit);
  };
  const tooLarge = (err: unknown) =>
    err instanceof Error &&
    (err as { status?: number }).status === 502 &&
    err.message === "upstream sent a stream event longer than 4096 bytes";

  for (const [name, lineEnd] of [
    ["LF", "\n"],
    ["CRLF (read as text)", "\r\n"],
  ] as const)
    test(`fails the stream once it outgrows the limit instead of buffering it (${name} line ends)`, () => {
      const stream = limitedChatStream();
      const first = `data: {"id":"c","object":"chat.completion.chunk","choices":[]}${lineEnd}${lineEnd}`;
      stream.read(chunk(first));
      const endless = chunk(`data: {"id":"c","choices":[{"delta":{"content":"${"x".repeat(1000)}`);
      let reads = 0;
      let last: Piece[] = [];
      for (; reads < 100 && !stream.failed; reads++) last = stream.read(endless);
      assert.ok(reads >= 3 && reads <= 5, `failed after ${reads} reads of 1 KB`);
      // The failure ends the stream as the client's protocol writes an error: nothing is thrown.
      const error = last.at(-1)?.events.find((e) => e.type === "error");
      assert.ok(error?.type === "error" && tooLarge(error.error));
      assert.match(String(last.at(-1)?.text), /^data: \{"error":\{"message":"upstream sent a stream event/);
    });

  test("events that each end are never limited, however long the stream", () => {
    const stream = limitedChatStream();
    const event = (i: number) =>
      chunk(
        `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"${"y".repeat(900)}${i}"}}]}\n\n`,
      );
    for (let i = 0; i < 50; i++) stream.read(event(i));
    assert.equal(stream.failed, false);
  });

  test("the SSE reader (translated streams) fails the same way", () => {
    const reader = new SseReader(limit);
    assert.deepEqual(reader.read('data: {"a":1}\n\n').length, 1);
    reader.read(`data: ${"z".repeat(3000)}`);
    assert.throws(() => reader.read("z".repeat(3000)), tooLarge);
    const ok = new SseReader(limit);
    for (let i = 0; i < 20; i++) assert.equal(ok.read(`data: ${"w".repeat(3000)}\n\n`).length, 1);
  });
});

// The local models' answer stays linear in the request's size: each case here was quadratic (or
// worse) and took seconds, held the event loop meanwhile, or failed; each still answers as before.

import assert from "node:assert/strict";
import { test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { MAX_PATTERN_CHARS } from "../../../src/ir/multi-search.ts";
import type { ContentBlock, Request, ToolDefinition } from "../../../src/ir/request.ts";
import { countEachSteps, truncateSteps } from "../../../src/providers/local/bounded-bpe.ts";
import { loadTokenizer } from "../../../src/providers/local/encoding.ts";
import { type LocalTokens, localReply } from "../../../src/providers/local/reply.ts";
import { HINT_BUDGET_CHARS } from "../../../src/providers/local/sample-json.ts";

const { encoding, splitter } = await loadTokenizer();

function run<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** The counting the worker does, in-process and without pauses. */
const tokens: LocalTokens = {
  countEach: async (texts, limit) => run(countEachSteps(encoding, splitter, texts, limit)),
  truncate: async (text, max) => run(truncateSteps(encoding, splitter, text, max)),
};

const MiB = 1 << 20;
const options = { reasoning: false, maxOutputTokens: 8192, contextLength: 1_000_000 };

function request(content: ContentBlock[] | string, extra: Partial<Request> = {}): Request {
  return {
    model: "local/echo-1",
    system: [],
    messages: [
      { role: "user", content: typeof content === "string" ? [{ type: "text", text: content }] : content },
    ],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
    ...extra,
  };
}

/**
 * The work's CPU time (every thread of the process), not its wall time: what grows with the
 * algorithm, and what another process busy on the same machine does not inflate.
 */
async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = process.cpuUsage();
  const value = await work();
  const used = process.cpuUsage(started);
  return { value, ms: (used.user + used.system) / 1000 };
}

function tool(name: string): ToolDefinition {
  return { name, parameters: { type: "object", properties: { q: { type: "string" } } } };
}

test("an ordinary request: the echo, its counts, the stop sequence", async () => {
  const reply = await localReply(request("Hello there, world"), options, tokens);
  assert.deepEqual(reply.blocks, [{ type: "text", text: "You said: Hello there, world" }]);
  assert.equal(reply.usage.promptTokens, encoding.count("Hello there, world"));
  assert.equal(reply.usage.completionTokens, encoding.count("You said: Hello there, world"));
  const stopped = await localReply(
    request("one two three", { stopSequences: ["three", "two"] }),
    options,
    tokens,
  );
  assert.deepEqual(stopped.blocks, [{ type: "text", text: "You said: one " }]);
  assert.equal(stopped.stopSequence, "two");
  assert.equal(stopped.finishReason, "stop_sequence");
});

test("many tool names against a long text: one pass, the named tool still called", async () => {
  // indexOf once per tool: 2,000 near misses against 1 MiB of one letter took 3.5 s.
  const tools = Array.from({ length: 2000 }, (_, i) => tool(`${"a".repeat(60)}b${i}`));
  tools.push(tool("lookup_weather"));
  const text = `${"a".repeat(MiB)} please LOOKUP_WEATHER`;
  const { value: reply, ms } = await timed(() => localReply(request(text, { tools }), options, tokens));
  assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
  assert.deepEqual(
    reply.blocks.map((b) => (b.type === "tool_call" ? b.name : b.type)),
    ["lookup_weather"],
  );
});

test("many stop sequences against a long text: one pass, the earliest one still wins", async () => {
  const stopSequences = Array.from({ length: 2000 }, (_, i) => `${"a".repeat(60)}b${i}`);
  stopSequences.push("STOP-LATE", "STOP");
  const text = `${"a".repeat(MiB)} STOP-LATE`;
  const { value: reply, ms } = await timed(() =>
    localReply(request(text, { stopSequences, maxOutputTokens: 10 }), options, tokens),
  );
  assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
  // "STOP" starts where "STOP-LATE" does and is listed after it: the first listed wins the tie.
  assert.equal(reply.stopSequence, undefined, "cut at 10 tokens before the stop is reached");
  const early = await localReply(request("go STOP-LATE now", { stopSequences }), options, tokens);
  assert.equal(early.stopSequence, "STOP-LATE");
  assert.deepEqual(early.blocks, [{ type: "text", text: "You said: go " }]);
});

test("far more tool-name characters than the local models search for is a 400", async () => {
  const tools = Array.from({ length: 20 }, (_, i) => tool(`${"t".repeat(MAX_PATTERN_CHARS / 10)}${i}`));
  await assert.rejects(localReply(request("hi", { tools }), options, tokens), (error: GatewayError) => {
    assert.equal(error.status, 400);
    assert.equal(error.param, "tools");
    return true;
  });
});

test("a prompt over the context window is refused without counting all of it", async () => {
  const text = "word ".repeat(8 * MiB);
  const { value: error, ms } = await timed(() =>
    localReply(request(text), { ...options, contextLength: 10_000 }, tokens).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  assert.ok(error instanceof GatewayError && error.status === 400, String(error));
  assert.match(error.message, /context window of 10000 tokens/);
  assert.ok(ms < 1000, `${ms.toFixed(0)} ms`);
});

test("structured output from a wide schema and a long prompt stays bounded", async () => {
  // Each string property repeated the whole prompt: 2.7 s, then a value too long for a string.
  const properties = Object.fromEntries(
    Array.from({ length: 1000 }, (_, i) => [`p${i}`, { type: "string" }]),
  );
  const reply = await localReply(
    request("x".repeat(MiB), {
      responseFormat: { type: "json_schema", schema: { type: "object", properties } },
      maxOutputTokens: 1_000_000,
    }),
    options,
    tokens,
  );
  const text = reply.blocks[0]?.type === "text" ? reply.blocks[0].text : "";
  const value = JSON.parse(text) as Record<string, string>;
  assert.equal(Object.keys(value).length, 1000);
  assert.equal(value.p0.length, HINT_BUDGET_CHARS, "the first property holds what the budget allows");
  assert.equal(value.p999, "");
  assert.ok(text.length < HINT_BUDGET_CHARS + 20_000);
});

test("many cache_control markers: the prefix is joined once, and cached", async () => {
  // Joining the prefix at every marker cost the prompt's size times the markers: seconds here.
  const content: ContentBlock[] = Array.from({ length: 5000 }, (_, i) => ({
    type: "text",
    text: `${"block ".repeat(40)}${i}`,
    cacheControl: { type: "ephemeral" },
  }));
  const first = await timed(() => localReply(request(content), options, tokens));
  assert.ok(first.ms < 2000, `${first.ms.toFixed(0)} ms`);
  assert.equal(first.value.usage.cacheWrite5mTokens, first.value.usage.promptTokens);
  const second = await localReply(request(content), options, tokens);
  assert.equal(second.usage.cacheReadTokens, first.value.usage.promptTokens);
});

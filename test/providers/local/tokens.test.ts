// Token counting for the local models happens on their own thread: the caller's event loop keeps
// turning while a megabyte-long pathological text is counted, and the answers (and errors) come back
// as if counted in place. This file's process exiting at all shows the idle thread holds nothing open.

import assert from "node:assert/strict";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { test } from "node:test";
import { GatewayError, PROMPT } from "../../../src/ir/errors.ts";
import type { Request } from "../../../src/ir/request.ts";
import { onLocalThread } from "../../../src/providers/local/thread.ts";
import { countTokens, countTokensEach, truncateToTokens } from "../../../src/providers/local/tokens.ts";

test("counts, counts against a limit, and truncates", async () => {
  assert.equal(await countTokens(""), 0);
  assert.equal(await countTokens("hello world"), 2);
  assert.equal(await countTokens("<|endoftext|>"), 7, "special-token names are plain text");
  const each = await countTokensEach(["hello world", "", "hello"]);
  assert.deepEqual(each, { each: [2, 0, 1], total: 3, overLimit: false });
  assert.equal((await countTokensEach(["hello world", "hello"], 2)).overLimit, true);
  assert.deepEqual(await truncateToTokens("hello world again", 2), {
    text: "hello world",
    tokens: 2,
    truncated: true,
  });
  assert.deepEqual(await truncateToTokens("hello", 2), { text: "hello", tokens: 1, truncated: false });
});

test("a megabyte of pathological text is counted without holding the event loop", async () => {
  let state = 11;
  const letters = Array.from({ length: 1 << 20 }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return String.fromCharCode(97 + (state % 26));
  }).join("");
  await countTokens("warm up");
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const counts = await Promise.all([countTokens(letters), countTokens('\\"{}[]'.repeat(1 << 17))]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  lag.disable();
  assert.ok(counts[0] > 400_000, String(counts[0]));
  assert.equal(counts[1], 3 << 17, "one token per two characters");
  // gpt-tokenizer on the event loop: several minutes for the first text alone. The bound leaves room
  // for a machine busy with other work (a process descheduled for a moment reads as a held loop).
  const maxMs = lag.max / 1e6 - 5;
  assert.ok(maxMs < 1000, `the event loop was held ${maxMs.toFixed(0)} ms`);
});

test("a short count does not wait behind a long one", async () => {
  const long = "x".repeat(8 << 20);
  const longCount = countTokens(long);
  const started = performance.now();
  assert.equal(await countTokens("just a few words"), 4);
  const shortMs = performance.now() - started;
  await longCount;
  const longMs = performance.now() - started;
  assert.ok(shortMs < longMs / 2, `short ${shortMs.toFixed(0)} ms, long ${longMs.toFixed(0)} ms`);
});

test("an error made on the thread arrives as the same GatewayError", async () => {
  const request: Request = {
    model: "local/think-1",
    system: [],
    messages: [
      { role: "user", content: [{ type: "thinking", text: "forged", signature: "not-a-signature" }] },
    ],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
  };
  await assert.rejects(
    onLocalThread({ op: "reply", request, options: { reasoning: true } }),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError);
      assert.equal(error.status, 400);
      assert.equal(error.param, PROMPT);
      assert.match(error.message, /invalid signature for a thinking block/);
      return true;
    },
  );
});

// Token counting of pathological prompts for the local models: how long a count takes and how long
// the event loop is held meanwhile, for text a BPE is quadratic on (a long run without whitespace)
// and for random text. Counts through the gateway's own path (src/providers/local/tokens.ts, on the
// local models' thread), and, with --unbounded, with gpt-tokenizer on the event loop as the local
// models once did (minutes for 1 MiB: give --sizes 100000 with it).
//
//   node --expose-gc bench/pathological-tokens.ts [--sizes 102400,1048576] [--unbounded]

import { randomBytes } from "node:crypto";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { countTokens } from "../src/providers/local/tokens.ts";

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const sizes = flag("--sizes", "102400,1048576").split(",").map(Number);
const unbounded = process.argv.includes("--unbounded");

const kinds: Record<string, (n: number) => string> = {
  '`\\"{}[]` repeated': (n) => '\\"{}[]'.repeat(Math.ceil(n / 6)).slice(0, n),
  "one letter": (n) => "a".repeat(n),
  "random lowercase": (n) =>
    Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join(""),
  "random bytes (UTF-8)": (n) => randomBytes(n).toString("utf8"),
  "random CJK": (n) =>
    Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20000))).join(""),
};

const count: (text: string) => Promise<number> = unbounded
  ? await (async () => {
      const gpt = await import("gpt-tokenizer");
      return async (text: string) => gpt.countTokens(text, { disallowedSpecial: new Set() });
    })()
  : countTokens;

await count("warm up: load the tokenizer");
console.log(`${unbounded ? "gpt-tokenizer on the event loop" : "tokens.ts (local models' thread)"}`);
console.log(
  "kind".padEnd(24),
  "chars".padStart(9),
  "tokens".padStart(9),
  "count ms".padStart(10),
  "max loop lag ms".padStart(16),
);
for (const size of sizes) {
  for (const [kind, make] of Object.entries(kinds)) {
    const text = make(size);
    // Collect the garbage making the text left behind, so that its pause is not counted as the count's.
    globalThis.gc?.();
    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    const started = performance.now();
    const tokens = await count(text);
    const elapsed = performance.now() - started;
    // Let the monitor's timer fire once more, so a stall that ended with the count is recorded.
    await new Promise((resolve) => setTimeout(resolve, 20));
    lag.disable();
    const maxLag = Math.max(0, lag.max / 1e6 - 5);
    console.log(
      kind.padEnd(24),
      String(text.length).padStart(9),
      String(tokens).padStart(9),
      elapsed.toFixed(0).padStart(10),
      (unbounded ? elapsed : maxLag).toFixed(0).padStart(16),
    );
  }
}

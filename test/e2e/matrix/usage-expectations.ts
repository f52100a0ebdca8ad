// The usage a client must see for the fake's USAGE buckets, computed from the documented semantics
// (test/fakes/reply.ts for what each upstream reports, src/ir/usage.ts for the normalized meaning),
// restated here by hand rather than computed by the gateway's own mappers.
//
// Normalized (= chat-completions) semantics: prompt counts every input token, cache reads and writes
// included; completion counts every generated token, reasoning included.

import { USAGE } from "./fixtures.ts";
import type { Upstream } from "./harness.ts";

export interface Normalized {
  prompt: number;
  cacheRead: number;
  cacheWrite5m: number;
  cacheWrite1h: number;
  completion: number;
  reasoning: number;
}

/** What each upstream's report of USAGE means, normalized; only what its protocol can say. */
export function reportedUsage(upstream: Upstream): Normalized {
  const u = USAGE;
  const writes = u.cacheWrite5m + u.cacheWrite1h;
  switch (upstream) {
    case "openai":
      // prompt_tokens = all input; cache writes as one total (no retention split: counted as 5-minute).
      return {
        prompt: u.input + u.cacheRead + writes,
        cacheRead: u.cacheRead,
        cacheWrite5m: writes,
        cacheWrite1h: 0,
        completion: u.output + u.reasoning,
        reasoning: u.reasoning,
      };
    case "anthropic":
      // input_tokens excludes cache reads and writes; output_tokens includes thinking, not split out.
      return {
        prompt: u.input + u.cacheRead + writes,
        cacheRead: u.cacheRead,
        cacheWrite5m: u.cacheWrite5m,
        cacheWrite1h: u.cacheWrite1h,
        completion: u.output + u.reasoning,
        reasoning: 0,
      };
    case "openai-responses":
      // input_tokens = all input (cached included); cache writes as one total, counted as 5-minute;
      // output_tokens includes reasoning, also reported on its own.
      return {
        prompt: u.input + u.cacheRead + writes,
        cacheRead: u.cacheRead,
        cacheWrite5m: writes,
        cacheWrite1h: 0,
        completion: u.output + u.reasoning,
        reasoning: u.reasoning,
      };
    case "gemini":
      // promptTokenCount includes cached tokens (no cache writes in this protocol); thoughts are
      // reported outside candidatesTokenCount.
      return {
        prompt: u.input + u.cacheRead,
        cacheRead: u.cacheRead,
        cacheWrite5m: 0,
        cacheWrite1h: 0,
        completion: u.output + u.reasoning,
        reasoning: u.reasoning,
      };
  }
}

// finish_reason in both directions. The chat protocol has five values (docs/architecture.md §8): stop,
// length, tool_calls, content_filter and the deprecated function_call; the IR has more.

import type { FinishReason } from "../../ir/response.ts";
import type { WireFinishReason } from "./wire-types.ts";

/** IR → the value a chat client sees. */
export function finishReasonToWire(reason: FinishReason): WireFinishReason {
  switch (reason) {
    case "length":
      return "length";
    case "tool_calls":
      return "tool_calls";
    // A refusal is withheld output as far as a chat client can tell; `content_filter` is the only
    // value that says "the model did not answer" without inventing a new one.
    case "content_filter":
    case "refusal":
      return "content_filter";
    // A stop sequence is a natural stop in this protocol (docs/architecture.md §8: a natural stop or a stop
    // sequence); a paused server tool and anything else end the turn as far as the client can act on it.
    default:
      return "stop";
  }
}

/**
 * The stop string a choice says it matched: vLLM's `stop_reason`, SGLang's `matched_stop` (a
 * number there is a stop token, the end-of-sequence one included, so not a sequence). OpenAI itself
 * never says which one matched, nor whether one did (docs/translation.md §5).
 */
export function matchedStop(choice: Record<string, unknown>): string | undefined {
  for (const value of [choice.stop_reason, choice.matched_stop]) if (typeof value === "string") return value;
  return undefined;
}

/** Upstream finish_reason → IR. `stopReason`: the choice's matched stop string (`matchedStop`). */
export function finishReasonFromWire(reason: unknown, stopReason?: unknown): FinishReason {
  switch (reason) {
    case "stop":
    case "end_turn":
      return typeof stopReason === "string" ? "stop_sequence" : "stop";
    case "length":
    case "max_tokens":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    case "content_filter":
      return "content_filter";
    case "error":
      return "error";
    default:
      return "other";
  }
}

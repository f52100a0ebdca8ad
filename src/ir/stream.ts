import type { GatewayError } from "./errors.ts";
import type { Citation } from "./request.ts";
import type { FinishReason, TokenLogprob, WebSearchBlock } from "./response.ts";
import type { Usage } from "./usage.ts";

// A response as a stream of events. Blocks are numbered from 0 in the order they start; a block's
// deltas come between its block_start and block_stop. Usage may arrive before or after `finish`
// and more than once (the last one wins); `finish` comes once.

export type BlockStart =
  | { type: "text" }
  | { type: "thinking" }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_call"; id: string; name: string; signature?: string }
  /** A generated image arrives whole: its block has no deltas. */
  | { type: "image"; mediaType: string; data: string }
  /** A web search the upstream ran arrives whole too (src/ir/response.ts `WebSearchBlock`). */
  | { type: "web_search"; search: WebSearchBlock };

export type BlockDelta =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string }
  | { type: "signature"; signature: string }
  /** A piece of the tool-call arguments JSON text; pieces concatenate to the whole. */
  | { type: "tool_arguments"; json: string }
  /** A citation of the text block (src/ir/citation.ts): it may follow the text it cites. */
  | { type: "citation"; citation: Citation };

export type StreamEvent =
  | { type: "start"; id?: string; model?: string }
  | { type: "block_start"; index: number; block: BlockStart }
  | { type: "block_delta"; index: number; delta: BlockDelta }
  | { type: "block_stop"; index: number }
  | { type: "finish"; reason: FinishReason; stopSequence?: string; message?: string }
  | { type: "usage"; usage: Usage }
  /** Log probabilities of text tokens produced since the last such event (they accumulate, in order). */
  | { type: "logprobs"; logprobs: TokenLogprob[] }
  | { type: "error"; error: GatewayError };

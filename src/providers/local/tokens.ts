// Real token counts for the local demo models (o200k_base, the encoding of current OpenAI models),
// counted without blocking the event loop, whatever the text: on the local models' thread
// (thread.ts), at a cost linear in the text (bounded-bpe.ts says how, and what happens to a
// pathological run without whitespace). Counts of ordinary text are exactly gpt-tokenizer's.

import type { TokenCounts, Truncated } from "./bounded-bpe.ts";
import { onLocalThread } from "./thread.ts";

export type { TokenCounts, Truncated } from "./bounded-bpe.ts";

/** The tokens of `text`, counted off the event loop: the one call for "count this without blocking". */
export async function countTokens(text: string): Promise<number> {
  if (text.length === 0) return 0;
  return (await countTokensEach([text])).total;
}

/**
 * The tokens of each text, in one trip to the local models' thread. With `limit`, counting stops as
 * soon as the total passes it (`overLimit`): a prompt far over a context window costs no more to
 * refuse than one the window's size.
 */
export async function countTokensEach(texts: readonly string[], limit?: number): Promise<TokenCounts> {
  if (texts.every((t) => t.length === 0)) return { each: texts.map(() => 0), total: 0, overLimit: false };
  return (await onLocalThread({ op: "count", texts: [...texts], limit })) as TokenCounts;
}

/** The longest prefix of `text` that fits in `max` tokens, with its count; reads no more of the text than that. */
export async function truncateToTokens(text: string, max: number): Promise<Truncated> {
  return (await onLocalThread({ op: "truncate", text, max })) as Truncated;
}

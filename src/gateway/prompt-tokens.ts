// The gateway's own count of a request's prompt tokens: for models whose upstream has no counter
// (the local models, chat-completions upstreams) and when an upstream's counter fails. It counts
// what the local models count as their prompt (src/providers/local/prompt-texts.ts), so that a
// count for a local model is the prompt usage its answer reports. The counting runs on the local
// models' thread in linear time, so no prompt, however large or pathological, holds the event loop.

import type { Request } from "../ir/request.ts";
import { promptTexts } from "../providers/local/prompt-texts.ts";
import { countTokensEach } from "../providers/local/tokens.ts";

export async function countPromptTokens(request: Request): Promise<number> {
  const { texts, media } = promptTexts(request);
  const counted = await countTokensEach(texts);
  return counted.total + media;
}

/** Characters per token of ordinary English text under the current encodings: a rough figure. */
const CHARS_PER_TOKEN = 4;

/**
 * A quick estimate of the prompt's tokens (a token per CHARS_PER_TOKEN characters), on the event
 * loop: for admission under a tokens-per-minute limit, which settles on the real usage afterwards.
 * Counting exactly costs a trip to the counting thread, several times the rest of a relayed
 * request's CPU (docs/operations.md#limits-and-budgets has the figures).
 */
export function estimatePromptTokens(request: Request): number {
  const { texts, media } = promptTexts(request);
  return estimateTextTokens(texts) + media;
}

/** The same estimate for plain texts (an embedding's inputs). */
export function estimateTextTokens(texts: readonly string[]): number {
  let chars = 0;
  for (const text of texts) chars += text.length;
  return tokensOfChars(chars);
}

/** The same estimate for text of `chars` characters (a stream's output so far). */
export function tokensOfChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

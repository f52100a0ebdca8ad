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

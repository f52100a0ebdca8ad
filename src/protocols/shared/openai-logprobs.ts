// Token log probabilities in the shape both OpenAI protocols write them: chat `logprobs.content[]`
// and the Responses API's `output_text.logprobs[]` are lists of
// `{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}`.

import type { TokenLogprob, TokenProbability } from "../../ir/response.ts";
import { isObject } from "./validate.ts";

export interface WireTokenProbability {
  token: string;
  logprob: number;
  bytes: number[] | null;
}

export interface WireTokenLogprob extends WireTokenProbability {
  top_logprobs: WireTokenProbability[];
}

function wireProbability(p: TokenProbability): WireTokenProbability {
  // `bytes` is the token's UTF-8 encoding: known from the token when the upstream did not say.
  return { token: p.token, logprob: p.logprob, bytes: p.bytes ?? [...Buffer.from(p.token, "utf8")] };
}

export function toOpenAILogprobs(list: readonly TokenLogprob[]): WireTokenLogprob[] {
  return list.map((l) => ({ ...wireProbability(l), top_logprobs: l.top.map(wireProbability) }));
}

function probabilityFrom(raw: unknown): TokenProbability | undefined {
  if (!isObject(raw) || typeof raw.token !== "string" || typeof raw.logprob !== "number") return undefined;
  const p: TokenProbability = { token: raw.token, logprob: raw.logprob };
  if (Array.isArray(raw.bytes) && raw.bytes.every((b) => typeof b === "number")) p.bytes = raw.bytes;
  return p;
}

/** An upstream's list (malformed items are skipped) → IR. */
export function fromOpenAILogprobs(raw: unknown): TokenLogprob[] {
  if (!Array.isArray(raw)) return [];
  const out: TokenLogprob[] = [];
  for (const item of raw) {
    const chosen = probabilityFrom(item);
    if (!chosen) continue;
    const top = isObject(item) && Array.isArray(item.top_logprobs) ? item.top_logprobs : [];
    out.push({ ...chosen, top: top.map(probabilityFrom).filter((p) => p !== undefined) });
  }
  return out;
}

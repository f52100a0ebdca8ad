// Gemini `logprobsResult` ↔ IR token logprobs (src/ir/response.ts). A candidate's
// `logprobsResult.chosenCandidates[i]` is the token chosen at decoding step i and
// `topCandidates[i].candidates` the most likely tokens at that step (descending); each item is
// `{token, tokenId?, logProbability}`. `avgLogprobs` (on the candidate) is the mean of the chosen
// tokens' log probabilities. Token ids have no place in the other protocols and are not carried.

import type { TokenLogprob, TokenProbability } from "../../ir/response.ts";
import { isObject, type Json } from "../shared/validate.ts";
import type { GeminiLogprobsResult } from "./wire-types.ts";

function probability(raw: unknown): TokenProbability | undefined {
  if (!isObject(raw) || typeof raw.token !== "string" || typeof raw.logProbability !== "number")
    return undefined;
  return { token: raw.token, logprob: raw.logProbability };
}

/** The token logprobs of one candidate (a whole answer's or a stream chunk's). */
export function logprobsFromGemini(candidate: Json): TokenLogprob[] {
  const result = candidate.logprobsResult;
  if (!isObject(result) || !Array.isArray(result.chosenCandidates)) return [];
  const tops = Array.isArray(result.topCandidates) ? result.topCandidates : [];
  const out: TokenLogprob[] = [];
  result.chosenCandidates.forEach((raw, step) => {
    const chosen = probability(raw);
    if (!chosen) return;
    const at = tops[step];
    const top = isObject(at) && Array.isArray(at.candidates) ? at.candidates : [];
    out.push({ ...chosen, top: top.map(probability).filter((p) => p !== undefined) });
  });
  return out;
}

export function logprobsToGemini(list: readonly TokenLogprob[]): {
  logprobsResult: GeminiLogprobsResult;
  avgLogprobs: number;
} {
  const item = (p: TokenProbability) => ({ token: p.token, logProbability: p.logprob });
  const sum = list.reduce((total, l) => total + l.logprob, 0);
  return {
    logprobsResult: {
      topCandidates: list.map((l) => ({ candidates: l.top.map(item) })),
      chosenCandidates: list.map(item),
    },
    avgLogprobs: list.length > 0 ? sum / list.length : 0,
  };
}

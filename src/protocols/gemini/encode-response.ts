// IR response → a GenerateContentResponse as @google/genai types it: one candidate (index 0) whose
// content is the model turn, the finish reason, usageMetadata, modelVersion (the catalog id the client
// asked for), createTime (the request's arrival) and responseId (the generation id).
// Thought parts appear only when the client asked for them (thinkingConfig.includeThoughts).

import type { Request } from "../../ir/request.ts";
import type { OutputBlock, Response } from "../../ir/response.ts";
import type { EncodeContext } from "../types.ts";
import { groundingFor } from "./map-citations.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { logprobsToGemini } from "./map-logprobs.ts";
import { usageToWire } from "./map-usage.ts";
import { partsFromOutput } from "./output-parts.ts";
import type { GeminiCandidate, GeminiPart, GeminiResponse } from "./wire-types.ts";

/** Gemini hides thoughts unless `includeThoughts: true` (decode sets `exclude: false` only then). */
export function showsThoughts(request: Request): boolean {
  return request.reasoning?.exclude === false;
}

/** The last second written as a createTime: the streams that arrive in one second share it. */
let lastCreated: { seconds: number; text: string } | undefined;

/** Unix seconds as an RFC 3339 timestamp (`2025-01-01T00:00:00.000Z`). */
export function createTime(created: number): string {
  if (lastCreated?.seconds !== created)
    lastCreated = { seconds: created, text: new Date(created * 1000).toISOString() };
  return lastCreated.text;
}

/** A candidate's content; Gemini leaves `parts` out when the model produced nothing. */
export function modelContent(parts: GeminiPart[]): GeminiCandidate["content"] {
  return parts.length > 0 ? { parts, role: "model" } : { role: "model" };
}

/** The text blocks' cited pages as the candidate's groundingMetadata (map-citations.ts). */
export function addSources(candidate: GeminiCandidate, blocks: readonly OutputBlock[]): void {
  const texts = blocks.flatMap((b) => (b.type === "text" ? [b] : []));
  const citations = texts.flatMap((b) => b.citations ?? []);
  const queries = blocks.flatMap((b) => (b.type === "web_search" ? [b.query] : []));
  // Nothing to ground (most answers): the text is not joined for nothing.
  if (citations.length === 0 && queries.length === 0) return;
  const grounding = groundingFor(texts.map((b) => b.text).join(""), citations, queries);
  if (grounding) candidate.groundingMetadata = grounding;
}

export function encodeResponse(response: Response, ctx: EncodeContext): GeminiResponse {
  const parts = partsFromOutput(response.content, showsThoughts(ctx.request) ? "all" : "none");
  const candidate: GeminiCandidate = {
    content: modelContent(parts),
    finishReason: finishReasonToWire(response.finishReason),
    index: 0,
  };
  if (ctx.request.logprobs && response.logprobs)
    Object.assign(candidate, logprobsToGemini(response.logprobs));
  addSources(candidate, response.content);
  if (response.finishMessage) candidate.finishMessage = response.finishMessage;
  return {
    candidates: [candidate],
    usageMetadata: usageToWire(response.usage),
    modelVersion: ctx.model,
    createTime: createTime(ctx.created),
    responseId: ctx.id,
  };
}

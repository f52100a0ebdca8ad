// IR response → a GenerateContentResponse as @google/genai types it: one candidate (index 0) whose
// content is the model turn, the finish reason, usageMetadata, modelVersion (the catalog id the client
// asked for), createTime (the request's arrival) and responseId (the generation id).
// Thought parts appear only when the client asked for them (thinkingConfig.includeThoughts).

import type { Request } from "../../ir/request.ts";
import type { Response } from "../../ir/response.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { partsFromOutput } from "./output-parts.ts";
import type { GeminiCandidate, GeminiPart, GeminiResponse } from "./wire-types.ts";

/** Gemini hides thoughts unless `includeThoughts: true` (decode sets `exclude: false` only then). */
export function showsThoughts(request: Request): boolean {
  return request.reasoning?.exclude === false;
}

export function createTime(created: number): string {
  return new Date(created * 1000).toISOString();
}

/** A candidate's content; Gemini leaves `parts` out when the model produced nothing. */
export function modelContent(parts: GeminiPart[]): GeminiCandidate["content"] {
  return parts.length > 0 ? { parts, role: "model" } : { role: "model" };
}

export function encodeResponse(response: Response, ctx: EncodeContext): GeminiResponse {
  const parts = partsFromOutput(response.content, showsThoughts(ctx.request) ? "all" : "none");
  return {
    candidates: [
      { content: modelContent(parts), finishReason: finishReasonToWire(response.finishReason), index: 0 },
    ],
    usageMetadata: usageToWire(response.usage),
    modelVersion: ctx.model,
    createTime: createTime(ctx.created),
    responseId: ctx.id,
  };
}

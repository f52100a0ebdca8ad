// Bedrock's CountTokens (`POST /model/{modelId}/count-tokens`) for a request sent through Converse:
// the body is `{"input": {"converse": {messages, system?, toolConfig?}}}`, the answer
// `{"inputTokens": n}`. Only some models have it; the others answer with a ValidationException.

import type { Request } from "../../ir/request.ts";
import { Unsent } from "../shared/dropped-fields.ts";
import { countIn } from "../shared/token-count.ts";
import { encodePrompt, modelPath } from "./encode-request.ts";
import { encodeToolConfig } from "./encode-tools.ts";
import { modelFamily } from "./model-fields.ts";

export function encodeCountRequest(
  request: Request,
  target: { model: string },
): { path: string; body: unknown } {
  const converse: Record<string, unknown> = {
    ...encodePrompt(request, modelFamily(target.model), new Unsent()),
  };
  const toolConfig = encodeToolConfig(request);
  if (toolConfig) converse.toolConfig = toolConfig;
  return { path: modelPath(target.model, "count-tokens"), body: { input: { converse } } };
}

export function decodeCount(body: unknown): number {
  return countIn(body, "inputTokens");
}

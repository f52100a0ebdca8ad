// AWS Bedrock: Anthropic's models (an `anthropic.` in the id: base ids, `us.`/`global.` inference
// profiles, their ARNs) through InvokeModel / InvokeModelWithResponseStream with messages bodies, so a
// messages client gets a relay; the model id goes URL-encoded in the path (an ARN holds `:` and `/`).

import type { PlatformConfig } from "../../config/providers.ts";
import { platformMessagesCall } from "./anthropic-body.ts";
import { bodyModel, noPlatformEndpoint, type ShapeCall } from "./types.ts";

type Bedrock = Extract<PlatformConfig, { kind: "aws-bedrock" }>;

/** The `anthropic_version` Bedrock takes, whatever version the client sent. */
export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

export type BedrockFamily = "anthropic" | "converse";

export function bedrockFamily(model: string): BedrockFamily {
  return model.includes("anthropic.") ? "anthropic" : "converse";
}

export function bedrockAnthropicShape(providerId: string, _bedrock: Bedrock): ShapeCall {
  return (call) => {
    if (call.path !== "/v1/messages") throw noPlatformEndpoint(providerId, call.path);
    const model = encodeURIComponent(bodyModel(call.body) ?? "");
    const method = call.stream ? "invoke-with-response-stream" : "invoke";
    // InvokeModel refuses `stream` (the path says it) and `model` (the path names it).
    const edited = platformMessagesCall(call.body, call.headers, BEDROCK_ANTHROPIC_VERSION, [
      "model",
      "stream",
    ]);
    return { ...call, ...edited, path: `/model/${model}/${method}` };
  };
}

// What Converse carries only in `additionalModelRequestFields`, the model's own request fields passed
// through as they are: reasoning and top-k, which each model family spells its own way.
//
// - Claude (`anthropic.` in the model id, inference profiles such as `us.anthropic.…` and ARNs
//   included): `thinking` as the messages protocol has it (budget or adaptive, shared/claude-thinking.ts),
//   `output_config.effort`, `top_k`. While thinking is on, Claude refuses temperature, top_k and a
//   top_p below 0.95: they are left out (and named dropped).
// - Amazon Nova: `reasoningConfig: {type, maxReasoningEffort}` and `inferenceConfig.topK`.
// - OpenAI gpt-oss: `reasoning_effort`.
// Any other family gets neither: the request's reasoning and top-k settings are named dropped.
// What does not reach the model is named in the attempt's `Unsent` where it is left out.

import type { ReasoningEffort, Request } from "../../ir/request.ts";
import { encodeThinking } from "../shared/claude-thinking.ts";
import { asksForReasoning, type Unsent } from "../shared/dropped-fields.ts";
import { reasoningEffort } from "../shared/reasoning-effort.ts";

export type ModelFamily = "claude" | "nova" | "gpt-oss" | "other";

export function modelFamily(model: string): ModelFamily {
  const id = model.toLowerCase();
  if (id.includes("anthropic.")) return "claude";
  if (id.includes("amazon.nova")) return "nova";
  if (id.includes("openai.gpt-oss")) return "gpt-oss";
  return "other";
}

/** A tool result's `status` is "only supported by Amazon Nova and Anthropic Claude" models. */
export function takesToolResultStatus(family: ModelFamily): boolean {
  return family === "claude" || family === "nova";
}

export interface ModelFields {
  /** `additionalModelRequestFields` (empty when nothing needs it). */
  additional: Record<string, unknown>;
  /** Claude's thinking is on: temperature, top_k and a low top_p stay out. */
  thinkingOn: boolean;
}

export function modelFields(
  request: Request,
  family: ModelFamily,
  maxTokens: number,
  unsent: Unsent,
): ModelFields {
  const fields: ModelFields = { additional: {}, thinkingOn: false };
  if (family === "claude") claudeFields(request, maxTokens, fields, unsent);
  else if (family === "nova") novaFields(request, fields, unsent);
  else {
    const effort = family === "gpt-oss" ? wireEffort(reasoningEffort(request.reasoning)) : undefined;
    if (effort) fields.additional.reasoning_effort = effort;
    else unsent.add("reasoning", asksForReasoning(request));
    unsent.add("top_k", request.topK !== undefined);
  }
  return fields;
}

function claudeFields(request: Request, maxTokens: number, fields: ModelFields, unsent: Unsent): void {
  const { thinking, effort } = encodeThinking(request.reasoning, maxTokens);
  if (thinking) fields.additional.thinking = thinking;
  // No room for the smallest budget below `maxTokens` (shared/claude-thinking.ts).
  else unsent.add("reasoning", asksForReasoning(request));
  if (effort) fields.additional.output_config = { effort };
  fields.thinkingOn = thinking !== undefined && thinking.type !== "disabled";
  if (request.topK !== undefined) {
    if (fields.thinkingOn) unsent.add("top_k");
    else fields.additional.top_k = request.topK;
  }
}

function novaFields(request: Request, fields: ModelFields, unsent: Unsent): void {
  const reasoning = request.reasoning;
  if (reasoning?.enabled === false || reasoning?.effort === "none") {
    fields.additional.reasoningConfig = { type: "disabled" };
  } else {
    const effort = wireEffort(reasoningEffort(reasoning));
    if (effort) fields.additional.reasoningConfig = { type: "enabled", maxReasoningEffort: effort };
    else unsent.add("reasoning", asksForReasoning(request));
  }
  if (request.topK !== undefined) fields.additional.inferenceConfig = { topK: request.topK };
}

/** The three levels these families take: minimal is low, xhigh is high. */
function wireEffort(effort: ReasoningEffort | undefined): "low" | "medium" | "high" | undefined {
  switch (effort) {
    case "minimal":
    case "low":
      return "low";
    case "medium":
      return "medium";
    case "high":
    case "xhigh":
      return "high";
    default:
      return undefined;
  }
}

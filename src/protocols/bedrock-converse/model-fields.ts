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

import type { ReasoningEffort, Request } from "../../ir/request.ts";
import { encodeThinking } from "../shared/claude-thinking.ts";
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
  /** The request's reasoning settings reached the model. */
  reasoningSent: boolean;
  /** The request's top_k reached the model. */
  topKSent: boolean;
}

export function modelFields(request: Request, family: ModelFamily, maxTokens: number): ModelFields {
  const fields: ModelFields = { additional: {}, thinkingOn: false, reasoningSent: false, topKSent: false };
  if (family === "claude") claudeFields(request, maxTokens, fields);
  else if (family === "nova") novaFields(request, fields);
  else if (family === "gpt-oss") {
    const effort = wireEffort(reasoningEffort(request.reasoning));
    if (effort) fields.additional.reasoning_effort = effort;
    fields.reasoningSent = effort !== undefined;
  }
  return fields;
}

function claudeFields(request: Request, maxTokens: number, fields: ModelFields): void {
  const { thinking, effort } = encodeThinking(request.reasoning, maxTokens);
  if (thinking) fields.additional.thinking = thinking;
  if (effort) fields.additional.output_config = { effort };
  fields.reasoningSent = thinking !== undefined;
  fields.thinkingOn = thinking !== undefined && thinking.type !== "disabled";
  if (request.topK !== undefined && !fields.thinkingOn) {
    fields.additional.top_k = request.topK;
    fields.topKSent = true;
  }
}

function novaFields(request: Request, fields: ModelFields): void {
  const reasoning = request.reasoning;
  if (reasoning?.enabled === false || reasoning?.effort === "none") {
    fields.additional.reasoningConfig = { type: "disabled" };
    fields.reasoningSent = true;
  } else {
    const effort = wireEffort(reasoningEffort(reasoning));
    if (effort) fields.additional.reasoningConfig = { type: "enabled", maxReasoningEffort: effort };
    fields.reasoningSent = effort !== undefined;
  }
  if (request.topK !== undefined) {
    fields.additional.inferenceConfig = { topK: request.topK };
    fields.topKSent = true;
  }
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

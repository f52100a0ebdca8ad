// Bedrock's CountTokens (`POST /model/{modelId}/count-tokens`) for a Claude model, which is called
// through InvokeModel: the count is asked for the InvokeModel body itself, sent base64-encoded as
// `{"input": {"invokeModel": {"body": …}}}`, and answered `{"inputTokens": n}` (decode it with
// `bedrockConverse.countTokens.decodeCount`; a Converse model's call is
// `bedrockConverse.countTokens.encodeCountRequest`).
//
// Interface: `invokeModelCountCall(model, countBody, betas?)` → `{path, body}`, from the body the
// messages protocol's counter would be sent (`anthropic` `tokenCounting.encodeCountRequest`): its
// `model` goes (the model is in the path), `anthropic_version: "bedrock-2023-05-31"` and the
// `max_tokens` InvokeModel requires come in (above a thinking budget, which must stay below it), and
// the client's `anthropic-beta` values ride as `anthropic_beta`.

import { modelPath } from "../../protocols/bedrock-converse/encode-request.ts";
import { isObject } from "../../protocols/shared/validate.ts";

export const BEDROCK_ANTHROPIC_VERSION = "bedrock-2023-05-31";

export function invokeModelCountCall(
  model: string,
  countBody: Record<string, unknown>,
  betas: readonly string[] = [],
): { path: string; body: { input: { invokeModel: { body: string } } } } {
  const { model: _model, ...rest } = countBody;
  const budget =
    isObject(rest.thinking) && typeof rest.thinking.budget_tokens === "number"
      ? rest.thinking.budget_tokens
      : 0;
  const invokeBody: Record<string, unknown> = {
    anthropic_version: BEDROCK_ANTHROPIC_VERSION,
    max_tokens: budget + 1,
    ...rest,
  };
  if (betas.length > 0) invokeBody.anthropic_beta = [...betas];
  const body = Buffer.from(JSON.stringify(invokeBody), "utf8").toString("base64");
  return { path: modelPath(model, "count-tokens"), body: { input: { invokeModel: { body } } } };
}

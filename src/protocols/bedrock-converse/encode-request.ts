// IR request → the body of Bedrock's Converse (`POST /model/{modelId}/converse`) or ConverseStream
// (`…/converse-stream`) call. The model travels in the path, URL-encoded (an ARN's `:` and `/`
// included), never in the body.
//
// `inferenceConfig` holds the output limit, temperature, top-p and stop sequences; the model-specific
// rest (reasoning, top-k) goes in `additionalModelRequestFields` (model-fields.ts). What the client
// asked for and the upstream does not get is named in the attempt's `Unsent` where it is left out.
//
// Not named, because nothing the upstream could use is lost: a document's filename or title (they
// become its `name`), a JSON schema's name, `reasoning.exclude` (the client face hides the reasoning),
// `parallel_tool_calls: false` beside tool choice `none`.

import type { Request } from "../../ir/request.ts";
import { asksOneCallPerTurn, leaveOutSettings, Unsent } from "../shared/dropped-fields.ts";
import type { UpstreamCall, UpstreamTarget } from "../types.ts";
import { encodeMessages, encodeSystem } from "./encode-content.ts";
import { encodeOutputFormat, encodeToolConfig } from "./encode-tools.ts";
import { type ModelFamily, modelFamily, modelFields, takesToolResultStatus } from "./model-fields.ts";

/** Claude's thinking budget needs an output limit to stay below when neither client nor catalog gives one. */
const FALLBACK_MAX_TOKENS = 4096;

/** What Converse has no member for, in any model's fields either (nor a web search of its own). */
const UNSAID = [
  "webSearch",
  "frequencyPenalty",
  "presencePenalty",
  "seed",
  "logprobs",
  "user",
  "verbosity",
] as const;

/** `/model/{modelId}/{operation}` with the model id encoded as one path segment. */
export function modelPath(model: string, operation: string): string {
  return `/model/${encodeURIComponent(model)}/${operation}`;
}

export function encodeRequest(req: Request, target: UpstreamTarget, unsent = new Unsent()): UpstreamCall {
  const family = modelFamily(target.model);
  const maxTokens = req.maxOutputTokens ?? target.maxOutputTokens;
  const fields = modelFields(req, family, maxTokens ?? FALLBACK_MAX_TOKENS, unsent);
  leaveOutSettings(unsent, req, UNSAID);
  const body: Record<string, unknown> = { ...encodePrompt(req, family, unsent) };
  const toolConfig = encodeToolConfig(req);
  if (toolConfig) body.toolConfig = toolConfig;
  // One call per turn has no Converse setting.
  unsent.add("parallel_tool_calls", asksOneCallPerTurn(req));

  const inference = inferenceConfig(req, family, { thinkingOn: fields.thinkingOn, maxTokens }, unsent);
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;

  if (Object.keys(fields.additional).length > 0) body.additionalModelRequestFields = fields.additional;
  // Claude says which stop sequence matched only among its own response fields.
  if (family === "claude" && req.stopSequences.length > 0)
    body.additionalModelResponseFieldPaths = ["/stop_sequence"];
  const textFormat = encodeOutputFormat(req);
  if (textFormat) body.outputConfig = { textFormat };
  const path = modelPath(target.model, target.stream ? "converse-stream" : "converse");
  return { path, body };
}

/**
 * `inferenceConfig`: the output limit, temperature, top-p and stop sequences. While Claude thinks it
 * refuses a temperature and a top_p below 0.95 (model-fields.ts), and needs an output limit.
 */
function inferenceConfig(
  req: Request,
  family: ModelFamily,
  { thinkingOn, maxTokens }: { thinkingOn: boolean; maxTokens: number | undefined },
  unsent: Unsent,
): Record<string, unknown> {
  const inference: Record<string, unknown> = {};
  if (maxTokens !== undefined) inference.maxTokens = maxTokens;
  else if (thinkingOn) inference.maxTokens = FALLBACK_MAX_TOKENS;
  if (req.temperature !== undefined) {
    if (thinkingOn) unsent.add("temperature");
    else
      inference.temperature =
        family === "claude" ? Math.min(1, Math.max(0, req.temperature)) : req.temperature;
  }
  if (req.topP !== undefined) {
    if (thinkingOn && req.topP < 0.95) unsent.add("top_p");
    else inference.topP = req.topP;
  }
  if (req.stopSequences.length > 0) inference.stopSequences = req.stopSequences;
  return inference;
}

/** `system` and `messages`: the prompt part of a body, which CountTokens takes too. */
export function encodePrompt(
  req: Request,
  family: ModelFamily,
  unsent: Unsent,
): { system?: object[]; messages: object[] } {
  const system = encodeSystem(req.system, unsent);
  const messages = encodeMessages(req.messages, { toolResultStatus: takesToolResultStatus(family), unsent });
  return system.length > 0 ? { system, messages } : { messages };
}

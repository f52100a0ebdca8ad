// IR request → an upstream call to {base}/v1beta/models/{model}:generateContent (or
// :streamGenerateContent?alt=sse).
//
// - system → systemInstruction; messages → contents (encode-contents.ts).
// - tools → one Tool of functionDeclarations. Parameters go as Gemini `parameters` (Schema) when the
//   JSON Schema has a Schema form, else untouched as `parametersJsonSchema` (docs/architecture.md §10); a
// tool without
//   arguments sends no parameters (Gemini rejects an OBJECT with no properties).
// - toolChoice → functionCallingConfig: auto AUTO, none NONE, required ANY, a named tool ANY with
//   that one allowed name. `parallelToolCalls` has no Gemini form and is not sent.
// - responseFormat: json_object → responseMimeType application/json; json_schema → the same plus
//   responseJsonSchema (the schema as given).
// - reasoning → thinkingConfig (map-reasoning.ts); logprobs → responseLogprobs (+ logprobs).
// - what has no Gemini form is left out and named in the attempt's `Unsent` where it is left out.
//   Not named, because nothing the upstream could use is lost: `redacted_thinking` (another vendor's
//   encrypted reasoning), a document's `filename` and a JSON schema's `name` (labels with no slot
//   here), a tool choice or `parallel_tool_calls` without tools. Reasoning settings are rounded to
//   the model's scale (map-reasoning.ts), never dropped.

import type { Request, ToolChoice, ToolDefinition } from "../../ir/request.ts";
import { cutsStopsItself } from "../../ir/stop-sequences.ts";
import {
  asksOneCallPerTurn,
  leaveOutSettings,
  plainText,
  Unsent,
  usesCacheControl,
} from "../shared/dropped-fields.ts";
import { isObject, type Json } from "../shared/validate.ts";
import { leaveOutLimits, SEARCH_LIMITS } from "../shared/web-search.ts";
import type { UpstreamCall, UpstreamTarget } from "../types.ts";
import { encodeContents } from "./encode-contents.ts";
import { thinkingConfigFromReasoning } from "./map-reasoning.ts";
import { jsonSchemaToGeminiSchema } from "./schema.ts";

/** Gemini takes up to 5 stop sequences (`generationConfig.stopSequences`). */
export const MAX_STOP_SEQUENCES = 5;

export function encodeRequest(request: Request, target: UpstreamTarget, unsent = new Unsent()): UpstreamCall {
  const method = target.stream ? "streamGenerateContent?alt=sse" : "generateContent";
  // Nothing in a Gemini request carries a prompt-cache marker, an end user or a verbosity.
  unsent.add("cache_control", usesCacheControl(request));
  leaveOutSettings(unsent, request, ["user", "verbosity"]);
  const body: Json = { contents: encodeContents(request.messages, target.model, unsent) };
  if (request.system.length > 0)
    body.systemInstruction = { parts: request.system.map((block) => ({ text: plainText(block, unsent) })) };
  const tools: Json[] = [];
  if (request.tools.length > 0) {
    tools.push({ functionDeclarations: request.tools.map((tool) => functionDeclaration(tool, unsent)) });
    if (request.toolChoice)
      body.toolConfig = { functionCallingConfig: functionCallingConfig(request.toolChoice) };
    // One call per turn has no Gemini setting.
    unsent.add("parallel_tool_calls", asksOneCallPerTurn(request));
  }
  if (request.webSearch) {
    // Grounding with Google Search takes no limits (§13c).
    tools.push({ googleSearch: {} });
    leaveOutLimits(unsent, request.webSearch, SEARCH_LIMITS);
  }
  if (tools.length > 0) body.tools = tools;
  const generationConfig = encodeGenerationConfig(request, target, unsent);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return { path: `/v1beta/models/${target.model}:${method}`, body };
}

function functionDeclaration(tool: ToolDefinition, unsent: Unsent): Json {
  unsent.add("tools[].strict", tool.strict === true);
  const declaration: Json = { name: tool.name };
  if (tool.description !== undefined) declaration.description = tool.description;
  if (takesNoArguments(tool.parameters)) return declaration;
  const schema = jsonSchemaToGeminiSchema(tool.parameters);
  if (schema) declaration.parameters = schema;
  else declaration.parametersJsonSchema = tool.parameters;
  return declaration;
}

/** `{type: "object", properties: {}}` and its decorated variants: nothing for the model to fill in. */
function takesNoArguments(schema: Record<string, unknown>): boolean {
  const allowed = new Set([
    "type",
    "properties",
    "required",
    "additionalProperties",
    "$schema",
    "title",
    "description",
  ]);
  if (!Object.keys(schema).every((key) => allowed.has(key))) return false;
  if (schema.type !== undefined && schema.type !== "object") return false;
  if (
    schema.properties !== undefined &&
    (!isObject(schema.properties) || Object.keys(schema.properties).length > 0)
  )
    return false;
  return schema.additionalProperties === undefined || schema.additionalProperties === false;
}

function functionCallingConfig(choice: ToolChoice): Json {
  switch (choice.type) {
    case "auto":
      return { mode: "AUTO" };
    case "none":
      return { mode: "NONE" };
    case "required":
      return { mode: "ANY" };
    case "tool":
      return { mode: "ANY", allowedFunctionNames: [choice.name] };
  }
}

function encodeGenerationConfig(
  request: Request,
  target: { model: string; maxOutputTokens?: number },
  unsent: Unsent,
): Json {
  const config: Json = {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) config[key] = value;
  };
  set("temperature", request.temperature);
  set("topP", request.topP);
  set("topK", request.topK);
  set("maxOutputTokens", request.maxOutputTokens ?? target.maxOutputTokens);
  if (request.stopSequences.length > 0 && !cutsStopsItself(request.stopSequences, MAX_STOP_SEQUENCES))
    config.stopSequences = request.stopSequences;
  set("presencePenalty", request.presencePenalty);
  set("frequencyPenalty", request.frequencyPenalty);
  set("seed", request.seed);
  const format = request.responseFormat;
  if (format?.type === "json_object" || format?.type === "json_schema")
    config.responseMimeType = "application/json";
  if (format?.type === "json_schema") {
    config.responseJsonSchema = format.schema;
    unsent.add("response_format.json_schema.description", format.description !== undefined);
  }
  if (request.logprobs) {
    config.responseLogprobs = true;
    set("logprobs", request.logprobs.topLogprobs);
  }
  set("thinkingConfig", thinkingConfigFromReasoning(request.reasoning, target.model));
  return config;
}

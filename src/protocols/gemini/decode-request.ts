// Client → IR: a `generateContent` / `streamGenerateContent` body. The model and the streaming flag
// come from the path (the server resolves them and passes them in the context). Fields with no IR
// form (safetySettings, cachedContent, Gemini's server-side tools, output media settings…) are
// dropped and named in `ignored`, which the server reports in `x-switchyard-ignored`.

import { invalid } from "../../ir/errors.ts";
import type { Request, TextBlock } from "../../ir/request.ts";
import { expectArray, expectObject, expectString, setIfDefined } from "../shared/validate.ts";
import type { DecodeContext } from "../types.ts";
import { decodeContents } from "./decode-contents.ts";
import { decodeGenerationConfig } from "./decode-generation-config.ts";
import { decodeToolConfig, decodeTools, decodeWebSearchTool } from "./decode-tools.ts";
import { camelName, field } from "./read-field.ts";
import { checkSafetySettings } from "./safety-settings.ts";

const READ = new Set(["contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "model"]);

export function decodeRequest(body: unknown, ctx: DecodeContext): Request {
  const root = expectObject(body, "body");
  if (ctx.pathModel === undefined || ctx.pathModel === "")
    throw invalid("model", "the path must name a model");
  const ignored = new Set<string>();
  for (const key of Object.keys(root)) {
    const name = camelName(key);
    if (!READ.has(name) && root[key] !== null) ignored.add(name);
  }
  checkSafetySettings(field(root, "safetySettings"));
  const messages = decodeContents(field(root, "contents"), ignored);
  const declared = decodeTools(field(root, "tools"), ignored);
  const { tools, toolChoice } = decodeToolConfig(field(root, "toolConfig"), declared, ignored);
  const config = decodeGenerationConfig(field(root, "generationConfig"), ignored);
  const request: Request = {
    model: ctx.pathModel,
    system: decodeSystemInstruction(field(root, "systemInstruction")),
    messages,
    tools,
    ...config,
    stream: ctx.pathStream === true,
    // Gemini streams always carry usageMetadata.
    streamUsage: true,
    ignored: [...ignored],
  };
  if (toolChoice) request.toolChoice = toolChoice;
  setIfDefined(request, "webSearch", decodeWebSearchTool(field(root, "tools")));
  return request;
}

function decodeSystemInstruction(value: unknown): TextBlock[] {
  if (value === undefined || value === null) return [];
  const at = "systemInstruction";
  const content = expectObject(value, at);
  const system: TextBlock[] = [];
  expectArray(content.parts, `${at}.parts`).forEach((item, i) => {
    const part = expectObject(item, `${at}.parts[${i}]`);
    const text = expectString(part.text, `${at}.parts[${i}].text`);
    if (text !== "") system.push({ type: "text", text });
  });
  return system;
}

// Client → IR: `tools` and `toolConfig`.
//
// functionDeclarations become IR tools; `parameters` (Gemini Schema) is converted to JSON Schema,
// `parametersJsonSchema` is taken as it is. Gemini's own server-side tools (googleSearch,
// codeExecution, urlContext…) have no IR form: dropped and named in `ignored`.
//
// functionCallingConfig.mode: AUTO → auto, NONE → none, ANY → required (a named tool when exactly one
// name is allowed), VALIDATED → auto (the model may answer in text; argument validation is the
// upstream's business). `allowedFunctionNames` (ANY, VALIDATED) narrows the IR tools to those names:
// the IR has no "any of these" choice, and a model offered only those tools can call only those.

import { invalid } from "../../ir/errors.ts";
import type { ToolChoice, ToolDefinition, WebSearchSettings } from "../../ir/request.ts";
import { checkJsonSchema } from "../shared/json-schema.ts";
import { expectArray, expectObject, expectString, isObject, optionalString } from "../shared/validate.ts";
import { decodeDomains } from "../shared/web-search.ts";
import { camelName, field } from "./read-field.ts";
import { geminiSchemaToJsonSchema, readGeminiJsonSchema } from "./schema.ts";

/** `googleSearch`, and `googleSearchRetrieval`, its form for 1.5 models. */
const SEARCH_TOOLS = new Set(["googleSearch", "googleSearchRetrieval"]);

/**
 * Grounding with Google Search → the IR's webSearch, which any upstream with search runs
 * (docs/translation.md §13c); `excludeDomains` (Vertex) is its blocked domains.
 */
export function decodeWebSearchTool(value: unknown): WebSearchSettings | undefined {
  if (!Array.isArray(value)) return undefined;
  for (const [i, item] of value.entries()) {
    if (!isObject(item)) continue;
    for (const [key, entry] of Object.entries(item)) {
      if (!SEARCH_TOOLS.has(camelName(key))) continue;
      const search: WebSearchSettings = {};
      const options = isObject(entry) ? entry : {};
      const blocked = decodeDomains(field(options, "excludeDomains"), `tools[${i}].${key}.excludeDomains`);
      if (blocked) search.blockedDomains = blocked;
      return search;
    }
  }
  return undefined;
}

export function decodeTools(value: unknown, ignored: Set<string>): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const tools: ToolDefinition[] = [];
  expectArray(value, "tools").forEach((item, i) => {
    const tool = expectObject(item, `tools[${i}]`);
    for (const [key, entry] of Object.entries(tool)) {
      const name = camelName(key);
      if (name !== "functionDeclarations") {
        // Google Search grounding becomes the IR's webSearch (decodeWebSearchTool).
        if (!SEARCH_TOOLS.has(name)) ignored.add(`tools.${name}`);
        continue;
      }
      expectArray(entry, `tools[${i}].functionDeclarations`).forEach((declaration, j) => {
        tools.push(decodeDeclaration(declaration, `tools[${i}].functionDeclarations[${j}]`));
      });
    }
  });
  return tools;
}

function decodeDeclaration(value: unknown, at: string): ToolDefinition {
  const declaration = expectObject(value, at);
  const name = expectString(declaration.name, `${at}.name`);
  if (name === "") throw invalid(`${at}.name`, "must not be empty");
  const description = optionalString(declaration.description, `${at}.description`);
  const schema = field(declaration, "parameters");
  const jsonSchema = field(declaration, "parametersJsonSchema");
  const hasSchema = schema !== undefined && schema !== null;
  const hasJsonSchema = jsonSchema !== undefined && jsonSchema !== null;
  if (hasSchema && hasJsonSchema)
    throw invalid(`${at}.parametersJsonSchema`, "cannot be combined with parameters");
  let parameters: Record<string, unknown> = { type: "object", properties: {} };
  if (hasSchema) {
    parameters = geminiSchemaToJsonSchema(schema, `${at}.parameters`);
    // What the conversion copies as it is (keywords Schema does not know) must be sound too.
    checkJsonSchema(parameters, `${at}.parameters`);
  } else if (hasJsonSchema) {
    parameters = readGeminiJsonSchema(jsonSchema, `${at}.parametersJsonSchema`);
  }
  const tool: ToolDefinition = { name, parameters };
  if (description !== undefined) tool.description = description;
  return tool;
}

const MODES = ["MODE_UNSPECIFIED", "AUTO", "ANY", "NONE", "VALIDATED"];

export interface DecodedToolConfig {
  toolChoice?: ToolChoice;
  /** The tools left once `allowedFunctionNames` applies. */
  tools: ToolDefinition[];
}

export function decodeToolConfig(
  value: unknown,
  tools: ToolDefinition[],
  ignored: Set<string>,
): DecodedToolConfig {
  if (value === undefined || value === null) return { tools };
  const config = expectObject(value, "toolConfig");
  for (const key of Object.keys(config))
    if (camelName(key) !== "functionCallingConfig") ignored.add(`toolConfig.${camelName(key)}`);
  const calling = field(config, "functionCallingConfig");
  if (calling === undefined || calling === null) return { tools };
  const at = "toolConfig.functionCallingConfig";
  const settings = expectObject(calling, at);
  const mode = (optionalString(settings.mode, `${at}.mode`) ?? "AUTO").toUpperCase();
  if (!MODES.includes(mode)) throw invalid(`${at}.mode`, `must be one of ${MODES.join(", ")}`);
  const allowedValue = field(settings, "allowedFunctionNames");
  const allowed =
    allowedValue === undefined || allowedValue === null
      ? undefined
      : expectArray(allowedValue, `${at}.allowedFunctionNames`).map((name, i) => {
          const at_i = `${at}.allowedFunctionNames[${i}]`;
          const text = expectString(name, at_i);
          if (!tools.some((tool) => tool.name === text))
            throw invalid(at_i, `no function named ${text} is declared`);
          return text;
        });
  if (mode === "NONE") return { toolChoice: { type: "none" }, tools };
  if (mode === "AUTO" || mode === "MODE_UNSPECIFIED") return { toolChoice: { type: "auto" }, tools };
  const narrowed =
    allowed && allowed.length > 0 ? tools.filter((tool) => allowed.includes(tool.name)) : tools;
  if (mode === "VALIDATED") return { toolChoice: { type: "auto" }, tools: narrowed };
  if (allowed?.length === 1) return { toolChoice: { type: "tool", name: allowed[0] }, tools: narrowed };
  return { toolChoice: { type: "required" }, tools: narrowed };
}

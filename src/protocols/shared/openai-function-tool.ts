// An OpenAI function definition (`{name, description?, parameters?, strict?}`), which chat-completions
// nests under `function` and the Responses API writes flat on the tool: one decoding for both.

import { invalid } from "../../ir/errors.ts";
import type { ToolDefinition } from "../../ir/request.ts";
import { checkJsonSchema } from "./json-schema.ts";
import { expectObject, expectString, optionalString } from "./validate.ts";

/** OpenAI's function names, in both APIs: a translated request's others are fitted to them (src/ir/tool-names.ts). */
export const OPENAI_FUNCTION_NAMES = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The definition at `at` as an IR tool, `strict` aside: the two APIs differ on what a `false`
 * means, so each caller reads it.
 */
export function decodeFunctionDefinition(fn: Record<string, unknown>, at: string): ToolDefinition {
  const name = expectString(fn.name, `${at}.name`);
  // Only emptiness is checked: each upstream has its own name rules, and the upstream says which.
  if (!name) throw invalid(`${at}.name`, "must not be empty");
  const definition: ToolDefinition = {
    name,
    // OpenAI: "Omitting parameters defines a function with an empty parameter list."
    parameters:
      fn.parameters === undefined || fn.parameters === null
        ? { type: "object", properties: {} }
        : expectObject(fn.parameters, `${at}.parameters`),
  };
  checkJsonSchema(definition.parameters, `${at}.parameters`);
  const description = optionalString(fn.description, `${at}.description`);
  if (description !== undefined) definition.description = description;
  return definition;
}

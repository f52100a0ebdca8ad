// `thinking` and `output_config` of a messages-protocol request → IR reasoning settings and output format.

import { invalid } from "../../ir/errors.ts";
import type { ReasoningEffort, ReasoningSettings, ResponseFormat } from "../../ir/request.ts";
import { checkJsonSchema } from "../shared/json-schema.ts";
import { expectNumber, expectObject, isObject } from "../shared/validate.ts";
import { INTERLEAVED_THINKING_BETA } from "./headers.ts";

const MIN_BUDGET = 1024;

/**
 * `interleaved`: the interleaved-thinking beta was sent, so the budget may exceed max_tokens (its
 * bound is then the model's context window, checked once the model is known: check-model.ts).
 */
export function decodeThinking(
  value: unknown,
  maxTokens: number,
  ignored: string[],
  interleaved = false,
): ReasoningSettings | undefined {
  if (value === undefined || value === null) return undefined;
  const thinking = expectObject(value, "thinking");
  if (thinking.display !== undefined && thinking.display !== null) {
    // Only how thinking is shown, never what is generated, and its values grow with each release
    // (Claude Code 2.1 streams "updates"): any string is taken and named as ignored.
    if (typeof thinking.display !== "string") throw invalid("thinking.display", "must be a string");
    ignored.push("thinking.display");
  }
  switch (thinking.type) {
    case "enabled": {
      const budget = expectNumber(thinking.budget_tokens, "thinking.budget_tokens", {
        integer: true,
        min: MIN_BUDGET,
      });
      if (budget >= maxTokens && !interleaved)
        throw invalid(
          "thinking.budget_tokens",
          `must be less than max_tokens (${maxTokens}), unless \`anthropic-beta: ${INTERLEAVED_THINKING_BETA}\` is sent`,
        );
      return { enabled: true, budgetTokens: budget };
    }
    case "disabled":
      return { enabled: false };
    case "adaptive":
      return { enabled: true, adaptive: true };
    default:
      throw invalid("thinking.type", 'must be "enabled", "disabled" or "adaptive"');
  }
}

/** Wire effort → IR effort; `max` is the top level, which the IR calls `xhigh`. */
const EFFORTS: Record<string, ReasoningEffort> = {
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
  max: "xhigh",
};

export interface DecodedOutputConfig {
  effort?: ReasoningEffort;
  format?: ResponseFormat;
}

/** `output_config` (and the older beta spelling `output_format`, same shape as `output_config.format`). */
export function decodeOutputConfig(
  outputConfig: unknown,
  outputFormat: unknown,
  ignored: string[],
): DecodedOutputConfig {
  const decoded: DecodedOutputConfig = {};
  if (outputFormat !== undefined && outputFormat !== null)
    decoded.format = decodeFormat(outputFormat, "output_format");
  if (outputConfig === undefined || outputConfig === null) return decoded;
  const config = expectObject(outputConfig, "output_config");
  for (const key of Object.keys(config))
    if (key !== "effort" && key !== "format") ignored.push(`output_config.${key}`);
  if (config.effort !== undefined && config.effort !== null) {
    const effort = typeof config.effort === "string" ? EFFORTS[config.effort] : undefined;
    if (!effort) throw invalid("output_config.effort", 'must be "low", "medium", "high", "xhigh" or "max"');
    decoded.effort = effort;
  }
  if (config.format !== undefined && config.format !== null)
    decoded.format = decodeFormat(config.format, "output_config.format");
  return decoded;
}

function decodeFormat(value: unknown, param: string): ResponseFormat {
  const format = expectObject(value, param);
  if (format.type !== "json_schema") throw invalid(`${param}.type`, 'must be "json_schema"');
  if (!isObject(format.schema)) throw invalid(`${param}.schema`, "must be an object");
  checkJsonSchema(format.schema, `${param}.schema`);
  return { type: "json_schema", schema: format.schema };
}

// Header rules of POST /v1/messages (docs/architecture.md §8): only version 2023-06-01 is served, and the
// code-execution beta is refused because the code_execution tool is not available.

import { invalid } from "../../ir/errors.ts";
import { headerList, headerValue } from "../shared/validate.ts";
import type { Headers } from "../types.ts";

export const SUPPORTED_VERSION = "2023-06-01";
/**
 * The beta under which thinking interleaves with tool calls: the budget then spans the whole turn,
 * so it may exceed max_tokens, up to the model's context window (the provider's documented rule).
 */
export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";
const REFUSED_BETAS = new Set(["code-execution-2025-08-25"]);

/** A header by name, whatever the case its keys were stored in. */
function header(headers: Headers, name: string): string | string[] | undefined {
  if (headers[name] !== undefined) return headers[name];
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** The `anthropic-beta` values sent (comma-separated, repeated, or under the neutral alias). */
export function messagesBetas(headers: Headers): string[] {
  return [...headerList(header(headers, "anthropic-beta")), ...headerList(header(headers, "vendora-beta"))];
}

/**
 * Throws the 400 the client must see when its version or beta headers cannot be served. Besides
 * 2023-06-01, the versions an operator named (`clients.anthropic_versions`) are served, with
 * 2023-06-01's semantics: `@anthropic-ai/sdk` 1.x sends a newer one on every call.
 */
export function checkMessagesHeaders(headers: Headers, accepted?: ReadonlySet<string>): void {
  const version = headerValue(header(headers, "anthropic-version") ?? header(headers, "vendora-version"));
  const fix = `set the header \`anthropic-version: ${SUPPORTED_VERSION}\``;
  if (version === undefined || version.trim() === "")
    throw invalid("anthropic-version", `header is required; ${fix}`);
  const v = version.trim();
  if (v !== SUPPORTED_VERSION && !accepted?.has(v))
    throw invalid(
      "anthropic-version",
      `version "${v}" is not supported; ${fix} (an operator may accept it, served as ` +
        `${SUPPORTED_VERSION}, in the gateway's \`clients.anthropic_versions\` setting)`,
    );

  for (const beta of messagesBetas(headers))
    if (REFUSED_BETAS.has(beta))
      throw invalid("anthropic-beta", `"${beta}" is not supported (the code execution tool is unavailable)`);
}

// Header rules of POST /v1/messages (docs/architecture.md §8): only version 2023-06-01 is served, and the
// code-execution beta is refused because the code_execution tool is not available. The one home of the
// header names: `anthropic-version` and `anthropic-beta`, each also under its neutral alias, are read
// here only, so what is checked is what is forwarded.

import { invalid } from "../../ir/errors.ts";
import { headerList, headerValue } from "../shared/validate.ts";
import type { IncomingHeaders } from "../types.ts";

export const SUPPORTED_VERSION = "2023-06-01";
/**
 * The beta under which thinking interleaves with tool calls: the budget then spans the whole turn,
 * so it may exceed max_tokens, up to the model's context window (the provider's documented rule).
 */
export const INTERLEAVED_THINKING_BETA = "interleaved-thinking-2025-05-14";
const REFUSED_BETAS = new Set(["code-execution-2025-08-25"]);

/** The neutral spelling accepted for each real header name. */
const ALIASES = { "anthropic-version": "vendora-version", "anthropic-beta": "vendora-beta" } as const;

/** A header by name, whatever the case its keys were stored in. */
function header(headers: IncomingHeaders, name: string): string | string[] | undefined {
  const value = headers[name];
  if (value !== undefined || lowerCased(headers)) return value;
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/** Header objects seen to have only lower-case keys (node:http's always do): looked up directly. */
const LOWER_CASED = new WeakSet<IncomingHeaders>();

function lowerCased(headers: IncomingHeaders): boolean {
  if (LOWER_CASED.has(headers)) return true;
  for (const key in headers) if (key !== key.toLowerCase()) return false;
  LOWER_CASED.add(headers);
  return true;
}

/** The `anthropic-beta` values sent (comma-separated, repeated, or under the neutral alias). */
export function messagesBetas(headers: IncomingHeaders): string[] {
  return [
    ...headerList(header(headers, "anthropic-beta")),
    ...headerList(header(headers, ALIASES["anthropic-beta"])),
  ];
}

/** The `anthropic-version` sent (the real name first, then its alias). */
function messagesVersion(headers: IncomingHeaders): string | undefined {
  return headerValue(header(headers, "anthropic-version") ?? header(headers, ALIASES["anthropic-version"]));
}

/** A messages client names its version on every call; listings answer it in the messages shape. */
export function isMessagesClient(headers: IncomingHeaders): boolean {
  return messagesVersion(headers) !== undefined;
}

/**
 * Throws the 400 the client must see when its version or beta headers cannot be served. Besides
 * 2023-06-01, the versions an operator named (`clients.anthropic_versions`) are served, with
 * 2023-06-01's semantics: `@anthropic-ai/sdk` 1.x sends a newer one on every call.
 */
export function checkMessagesHeaders(headers: IncomingHeaders, accepted?: ReadonlySet<string>): void {
  const version = messagesVersion(headers);
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

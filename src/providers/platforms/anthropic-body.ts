// Anthropic's messages body as Bedrock and Vertex take it: no `model` (the model is in the path), the
// platform's `anthropic_version` in the body, and the `anthropic-beta` header's values as the body's
// `anthropic_beta` list. Targeted edits, so the rest of a relayed body goes on byte for byte.

import { editJson } from "../../protocols/shared/json-edit.ts";

/**
 * The body and headers for the platform. `remove` names the members it refuses (`model`, and on
 * Bedrock's InvokeModel `stream`: its streaming is the path's).
 */
export function platformMessagesCall(
  body: string,
  headers: Record<string, string>,
  version: string,
  remove: string[],
): { body: string; headers: Record<string, string> } {
  const { betas, headers: rest } = platformBetas(headers);
  const set: Record<string, string> = { anthropic_version: JSON.stringify(version) };
  if (betas.length > 0) set.anthropic_beta = JSON.stringify(betas);
  return { body: editJson(body, { set, remove }), headers: rest };
}

/** The `anthropic-beta` header's values as a list, and the headers left without it and `anthropic-version`. */
export function platformBetas(headers: Record<string, string>): {
  betas: string[];
  headers: Record<string, string>;
} {
  const { "anthropic-beta": betas, "anthropic-version": _version, ...rest } = headers;
  return { betas: betas ? betas.split(",").map((beta) => beta.trim()) : [], headers: rest };
}

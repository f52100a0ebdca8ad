// Gemini's OpenAI-compatible endpoint carries a tool call's thought signature as
// `extra_content.google.thought_signature` on the call (docs/architecture.md §10: Gemini thoughtSignature).
// Read on every path a tool call comes in by; written on calls sent upstream.

import { isObject } from "../shared/validate.ts";

export function geminiThoughtSignature(call: Record<string, unknown>): string | undefined {
  const extra = call.extra_content;
  if (!isObject(extra) || !isObject(extra.google)) return undefined;
  const signature = extra.google.thought_signature;
  return typeof signature === "string" && signature ? signature : undefined;
}

export function geminiExtraContent(signature: string): { google: { thought_signature: string } } {
  return { google: { thought_signature: signature } };
}

// OpenAI's `metadata` request member, as chat-completions, the Responses API and conversations take it.

import { invalid } from "../../ir/errors.ts";
import { expectObject, expectString, present } from "./validate.ts";

/** OpenAI's `metadata`: at most 16 pairs, keys up to 64 characters, string values up to 512. */
export function decodeMetadata(value: unknown): Record<string, string> {
  if (!present(value)) return {};
  const entries = Object.entries(expectObject(value, "metadata"));
  if (entries.length > 16) throw invalid("metadata", "must hold at most 16 key-value pairs");
  for (const [key, text] of entries) {
    if (key.length > 64) throw invalid("metadata", "keys must be at most 64 characters");
    if (expectString(text, `metadata.${key}`).length > 512)
      throw invalid(`metadata.${key}`, "must be at most 512 characters");
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

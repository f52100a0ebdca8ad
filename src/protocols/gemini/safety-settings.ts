// `safetySettings`: checked against the API's enums (docs/architecture.md §8) (a 400 naming the item's field), then dropped
// and named by the decoder (no other protocol has a place for them; a relay forwards them).

import { invalid } from "../../ir/errors.ts";
import { expectArray, expectObject, expectString } from "../shared/validate.ts";
import { field } from "./read-field.ts";

const CATEGORIES = [
  "HARM_CATEGORY_UNSPECIFIED",
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_SEXUALLY_EXPLICIT",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
  // Not in the API's SafetySetting list, but it names the category in safety ratings, Google's API
  // takes it, and many clients send all five categories: refusing it would break them.
  "HARM_CATEGORY_CIVIC_INTEGRITY",
];
const THRESHOLDS = [
  "OFF",
  "BLOCK_NONE",
  "BLOCK_ONLY_HIGH",
  "BLOCK_MEDIUM_AND_ABOVE",
  "BLOCK_LOW_AND_ABOVE",
  "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
];
const METHODS = ["HARM_BLOCK_METHOD_UNSPECIFIED", "SEVERITY", "PROBABILITY"];

export function checkSafetySettings(value: unknown): void {
  if (value === undefined || value === null) return;
  expectArray(value, "safetySettings").forEach((item, i) => {
    const at = `safetySettings[${i}]`;
    const setting = expectObject(item, at);
    oneOf(setting, "category", CATEGORIES, at, true);
    oneOf(setting, "threshold", THRESHOLDS, at, true);
    oneOf(setting, "method", METHODS, at, false);
  });
}

function oneOf(
  setting: Record<string, unknown>,
  name: string,
  allowed: string[],
  at: string,
  required: boolean,
): void {
  const value = field(setting, name);
  if (value === undefined || value === null) {
    if (required) throw invalid(`${at}.${name}`, "is required");
    return;
  }
  if (!allowed.includes(expectString(value, `${at}.${name}`)))
    throw invalid(`${at}.${name}`, `must be one of ${allowed.join(", ")}`);
}

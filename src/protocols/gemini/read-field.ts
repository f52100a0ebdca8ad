// Google's JSON parsers accept a field under its lowerCamel name or its proto (snake_case) name, and
// the official docs' curl examples use both (`system_instruction`, `inline_data`, `generationConfig`).
// The SDKs send lowerCamel. Structural fields are therefore read under either spelling; free-form
// values (function args, function responses, JSON Schemas) are never renamed.

import type { Json } from "../shared/validate.ts";

const snakeCache = new Map<string, string>();

function snakeCase(camel: string): string {
  let snake = snakeCache.get(camel);
  if (snake === undefined) {
    snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(camel, snake);
  }
  return snake;
}

/** The value of `camelName` in `obj`, or of its snake_case spelling when the camel one is absent. */
export function field(obj: Json, camelName: string): unknown {
  const value = obj[camelName];
  return value === undefined ? obj[snakeCase(camelName)] : value;
}

/** The lowerCamel name of a key that may be written in snake_case (for naming ignored fields). */
export function camelName(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

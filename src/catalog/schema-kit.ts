// The pieces the configuration and catalog schemas are built from, and the one place a schema failure
// becomes the single line a user reads: `providers[0].api-key: unknown key; did you mean api_key?`.
//
// Every object is strict (unknown keys refused at any depth). Messages come from `problemMessage`, given
// to zod at parse time, so each schema states only its rule; a schema sets its own `error` only where
// the generic phrase would say less (a price's unit of account, a model id's form).

import { z } from "zod";

declare module "zod" {
  interface GlobalMeta {
    /** The default as prose, when it is not a fixed value (`the id's part before the first /`). */
    defaultText?: string;
    /** What the value is, for the docs' Type column, when the schema alone does not say it well. */
    type?: string;
    /**
     * An object whose keys all take the same value (price categories): the docs describe it once,
     * under this placeholder, and list the keys.
     */
    docKey?: string;
  }
}

/** A problem at one key path, ready to print. */
export interface Problem {
  /** `providers[0].timeouts.first_byte_ms`; empty for the document itself. */
  path: string;
  problem: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/**
 * Parses `value`; on failure returns the one problem to report. An unknown key is reported before
 * anything else: a misspelt key is usually also why some required key seems missing.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): Parsed<z.output<S>> {
  const result = schema.safeParse(value, { error: problemMessage });
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues;
  const issue = issues.find((i) => i.code === "unrecognized_keys") ?? issues[0];
  const path = [...issue.path];
  if (issue.code === "unrecognized_keys") path.push(issue.keys[0]);
  return { ok: false, problem: { path: formatPath(path), problem: issue.message } };
}

/** `["providers", 0, "api_key"]` → `providers[0].api_key`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

const TYPE_PHRASES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "a mapping",
  array: "a list",
  date: "a date",
};

/** The generic phrase for each kind of failure; a schema's own `error` takes precedence over it. */
function problemMessage(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${TYPE_PHRASES[issue.expected] ?? issue.expected}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${String(issue.values[0])}`
        : `must be one of ${issue.values.map(String).join(", ")}`;
    case "unrecognized_keys": {
      const shape = (issue.inst as z.ZodObject | undefined)?._zod.def.shape ?? {};
      return unknownKeyMessage(issue.keys[0], Object.keys(shape));
    }
    case "too_small":
      if (issue.origin === "array")
        return issue.minimum === 1 ? "must be a non-empty list" : `must hold at least ${issue.minimum} items`;
      if (issue.origin === "string")
        return issue.minimum === 1
          ? "must be a non-empty string"
          : `must be at least ${issue.minimum} characters`;
      return `must be ${issue.inclusive ? ">=" : ">"} ${issue.minimum}`;
    case "too_big":
      return `must be ${issue.inclusive ? "<=" : "<"} ${issue.maximum}`;
    default:
      return undefined;
  }
}

// ─── unknown keys ─────────────────────────────────────────────────────────────────────────────

/** `unknown key; did you mean api_key?` when one valid key is close, else the valid keys. */
export function unknownKeyMessage(key: string, valid: readonly string[]): string {
  const near = closestKey(key, valid);
  if (near !== undefined) return `unknown key; did you mean ${near}?`;
  return `unknown key; valid keys are ${valid.join(", ")}`;
}

/**
 * The valid key a typo most likely meant: at most two edits away (one for keys of three letters or
 * fewer), comparing case-blind and with `-` as `_` (so `api-key` finds `api_key`, `prot` finds `port`),
 * or the key with its unit left off (`cooldown` finds `cooldown_ms`). Further than that a guess
 * misleads more than it helps (`input_cache_hit` is not `input_cache_write`).
 */
export function closestKey(key: string, valid: readonly string[]): string | undefined {
  const norm = (s: string) => s.toLowerCase().replaceAll("-", "_");
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of valid) {
    const withoutSuffix = norm(candidate).startsWith(`${norm(key)}_`);
    const d = withoutSuffix ? 1 : editDistance(norm(key), norm(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return bestDistance <= (key.length <= 3 ? 1 : 2) ? best : undefined;
}

/** Levenshtein distance counting a swap of two neighbours as one edit (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

// ─── value builders ───────────────────────────────────────────────────────────────────────────

/**
 * An integer in [min, max]. Digit strings count too: `${PORT}` substitutes text, and a port read from
 * the environment is still a port.
 */
export function int(opts: { min: number; max?: number }) {
  const { min, max } = opts;
  const phrase =
    max !== undefined
      ? `must be an integer between ${min} and ${max}`
      : min === 1
        ? "must be a positive integer"
        : `must be an integer >= ${min}`;
  const type = max !== undefined ? `integer ${min}–${max}` : min === 1 ? "integer > 0" : `integer ≥ ${min}`;
  let schema = z.int({ error: requiredOr(phrase) }).min(min, { error: phrase });
  if (max !== undefined) schema = schema.max(max, { error: phrase });
  return z
    .preprocess((v) => (typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v), schema)
    .meta({ type });
}

/** true or false; the strings "true" and "false" too, for values that come from `${VAR}`. */
export function flag() {
  return z.preprocess(
    (v) => (v === "true" ? true : v === "false" ? false : v),
    z.boolean({ error: requiredOr("must be true or false") }),
  );
}

/** A string with something other than spaces in it. */
export function text() {
  return z
    .string({ error: requiredOr("must be a non-empty string") })
    .regex(/\S/, { error: "must be a non-empty string" });
}

/**
 * A schema-level message for a present but wrong value; an absent required value still says
 * "is required" (a schema's own `error` would otherwise speak for that case too).
 */
export function requiredOr(message: string) {
  return (issue: z.core.$ZodRawIssue): string | undefined =>
    issue.code === "invalid_type" && issue.input === undefined ? undefined : message;
}

/** For an object schema: `message` when the value is not a mapping; other problems keep their phrase. */
export function notAMapping(message: string) {
  return (issue: z.core.$ZodRawIssue): string | undefined =>
    issue.code === "invalid_type" && issue.input !== undefined ? message : undefined;
}

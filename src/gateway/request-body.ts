// A request body from its text to JSON: refused when empty, and checked for a costly shape before
// it is parsed (docs/operations.md, the front door's table).

import { setImmediate as nextTurn } from "node:timers/promises";
import { invalid } from "../ir/errors.ts";
import { closingQuote } from "../protocols/shared/text.ts";

export function bodyText(body: string | undefined): string {
  if (!body) throw invalid("body", "the request body is empty; send a JSON object.");
  return body;
}

/**
 * What a body may hold: far past any real request (tool schemas stop at 64 levels of nesting; a
 * request object has tens of members, a JSON schema's `properties` hundreds; a long agent session
 * is thousands of messages of a few objects each). What parsing and reading a body costs grows with
 * its objects and arrays, not its bytes: 27 MB of 800,000 short messages held the event loop for
 * about 2 s, 27 MB of one base64 image costs milliseconds.
 */
const BODY_LIMITS = { depth: 1000, members: 10_000, containers: 100_000 };
/**
 * Bodies longer than this have their shape checked before they are parsed. JSON.parse takes any
 * shape, but slowly, and what reads the body afterwards works in proportion: a 2.5 MB body of nested
 * arrays held the event loop for about 0.4 s (then what walks the body recursed until the stack
 * overflowed), and a 4 MB body of 150,000 unknown keys for about 0.4 s (parsed, then each key named
 * by the decoder). A shorter body cannot cost much either way, so the check stays off the common path.
 */
const SHAPE_CHECK_FROM = 256 * 1024;

/**
 * From this length a body is parsed in two turns of the event loop: its shape check (which first
 * joins the body's reads into one string: ~20 ms for 30 MiB), then the parse (~25 ms for 30 MiB).
 * Done at once, the two held every other request for the sum (BENCHMARKS.md, "Session 10: large
 * bodies").
 */
const PARSED_IN_TURNS_FROM = 1024 * 1024;

export function parseJson(text: string): unknown {
  if (text.length > SHAPE_CHECK_FROM) checkShape(text);
  return parsed(text);
}

/**
 * A client's body as JSON: parsed at once when short, in turns when long (a promise then; JSON.parse
 * never returns one, so `instanceof Promise` tells them apart without an await on the common path).
 */
export function parseBody(text: string): unknown {
  return text.length < PARSED_IN_TURNS_FROM ? parseJson(text) : parseLongJson(text);
}

/** parseJson for a body of PARSED_IN_TURNS_FROM or more: the check, a turn, the parse. */
export async function parseLongJson(text: string): Promise<unknown> {
  checkShape(text);
  await nextTurn();
  return parsed(text);
}

function checkShape(text: string): void {
  const costly = costlyShape(text, BODY_LIMITS);
  if (costly === "depth") throw invalid("body", "the JSON is nested too deeply.");
  if (costly === "members")
    throw invalid("body", `an object in the JSON has more than ${BODY_LIMITS.members} members.`);
  if (costly === "containers")
    throw invalid("body", `the JSON has more than ${BODY_LIMITS.containers} objects and arrays.`);
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalid("body", `the request body is not valid JSON: ${(err as Error).message}`);
  }
}

export interface ShapeLimits {
  /** Arrays and objects inside one another. */
  depth: number;
  /** Members of one object. */
  members: number;
  /** Arrays and objects in all. */
  containers: number;
}

/**
 * Which limit the JSON text passes, if any: more than `depth` arrays or objects inside one another,
 * an object with more than `members` members, more than `containers` arrays and objects in all. One
 * pass that stops at the first limit passed; brackets and commas inside strings do not count, and a
 * string is skipped by searching for its closing quote (a long one, an image's base64, costs what a
 * memory scan does). Malformed text is left to JSON.parse.
 */
export function costlyShape(text: string, limits: ShapeLimits): keyof ShapeLimits | undefined {
  let depth = 0;
  let containers = 0;
  // Commas seen so far in the object open at each depth; -1 for an array (its items are not limited).
  const commas = new Int32Array(limits.depth + 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = closingQuote(text, i + 1);
    else if (c === 0x2c) {
      if (depth > 0 && commas[depth] >= 0 && ++commas[depth] >= limits.members) return "members";
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.depth) return "depth";
      if (++containers > limits.containers) return "containers";
      commas[depth] = c === 0x7b ? 0 : -1;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}

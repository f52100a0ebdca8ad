// A stream's commonest event read without JSON.parse. Most of a stream is one event again and
// again, the same JSON text but for a piece of text (and, from OpenAI, an `obfuscation` padding no
// one reads): a chat chunk's `delta.content`, a messages `text_delta`. Parsing each costs most of a
// translated stream's CPU (BENCHMARKS.md, "Why the relay's fast path is shaped as it is"). So a decoder, having parsed one such event,
// learns its text as a template whose "slots" are those string values; a later event that is the
// template byte for byte outside its slots parses to the same value with only those strings
// changed, and the decoder reads it as it read the first. Anything else is parsed as before.

import { startsAt } from "./text.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export class StringSlots {
  /** The text around the slots, each slot's quotes included: literals[i], slot i, literals[i + 1]… */
  private readonly literals: string[];
  /** Which slot `read` returns, in the order the slots are written. */
  private readonly readSlot: number;

  private constructor(literals: string[], readSlot: number) {
    this.literals = literals;
    this.readSlot = readSlot;
  }

  /**
   * The template of `text` (JSON) whose slots are the string values `values`, in any order of the
   * text; `read` returns the first's. Undefined when their places cannot be told for sure: the
   * text must have no backslash (each value is then written as itself between quotes) and each
   * value's quoted form must occur in it once, which is then where that value is.
   */
  static learn(text: string, values: readonly string[]): StringSlots | undefined {
    if (text.includes("\\")) return undefined;
    const spans: Array<{ value: number; from: number; to: number }> = [];
    for (let value = 0; value < values.length; value++) {
      const quoted = `"${values[value]}"`;
      const from = text.indexOf(quoted);
      if (from < 0 || text.indexOf(quoted, from + 1) >= 0) return undefined;
      // The quotes stay with the literals: a slot is the text between them.
      spans.push({ value, from: from + 1, to: from + quoted.length - 1 });
    }
    spans.sort((a, b) => a.from - b.from);
    const literals: string[] = [];
    let at = 0;
    for (const span of spans) {
      literals.push(detached(text.slice(at, span.from)));
      at = span.to;
    }
    literals.push(detached(text.slice(at)));
    return new StringSlots(
      literals,
      spans.findIndex((s) => s.value === 0),
    );
  }

  /**
   * The first slot's value when `text` is the template with JSON strings in its slots (any
   * escapes, decoded as JSON.parse would); undefined when it is not, or a slot is not a valid
   * JSON string (the caller parses the text, and meets the error as before).
   */
  read(text: string): string | undefined {
    const { literals } = this;
    const slots = literals.length - 1;
    let at = 0;
    let value: string | undefined;
    for (let slot = 0; slot < slots; slot++) {
      if (!startsAt(text, literals[slot], at)) return undefined;
      const from = at + literals[slot].length;
      const to = stringEnd(text, from);
      if (to < 0) return undefined;
      if (slot === this.readSlot) {
        value = stringAt(text, from, to);
        if (value === undefined) return undefined;
      }
      at = to;
    }
    const last = literals[slots];
    return at + last.length === text.length && startsAt(text, last, at) ? value : undefined;
  }
}

/**
 * A copy of `text` that keeps nothing else alive. V8 keeps a slice of a string as a view into it,
 * and an event's data is a slice of a whole network read's text (up to tens of KiB): a template kept
 * for the stream's life, or a piece an encoder adds to the answer's text, would keep every such read
 * in memory while the stream lasts. Slicing a concatenation copies: V8 flattens it first.
 */
function detached(text: string): string {
  return `${text} `.slice(0, -1);
}

/**
 * Where the JSON string whose text begins at `from` (after its opening quote) ends, at its closing
 * quote; -1 when it has a raw control character (not JSON) or no end. An escape is skipped whole
 * here and checked by `stringAt`.
 */
function stringEnd(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const c = text.charCodeAt(at);
    if (c === QUOTE) return at;
    if (c === BACKSLASH) at++;
    else if (c < 0x20) return -1;
  }
  return -1;
}

/** The string written from `from` to `to` (its quotes just outside), decoded; undefined if not JSON. */
function stringAt(text: string, from: number, to: number): string | undefined {
  const raw = text.slice(from, to);
  if (!raw.includes("\\")) return detached(raw);
  try {
    return JSON.parse(text.slice(from - 1, to + 1)) as string;
  } catch {
    return undefined;
  }
}

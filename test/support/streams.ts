// For the stream codecs' tests. A decoder reads an event that is a template it learned but for a
// piece of text without JSON.parse (src/protocols/shared/string-slots.ts), and an encoder writes
// the commonest events as text around the piece's JSON: these decode the same stream both ways,
// so a test can show that the two agree and that the template was used, and list the pieces that
// need care.

import type { StreamEvent } from "../../src/ir/stream.ts";
import { SseReader } from "../../src/protocols/shared/sse-reader.ts";
import type { SseEvent, StreamDecoder } from "../../src/protocols/types.ts";

/** Pieces that need JSON escapes, are not ASCII, or look like JSON themselves. */
export const AWKWARD_PIECES = [
  'say "hi"',
  "a\\b",
  "line\nbreak\ttab",
  "\u0001\u001f",
  "é 日本 😀",
  "\u2028\u2029",
  "lone \ud800",
  '"},"index":1,"x":"',
];

/** Every event decoded in turn, then the end. */
export function decodeAll(decoder: StreamDecoder, events: SseEvent[]): StreamEvent[] {
  const out: StreamEvent[] = [];
  for (const event of events) out.push(...decoder.decode(event));
  out.push(...decoder.end());
  return out;
}

/**
 * The same events, each one's JSON laid out with a different indent: no event is then a template
 * learned from the one before, and the decoder parses every one.
 */
export function laidOutApart(events: SseEvent[]): SseEvent[] {
  return events.map((event, i) => {
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      return event;
    }
    return { ...event, data: JSON.stringify(json, null, (i % 2) + 1) };
  });
}

/** What `run` returns, and how many times it called JSON.parse. */
export function countingParses<T>(run: () => T): { result: T; parses: number } {
  const { result, calls } = countingCalls(JSON, "parse", run);
  return { result, parses: calls };
}

/** What `run` returns, and how many times it called `owner[method]` (put back afterwards). */
export function countingCalls<O, K extends keyof O, T>(
  owner: O,
  method: K,
  run: () => T,
): { result: T; calls: number } {
  const original = owner[method] as (...args: unknown[]) => unknown;
  let calls = 0;
  owner[method] = ((...args: unknown[]) => {
    calls++;
    return original.apply(owner, args);
  }) as O[K];
  try {
    return { result: run(), calls };
  } finally {
    owner[method] = original as O[K];
  }
}

/** The events of an SSE body cut into two reads at `at` (a cut may fall inside a character). */
export function readInTwo(bytes: Buffer, at: number): SseEvent[] {
  const reader = new SseReader();
  return [...reader.read(bytes.subarray(0, at)), ...reader.read(bytes.subarray(at)), ...reader.end()];
}

// Text helpers for hot paths: relayed streams, and the scan of a large body before it is parsed.

/**
 * Whether `text` holds `prefix` at `at`. The same as `text.startsWith(prefix, at)`, which V8 runs
 * several times slower (a character loop, ~100–500 ns for a stream event's 200-character opening,
 * against ~40 ns for a slice compared whole); relayed streams compare such an opening per event.
 */
export function startsAt(text: string, prefix: string, at = 0): boolean {
  return text.slice(at, at + prefix.length) === prefix;
}

/**
 * Where the JSON string whose text begins at `from` ends: its closing quote (one not escaped by an
 * odd run of backslashes), or the text's length when there is none.
 */
export function closingQuote(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at >= 0; at = text.indexOf('"', at + 1)) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return at;
  }
  return text.length;
}

/**
 * A one-byte (latin1) string copied into a string of its own. V8 makes a slice of a string (of 13
 * characters or more) point into the string it was cut from, which then lives as long as the slice
 * does: what a relayed stream learns from one read and keeps while it lasts (its content shape)
 * would keep that whole read.
 */
export function latin1Copy(text: string): string {
  return Buffer.from(text, "latin1").toString("latin1");
}

/** Text that a RegExp matches literally. */
export function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
}

/** A character JSON.stringify writes escaped: a quote, a backslash, a control character, a surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify(text), for a stream's pieces: a piece with nothing to escape (most of them) is
 * itself between quotes, written without JSON.stringify's own setup, which costs more than twice
 * the check for such a short string (callgrind, BENCHMARKS.md "Session 7"). A surrogate, paired or
 * not, goes to JSON.stringify, which alone knows which ones it escapes.
 */
export function jsonString(text: string): string {
  return ESCAPED_IN_JSON.test(text) ? JSON.stringify(text) : `"${text}"`;
}

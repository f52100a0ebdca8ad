// Header values made from what a client sent (field names in `x-switchyard-ignored`): node:http
// refuses a value holding CR/LF or a character outside Latin-1, so such values are percent-encoded.

/** Visible ASCII, space and tab: what a header value may hold as is. */
export const SAFE_HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * A header value that carries `value` without breaking the head: anything outside visible ASCII
 * (control characters, CR/LF, non-Latin-1 text) is percent-encoded as UTF-8, and so is `%` itself
 * when something else had to be, so that `decodeURIComponent` gives the original back.
 */
export function headerSafe(value: string): string {
  if (SAFE_HEADER_VALUE.test(value)) return value;
  return percentEncodeExcept(value, (code, char) => code >= 0x20 && code <= 0x7e && char !== "%");
}

/**
 * One name of a comma-separated header list (`x-switchyard-ignored`), percent-encoded wherever it
 * holds anything but visible ASCII, a `%` or a `,`: the list splits back into the names it was made
 * of, and `decodeURIComponent` gives each name back exactly.
 */
export function headerListItem(name: string): string {
  return percentEncodeExcept(
    name,
    (code, char) => code > 0x20 && code <= 0x7e && char !== "%" && char !== ",",
  );
}

/**
 * A comma-separated list of names from a request, each made safe by `headerListItem`. Bounded, so
 * that a body with thousands of (or very long) unknown keys cannot make a head that clients refuse
 * (most stop at 16 KiB): the first `maxNames`, each cut at `maxLength` characters with a `…`.
 */
export function ignoredList(names: Iterable<string>, maxNames = 32, maxLength = 64): string {
  const items: string[] = [];
  let more = 0;
  for (const name of names) {
    if (items.length === maxNames) {
      more++;
      continue;
    }
    const chars = [...name];
    items.push(headerListItem(chars.length > maxLength ? `${chars.slice(0, maxLength).join("")}…` : name));
  }
  if (more > 0) items.push(`(${more} more)`);
  return items.join(", ");
}

function percentEncodeExcept(value: string, keep: (code: number, char: string) => boolean): string {
  let out = "";
  // A lone surrogate (JSON allows "\ud800" in a key) cannot be encoded as UTF-8: it becomes U+FFFD.
  for (const char of value.toWellFormed())
    out += keep(char.codePointAt(0) ?? 0, char) ? char : encodeURIComponent(char);
  return out;
}

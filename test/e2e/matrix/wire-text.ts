// Byte-level helpers for the relay tests: they restate, on raw text, the only edits a relay may make.

/**
 * `text` with the FIRST `"key":"…"` member's string value replaced. The fakes write compact JSON
 * with the envelope's members first, so the first occurrence is the top-level one; a member of the
 * same name nested further on (in unknown fields) must stay as it was.
 */
export function replaceFirstString(text: string, key: string, value: string): string {
  const pattern = new RegExp(`"${key}":"(?:[^"\\\\]|\\\\.)*"`);
  if (!pattern.test(text)) throw new Error(`no "${key}" string member in ${text.slice(0, 200)}`);
  return text.replace(pattern, `"${key}":${JSON.stringify(value)}`);
}

/**
 * The frames of an SSE body, each as its field lines without the blank line that ends it. Frames may
 * end in LF LF or CRLF CRLF; the lines inside are returned joined by LF, the spelling relays write.
 */
export function sseFrames(text: string): string[] {
  return text
    .split(/\r\n\r\n|\n\n/)
    .filter((frame) => frame.trim() !== "")
    .map((frame) => frame.split(/\r\n|\n/).join("\n"));
}

/** The `data:` payload of one frame. */
export function frameData(frame: string): string {
  return frame
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => line.slice(6))
    .join("\n");
}

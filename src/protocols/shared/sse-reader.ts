// An upstream's SSE stream read as text: the events each network read completes.

import { createParser } from "eventsource-parser";
import type { SseEvent } from "../types.ts";

const CR = 13;

/**
 * Reads an SSE body read by read. A read may end inside a multi-byte character (the streaming
 * decoder keeps the partial bytes for the next read instead of turning each half into U+FFFD) or
 * inside an event (the parser keeps it until its blank line).
 */
export class SseReader {
  private pending: SseEvent[] = [];
  /** Whether the upstream ends its lines with CRLF, judged by the first line end it sends. */
  private crlf: boolean | undefined;
  private lastChar = 0;
  private readonly utf8 = new TextDecoder();
  private readonly parser = createParser({
    onEvent: (e) =>
      this.pending.push(
        this.crlf ? { event: e.event, data: e.data, crlf: true } : { event: e.event, data: e.data },
      ),
  });

  /** The events this read completes. */
  read(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === "string" ? chunk : this.utf8.decode(chunk, { stream: true });
    if (this.crlf === undefined) {
      const lineEnd = text.indexOf("\n");
      // A read may end between the CR and the LF: then the CR ended the read before.
      if (lineEnd >= 0) this.crlf = (lineEnd > 0 ? text.charCodeAt(lineEnd - 1) : this.lastChar) === CR;
      this.lastChar = text.charCodeAt(text.length - 1);
    }
    this.parser.feed(text);
    return this.taken();
  }

  /** The events the end of the body completes. */
  end(): SseEvent[] {
    this.parser.feed(this.utf8.decode());
    return this.taken();
  }

  private taken(): SseEvent[] {
    const batch = this.pending;
    if (batch.length > 0) this.pending = [];
    return batch;
  }
}

// An upstream's SSE stream read as text: the events each network read completes.

import { createParser } from "eventsource-parser";
import { upstreamEventTooLarge } from "../../ir/errors.ts";
import type { SseEvent } from "../types.ts";

const CR = 13;

/**
 * The longest an upstream stream event may grow before its blank line, in bytes (characters, read
 * as text): past it the stream fails with a 502 instead of buffering an event that never ends. A
 * generated image's base64 in one event is the largest honest one.
 */
export const SSE_EVENT_MAX_BYTES = 64 * 1024 * 1024;

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
  /** Characters read since a read last completed an event (what the parser may be holding). */
  private unfinished = 0;
  private readonly maxEvent: number;
  private readonly utf8 = new TextDecoder();
  private readonly parser = createParser({
    onEvent: (e) =>
      this.pending.push(
        this.crlf ? { event: e.event, data: e.data, crlf: true } : { event: e.event, data: e.data },
      ),
  });

  constructor(maxEventBytes = SSE_EVENT_MAX_BYTES) {
    this.maxEvent = maxEventBytes;
  }

  /** The events this read completes; throws a 502 GatewayError once an event outgrows the limit. */
  read(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === "string" ? chunk : this.utf8.decode(chunk, { stream: true });
    if (this.crlf === undefined) {
      const lineEnd = text.indexOf("\n");
      // A read may end between the CR and the LF: then the CR ended the read before.
      if (lineEnd >= 0) this.crlf = (lineEnd > 0 ? text.charCodeAt(lineEnd - 1) : this.lastChar) === CR;
      this.lastChar = text.charCodeAt(text.length - 1);
    }
    this.parser.feed(text);
    this.unfinished = this.pending.length > 0 ? 0 : this.unfinished + text.length;
    if (this.unfinished > this.maxEvent) throw upstreamEventTooLarge(this.maxEvent);
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

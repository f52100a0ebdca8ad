// A relayed stream, read by read. On the fast path (relay-fast-path.ts, on unless switched off) the
// upstream's bytes are cut into SSE events without decoding them; an event whose edit is at most a
// swap of its opening (Relay.passBytes) goes on as the upstream's own bytes, decoded for the meter
// only when it carries usage or a finish, not when it carries only content. Every other event (the
// first, errors, anything unusual), and every event once the fast path is off, is decoded as text,
// read by the tap for the meter and framed again (Relay.streamEvent). docs/architecture.md §4.

import { GatewayError, upstreamEventTooLarge } from "../ir/errors.ts";
import type { StreamEvent } from "../ir/stream.ts";
import { SSE_EVENT_MAX_BYTES, SseReader } from "../protocols/shared/sse-reader.ts";
import type {
  EncodeContext,
  Relay,
  RelayMemo,
  SseEvent,
  StreamDecoder,
  StreamEncoder,
} from "../protocols/types.ts";
import { tokensOfChars } from "./prompt-tokens.ts";
import {
  EventView,
  endsWithBlankLine,
  eventEnd,
  type RelayFastPath,
  relayFastPath,
} from "./relay-fast-path.ts";
import type { Piece } from "./route.ts";

const CR = 13;
const LF = 10;
const BLANK_LINE = Buffer.from("\n\n");

export class RelayStream {
  private readonly relay: Relay;
  private readonly ctx: EncodeContext;
  private readonly tap: StreamDecoder;
  private readonly encoder: StreamEncoder;
  /** What the relay remembers of this stream (its identity edits, what it learned of its events). */
  private readonly memo: RelayMemo;
  /**
   * Events are decoded as text from the reader: all of them once CR is seen or the fast path is off,
   * and before that any the relay does not pass as bytes. Made when first needed.
   */
  private reader: SseReader | undefined;
  /**
   * Every event is read as text: the fast path is off, or the upstream ends lines with CR (Google
   * does; from then on).
   */
  private asText: boolean;
  /**
   * The reads since the last complete event (an event not yet complete), joined only once a blank
   * line completes it: a long event (a generated image's base64) arriving in many reads is then
   * copied and scanned once, not once per read.
   */
  private rest: Buffer[] = [];
  /** The bytes in `rest`: past maxEvent the stream fails (an event that never ends). */
  private restBytes = 0;
  private readonly maxEvent: number;
  /** An error ended the stream: nothing after it is read. */
  failed = false;
  /** Content events passed on undecoded (the meter saw no text of them). */
  private passedContent = 0;

  constructor(
    relay: Relay,
    ctx: EncodeContext,
    tap: StreamDecoder,
    encoder: StreamEncoder,
    maxEventBytes = SSE_EVENT_MAX_BYTES,
    fastPath: RelayFastPath = relayFastPath,
  ) {
    this.maxEvent = maxEventBytes;
    this.memo = fastPath.memo(relay);
    this.asText = !fastPath.on;
    this.relay = relay;
    this.ctx = ctx;
    this.tap = tap;
    this.encoder = encoder;
  }

  /**
   * The output tokens of the content passed on undecoded, estimated (for a stream cut before its
   * usage: Meter.estimate): the text the relay measured, a token per four characters, and a token
   * for each event it did not measure (OpenAI's streams write about a token a delta).
   */
  undecodedOutputTokens(): number {
    const measured = this.memo.measured ?? { bytes: 0, events: 0 };
    return tokensOfChars(measured.bytes) + Math.max(0, this.passedContent - measured.events);
  }

  /** The pieces for one network read: one, or two when an error cuts it (what came before, then the error). */
  read(chunk: Buffer): Piece[] {
    const out = new PieceBuilder();
    try {
      this.readInto(chunk, out);
    } catch (err) {
      // An event past the size limit: the stream ends with it, through the encoder like any error.
      if (!(err instanceof GatewayError)) throw err;
      this.failInto(err, out);
    }
    return this.written(out.pieces());
  }

  /**
   * The upstream could not be read to its end (reset, stalled): the stream ends with the error, in
   * the client's protocol, after what was written.
   */
  fail(error: GatewayError): Piece[] {
    if (this.failed) return [];
    const out = new PieceBuilder();
    this.failInto(error, out);
    return out.pieces();
  }

  private readInto(chunk: Buffer, out: PieceBuilder): void {
    // The usual read: whole events (it ends with a blank line), nothing kept from the read before.
    // Its view is made at once, and is searched for CR instead of the bytes (a string search is
    // cheaper than a Buffer's). A read that ends elsewhere may be a piece of a long event: its bytes
    // are searched, and a view made only once the event is whole.
    if (!this.asText && this.rest.length === 0 && endsWithBlankLine(chunk)) {
      const event = new EventView(chunk);
      if (!event.view.includes("\r")) {
        this.cut(event, out);
        return;
      }
    }
    if (!this.asText && chunk.includes(CR)) {
      this.asText = true;
      this.restBytes = 0;
      for (const part of this.rest.splice(0)) this.decodeAll(this.textReader().read(part), out);
    }
    if (this.asText) this.decodeAll(this.textReader().read(chunk), out);
    else if (!this.completesEvent(chunk)) this.keep(chunk);
    else {
      const joined = this.rest.length > 0 ? Buffer.concat([...this.rest.splice(0), chunk]) : chunk;
      this.restBytes = 0;
      this.cut(new EventView(joined), out);
    }
  }

  /**
   * The pieces of a read, told to an encoder that continues what the client was sent (follow): as
   * they go, since keeping their text would keep the whole read alive.
   */
  private written(pieces: Piece[]): Piece[] {
    if (this.encoder.follow) for (const piece of pieces) this.encoder.follow(piece.text as string);
    return pieces;
  }

  /** Bytes of an event not yet complete; throws a 502 GatewayError once it outgrows the limit. */
  private keep(bytes: Buffer): void {
    this.rest.push(bytes);
    this.restBytes += bytes.length;
    if (this.restBytes > this.maxEvent) throw upstreamEventTooLarge(this.maxEvent);
  }

  /** The end of the upstream body: what it completes, and an error if the stream was cut short. */
  end(): Piece[] {
    const out = new PieceBuilder();
    // Bytes without their blank line are not an event (the parser drops them, as a client would).
    if (this.reader) this.decodeAll(this.reader.end(), out);
    if (!this.failed) {
      const tail = this.tap.end();
      // What the relay held for the stream's end mark, when the upstream wrote none: only for a whole stream.
      if (!tail.some((e) => e.type === "error")) out.utf8(this.relay.streamEnd?.(this.ctx, this.memo) ?? "");
      for (const e of tail) if (e.type === "error") out.utf8(this.errorText(e, out));
      out.events.push(...tail);
    }
    return out.pieces();
  }

  /** Cuts whole events out of the bytes read so far: each passed on as bytes, or decoded. */
  private cut(event: EventView, out: PieceBuilder): void {
    const { view, bytes } = event;
    let from = 0;
    for (let end = eventEnd(view, 0); end >= 0; end = eventEnd(view, from)) {
      event.at(from, end);
      const next = end + 2;
      const passed = this.relay.passBytes?.(event, this.ctx, this.memo);
      if (!passed) this.decode(bytes.subarray(from, next), out);
      else if (!passed.tap || this.tapped(passed.tap, out)) {
        if (passed.by) out.latin1(passed.by);
        const start = from + (passed.replace ?? 0);
        if (passed.without) {
          out.span(view, start, passed.without.from);
          out.span(view, passed.without.end, next);
        } else out.span(view, start, next);
        if (!passed.tap) {
          out.content = true;
          this.passedContent++;
        }
      }
      from = next;
      if (this.failed) return;
    }
    if (from < bytes.length) this.keep(bytes.subarray(from));
  }

  /** Whether this read holds a blank line (an event's end), one that began in the read before too. */
  private completesEvent(chunk: Buffer): boolean {
    if (chunk.includes(BLANK_LINE)) return true;
    const last = this.rest.at(-1);
    return last !== undefined && last[last.length - 1] === LF && chunk[0] === LF;
  }

  /** An event the relay does not pass as bytes, decoded as text by the reader. */
  private decode(bytes: Buffer, out: PieceBuilder): void {
    this.decodeAll(this.textReader().read(bytes), out);
  }

  private textReader(): SseReader {
    this.reader ??= new SseReader(this.maxEvent);
    return this.reader;
  }

  private decodeAll(events: SseEvent[], out: PieceBuilder): void {
    for (const e of events) {
      if (this.failed || !this.tapped(e, out)) return;
      out.utf8(this.relay.streamEvent(e, this.ctx, this.memo));
    }
  }

  /**
   * The event read by the tap for the meter; false when it is an error, which then ends the stream.
   * An upstream error (its own error frame, or a frame that is not JSON) reaches the client as one
   * clean error in its protocol: never the broken bytes themselves.
   */
  private tapped(e: SseEvent, out: PieceBuilder): boolean {
    const decoded = this.tap.decode(e);
    const failure = decoded.find((event) => event.type === "error");
    if (failure) {
      out.cutForError(this.errorText(failure, out), decoded);
      this.failed = true;
      return false;
    }
    for (const event of decoded) out.events.push(event);
    return true;
  }

  private failInto(error: GatewayError, out: PieceBuilder): void {
    const failure: StreamEvent = { type: "error", error };
    out.cutForError(this.errorText(failure, out), [failure]);
    this.failed = true;
  }

  /**
   * The error as the client's encoder writes it after what the client holds: the stream's own
   * continuation (one opening, the sequence going on), not a stream of its own.
   */
  private errorText(failure: StreamEvent, out: PieceBuilder): string {
    this.encoder.follow?.(out.pendingText());
    return this.encoder.encode(failure);
  }
}

/**
 * The bytes and IR events of a read, cut in two when an error ends the stream within it. The bytes
 * are gathered as a one-byte (latin1) string: the read's view is spelled that way, so a passed
 * event is a slice of it, not a Buffer of its own, and runs of events passed as they came join into
 * one slice. The piece keeps that string (Piece.latin1): the socket writes it as latin1, copying it
 * once into its own memory, where a Buffer made of it here would be one more object for the GC.
 */
class PieceBuilder {
  private text = "";
  /** A span of a view not yet added to `text`: extended while the next span follows on. */
  private view = "";
  private from = 0;
  private to = 0;
  events: StreamEvent[] = [];
  content = false;
  private readonly done: Piece[] = [];

  /** view[from, to) goes out as it is. */
  span(view: string, from: number, to: number): void {
    if (view === this.view && from === this.to) {
      this.to = to;
      return;
    }
    this.settle();
    this.view = view;
    this.from = from;
    this.to = to;
  }

  /** Bytes given in their one-byte spelling. */
  latin1(bytes: string): void {
    this.settle();
    this.text += bytes;
  }

  /** Text made here (a decoded event framed again), as its UTF-8 bytes. */
  utf8(text: string): void {
    if (text) this.latin1(NON_ASCII.test(text) ? Buffer.from(text).toString("latin1") : text);
  }

  /** The text gathered so far, not yet a piece (what goes out before an error cutting this read). */
  pendingText(): string {
    this.settle();
    return this.text;
  }

  /** What came before the error goes first, on its own; then the error, as its own piece. */
  cutForError(text: string, events: StreamEvent[]): void {
    this.flush();
    this.done.push({ text, events });
  }

  pieces(): Piece[] {
    this.flush();
    return this.done;
  }

  private settle(): void {
    if (this.to > this.from) this.text += this.view.slice(this.from, this.to);
    this.view = "";
    this.from = this.to = 0;
  }

  private flush(): void {
    this.settle();
    if (this.text === "" && this.events.length === 0 && !this.content) return;
    this.done.push({ text: this.text, latin1: true, events: this.events, content: this.content });
    this.text = "";
    this.events = [];
    this.content = false;
  }
}

/** A character whose UTF-8 bytes are not itself (text without one is ASCII). */
const NON_ASCII = /[\u0080-\uffff]/;

// The relay's fast path, behind one switch. A relayed stream (relay-stream.ts) is read one of two
// ways: event by event as text, by the SSE reader, decoded for the meter and framed again
// (Relay.streamEvent); or, on the fast path, cut into events on a one-byte view of each read, the
// events whose edit is at most a swap of their opening (and a member cut out, PassedBytes.without)
// passed on as the upstream's bytes (Relay.passBytes) and the others given to the reader. Both write the same bytes and give the
// meter the same reading (test/gateway/relay-stream.test.ts runs its cases both ways); the fast
// path saves 30–50 % of a relayed stream's CPU (BENCHMARKS.md, "Session 32"). Set
// SWITCHYARD_RELAY_FAST_PATH=off to read every stream as text.
//
// What a relay remembers is held here, not in the protocol modules: one RelayMemo per stream, and
// per relay the part one stream leaves for the next (RelayMemo.shared).

import type { RawSseEvent, Relay, RelayMemo } from "../protocols/types.ts";

const LF = 10;

export class RelayFastPath {
  /** Off: every relayed stream is read as text (the reference the fast path must match). */
  readonly on: boolean;
  private readonly shared = new Map<Relay, RelayMemo["shared"]>();

  constructor(on: boolean) {
    this.on = on;
  }

  /** A new stream's memo, sharing what the relay's last stream learned. */
  memo(relay: Relay): RelayMemo {
    let shared = this.shared.get(relay);
    if (!shared) {
      shared = {};
      this.shared.set(relay, shared);
    }
    return { shared };
  }
}

/** The process's fast path: on unless SWITCHYARD_RELAY_FAST_PATH=off. */
export const relayFastPath = new RelayFastPath(process.env.SWITCHYARD_RELAY_FAST_PATH !== "off");

/** The read ends where an event does (its last bytes are a blank line's). */
export function endsWithBlankLine(chunk: Buffer): boolean {
  const n = chunk.length;
  return n >= 2 && chunk[n - 1] === LF && chunk[n - 2] === LF;
}

/**
 * Where the event that begins at `from` ends (the blank line after it), or -1. Most events are one
 * line, so the first line end usually is the event's end: one single-character search.
 */
export function eventEnd(view: string, from: number): number {
  const lineEnd = view.indexOf("\n", from);
  if (lineEnd < 0) return -1;
  return view.charCodeAt(lineEnd + 1) === LF ? lineEnd : view.indexOf("\n\n", lineEnd + 1);
}

/** One event of a read, seen through a one-byte (latin1) string of the read's bytes. */
export class EventView implements RawSseEvent {
  readonly view: string;
  from = 0;
  end = 0;
  readonly bytes: Buffer;
  /** The event's own text (a slice of the view), made when first searched. */
  private text: string | undefined;

  constructor(bytes: Buffer) {
    this.bytes = bytes;
    this.view = bytes.toString("latin1");
  }

  utf8(from: number, to: number): string {
    return this.bytes.toString("utf8", from, to);
  }

  at(from: number, end: number): void {
    this.from = from;
    this.end = end;
    this.text = undefined;
  }

  find(text: string): number {
    // Searched in the event's own slice: a text the event lacks is not looked for through the rest
    // of the read (a whole stream, when the upstream wrote it at once).
    this.text ??= this.view.slice(this.from, this.end);
    const at = this.text.indexOf(text);
    return at < 0 ? -1 : this.from + at;
  }
}

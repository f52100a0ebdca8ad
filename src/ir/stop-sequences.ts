// Stop sequences for an upstream protocol that has none (the Responses API): the gateway cuts the
// answer at the first one itself, and says which matched (docs/translation.md §5). The upstream
// still generates to its natural end, and its usage, which the gateway bills, counts all of it.
//
// Matching is within each text block, as the text arrives: a block's last characters are held back
// until the next piece shows whether they begin a sequence. After a match, the rest of the answer
// (more text, thinking, tool calls) is left out; usage and errors still pass, and the upstream's
// finish becomes `stop_sequence`.

import { earliestOf } from "./multi-search.ts";
import type { Response } from "./response.ts";
import type { StreamEvent } from "./stream.ts";

/**
 * Longer lists are not emulated (each streamed piece is searched for all of them): the encoder names
 * `stop` as dropped instead.
 */
export const MAX_EMULATED_STOP_CHARS = 4096;

export function canEmulateStops(sequences: readonly string[]): boolean {
  return sequences.reduce((n, s) => n + s.length, 0) <= MAX_EMULATED_STOP_CHARS;
}

/**
 * More stop sequences than the upstream's protocol takes (`max`: OpenAI's chat takes 4, and refuses
 * a fifth with a 400), and few enough characters for the gateway to cut at them itself: then none
 * are sent and the gateway cuts at all of them, as for a protocol without stop sequences.
 */
export function cutsStopsItself(sequences: readonly string[], max: number | undefined): boolean {
  return max !== undefined && sequences.length > max && canEmulateStops(sequences);
}

/** A whole answer cut at the first stop sequence in its text. */
export function cutResponse(response: Response, sequences: readonly string[]): Response {
  const wanted = sequences.filter((s) => s.length > 0);
  for (let i = 0; i < response.content.length; i++) {
    const block = response.content[i];
    if (block.type !== "text") continue;
    const stop = earliestOf(block.text, wanted);
    if (!stop) continue;
    const text = block.text.slice(0, stop.at);
    const content = [...response.content.slice(0, i), ...(text ? [{ ...block, text }] : [])];
    return { ...response, content, finishReason: "stop_sequence", stopSequence: stop.pattern };
  }
  return response;
}

/** The same, over a stream's events, batch by batch. */
export class StopSequenceCutter {
  private readonly sequences: string[];
  private readonly keep: number;
  /** The open text block's characters not yet passed on, and that block's index. */
  private held = "";
  private heldBlock = -1;
  private matched: string | undefined;

  constructor(sequences: readonly string[]) {
    this.sequences = sequences.filter((s) => s.length > 0);
    this.keep = Math.max(0, ...this.sequences.map((s) => s.length)) - 1;
  }

  cut(events: StreamEvent[]): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of events) {
      if (this.matched !== undefined) this.afterMatch(event, out);
      else this.beforeMatch(event, out);
    }
    return out;
  }

  private beforeMatch(event: StreamEvent, out: StreamEvent[]): void {
    if (event.type === "block_start" && event.block.type === "text") {
      this.held = "";
      this.heldBlock = event.index;
    } else if (
      event.type === "block_delta" &&
      event.delta.type === "text" &&
      event.index === this.heldBlock
    ) {
      this.text(event.index, this.held + event.delta.text, out);
      return;
    } else if (event.type === "block_stop" && event.index === this.heldBlock) {
      if (this.held) out.push(textDelta(event.index, this.held));
      this.held = "";
      this.heldBlock = -1;
    }
    out.push(event);
  }

  private text(index: number, text: string, out: StreamEvent[]): void {
    const stop = earliestOf(text, this.sequences);
    if (stop) {
      if (stop.at > 0) out.push(textDelta(index, text.slice(0, stop.at)));
      out.push({ type: "block_stop", index });
      this.matched = stop.pattern;
      this.held = "";
      return;
    }
    let split = Math.max(0, text.length - this.keep);
    // Never between the two halves of a surrogate pair.
    if (split > 0 && split < text.length && isLowSurrogate(text.charCodeAt(split))) split--;
    if (split > 0) out.push(textDelta(index, text.slice(0, split)));
    this.held = text.slice(split);
  }

  private afterMatch(event: StreamEvent, out: StreamEvent[]): void {
    if (event.type === "usage" || event.type === "error") out.push(event);
    else if (event.type === "finish")
      out.push({ type: "finish", reason: "stop_sequence", stopSequence: this.matched });
  }
}

function textDelta(index: number, text: string): StreamEvent {
  return { type: "block_delta", index, delta: { type: "text", text } };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

// Token counting and truncation whose cost grows at most as n log n with the text, whatever the
// text holds, and whose counts are exactly gpt-tokenizer's.
//
// o200k_base first splits a text into pieces with one regular expression (a word with the space
// before it, up to three digits, a run of punctuation, a run of whitespace) and then merges byte pairs
// inside each piece. gpt-tokenizer's merge is quadratic in the piece's length, and a piece has no
// length limit: a run without whitespace (`\"{}[]` repeated, one letter repeated) is one piece.
// Counted whole on a 2-core machine, 100 KB of `\"{}[]` took 3 s, of one letter 5 s, of random CJK
// characters 24 s; 1 MiB would take 5 to 40 minutes.
//
// So the pieces are found first, with the same expression, and then:
// - Ordinary pieces are counted by gpt-tokenizer in batches of about BATCH_CHARS, cut only where
//   cutting cannot change how the text splits (see `safeCut`). A text's count is the sum of its
//   pieces' counts, so the total is what counting the whole text at once gives.
// - A piece longer than LONG_PIECE_CHARS is merged by heap-bpe.ts, which makes the same merges in
//   O(n log n): 1 MiB of random letters in about 1 s, of random CJK in 1.5 s. Such pieces are rare
//   in ordinary text (a markdown table's rule of dashes, a base64 run), common in pathological text.
// - A piece longer than HUGE_PIECE_CHARS (nothing ordinary: 64K characters without a space) is merged
//   in chunks of that length, so that a count against a limit, or a truncation, can stop after the
//   chunk it needs instead of merging megabytes first. This is the one approximation: merges never
//   cross a chunk's edge, so such a run can count a token or so more per 64K characters than
//   unbounded BPE would (1 MiB of random letters: 544,143 tokens against 544,140; 1 MiB of one
//   letter, of `\"{}[]` or of random CJK: the same count).
//
// The work comes as steps (generators that yield between batches and within a long merge), so the
// caller can pause between them: see worker.ts. A count against a limit stops at the first segment
// past it, so a prompt far over a context window costs no more to refuse than one of its size.

import { mergeSteps, type Vocabulary } from "./heap-bpe.ts";

/** What the steps need of the tokenizer. */
export interface Encoding {
  /** Tokens of `text`, counted exactly (special-token names count as plain text). */
  count(text: string): number;
  encode(text: string): number[];
  /** The bytes a token stands for. */
  bytes(token: number): Uint8Array;
  /** The tokens by their bytes, for heap-bpe.ts (built on first use: most prompts never need it). */
  vocabulary(): Vocabulary;
}

/** The splitting expression must be o200k_base's own, so that batches cut where its pieces end. */
export interface Splitter {
  pieces: RegExp;
}

/**
 * Longest piece gpt-tokenizer merges (about 1 ms at worst, for CJK or Thai letters of three bytes
 * each); longer ones go to heap-bpe.ts.
 */
export const LONG_PIECE_CHARS = 256;
/** Longest piece merged whole; longer ones are merged in chunks of this many UTF-16 units. */
export const HUGE_PIECE_CHARS = 65_536;
/** A batch of whole pieces ends at the first safe cut past this many UTF-16 units. */
export const BATCH_CHARS = 2048;

interface Segment {
  start: number;
  end: number;
  /** One piece longer than LONG_PIECE_CHARS, or a HUGE_PIECE_CHARS chunk of a longer one. */
  long?: boolean;
}

const ALL_WHITESPACE = /^\s+$/u;
const WHITESPACE_AT = /\s/uy;

/**
 * The text in segments whose counts add up to its count: batches of whole pieces, and long pieces
 * alone (in chunks when huge), in order, covering the text without gaps.
 */
export function* segments(text: string, splitter: Splitter): Generator<Segment> {
  let from = 0; // start of the batch being gathered
  let lastStart = 0; // start of the last piece gathered
  for (const match of text.matchAll(splitter.pieces)) {
    const start = match.index;
    const end = start + match[0].length;
    if (end - start > LONG_PIECE_CHARS) {
      if (start > from) {
        if (safeCut(text, lastStart, start)) yield { start: from, end: start };
        else {
          // The batch ends in a run of whitespace right before a non-space: that last piece alone.
          if (lastStart > from) yield { start: from, end: lastStart };
          yield { start: lastStart, end: start };
        }
      }
      yield* chunks(start, end, text);
      from = lastStart = end;
      continue;
    }
    lastStart = start;
    if (end - from >= BATCH_CHARS && safeCut(text, start, end)) {
      yield { start: from, end };
      from = end;
    }
  }
  // The expression matches every character, so the last piece ends where the text does.
  if (from < text.length) yield { start: from, end: text.length };
}

/**
 * Whether the text can be cut at `end`, the end of the piece that starts at `start`, without changing
 * how either side splits. The expression looks behind nothing and ahead only once, in `\s+(?!\S)`
 * (whitespace not followed by a non-space): cut off, a text ends where that look-ahead used to see a
 * non-space, so a run of whitespace just before the cut could split differently. Nothing else can.
 */
function safeCut(text: string, start: number, end: number): boolean {
  if (end >= text.length) return true;
  WHITESPACE_AT.lastIndex = end;
  if (WHITESPACE_AT.test(text)) return true;
  return !ALL_WHITESPACE.test(text.slice(start, end));
}

function* chunks(start: number, end: number, text: string): Generator<Segment> {
  for (let at = start; at < end; ) {
    let to = Math.min(at + HUGE_PIECE_CHARS, end);
    // Never between the two halves of a surrogate pair.
    const code = text.charCodeAt(to - 1);
    if (to < end && code >= 0xd800 && code <= 0xdbff) to--;
    yield { start: at, end: to, long: true };
    at = to;
  }
}

/**
 * A copy of `text.slice(start, end)` that does not hold on to `text`. gpt-tokenizer keeps pieces as
 * keys of its merge cache; a slice would keep the whole request it came from alive with them.
 */
function detached(text: string, start: number, end: number): string {
  return Buffer.from(text.slice(start, end), "utf16le").toString("utf16le");
}

/**
 * Counts the text's tokens; yields between segments. Stops early, returning the count so far
 * (already over `limit`), once the count passes `limit`.
 */
export function* countSteps(
  encoding: Encoding,
  splitter: Splitter,
  text: string,
  limit = Number.POSITIVE_INFINITY,
): Generator<void, number> {
  let total = 0;
  for (const segment of segments(text, splitter)) {
    total += segment.long
      ? (yield* longPieceSteps(encoding, text, segment)).length
      : encoding.count(detached(text, segment.start, segment.end));
    if (total > limit) return total;
    yield;
  }
  return total;
}

function longPieceSteps(
  encoding: Encoding,
  text: string,
  { start, end }: Segment,
): Generator<void, number[]> {
  return mergeSteps(utf8.encode(text.slice(start, end)), encoding.vocabulary());
}

const utf8 = new TextEncoder();

export interface TokenCounts {
  /** Each text's count, in order; when over the limit, only those counted before it was passed. */
  each: number[];
  total: number;
  /** The total passed the limit: counting stopped there. */
  overLimit: boolean;
}

/** Counts several texts in order, stopping once their total passes `limit`. */
export function* countEachSteps(
  encoding: Encoding,
  splitter: Splitter,
  texts: readonly string[],
  limit = Number.POSITIVE_INFINITY,
): Generator<void, TokenCounts> {
  const each: number[] = [];
  let total = 0;
  for (const text of texts) {
    const n = yield* countSteps(encoding, splitter, text, limit - total);
    each.push(n);
    total += n;
    if (total > limit) return { each, total, overLimit: true };
  }
  return { each, total, overLimit: false };
}

export interface Truncated {
  /** The longest prefix of the text that fits in the limit (the whole text when it fits). */
  text: string;
  /** Tokens of that prefix, counted again (cutting can change how its end encodes). */
  tokens: number;
  truncated: boolean;
}

/**
 * The longest prefix of `text` that fits in `max` tokens, as decoding the first `max` tokens of the
 * whole text gives it (a character cut in half at the end is left out). Reads only as much of the
 * text as the prefix needs.
 */
export function* truncateSteps(
  encoding: Encoding,
  splitter: Splitter,
  text: string,
  max: number,
): Generator<void, Truncated> {
  let total = 0;
  for (const segment of segments(text, splitter)) {
    const piece = segment.long ? undefined : detached(text, segment.start, segment.end);
    const long = segment.long ? yield* longPieceSteps(encoding, text, segment) : undefined;
    const tokens = long ? long.length : encoding.count(piece as string);
    if (total + tokens <= max) {
      total += tokens;
      yield;
      continue;
    }
    const kept = (long ?? encoding.encode(piece as string)).slice(0, Math.max(0, max - total));
    const prefix = text.slice(0, segment.start) + decodeWhole(encoding, kept);
    const counted = yield* countSteps(encoding, splitter, prefix);
    return { text: prefix, tokens: counted, truncated: true };
  }
  return { text, tokens: total, truncated: false };
}

/**
 * The text the tokens stand for, without a character whose bytes they hold only in part. (Decoded
 * with a decoder of its own: gpt-tokenizer's `decode` shares one streaming decoder across calls, so
 * a cut character's leading bytes would turn up at the start of some later decode.)
 */
function decodeWhole(encoding: Encoding, tokens: number[]): string {
  const parts = tokens.map((token) => encoding.bytes(token));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(bytes, { stream: true });
}

// Byte-pair merging of one long piece in O(n log n), with the same result as gpt-tokenizer's.
//
// BPE merges, again and again, the adjacent pair of parts whose concatenation is the lowest-ranked
// token (the leftmost such pair on a tie) until no adjacent pair is a token. gpt-tokenizer finds that
// pair by scanning every pair after every merge: quadratic in the piece's length, which is fine for
// a word and minutes for a megabyte-long run without whitespace. Here the pairs wait in a min-heap
// keyed by (rank, position); a pair whose parts changed since it was queued is recognised and
// skipped when it comes out. Same merges, same order, same tokens.

/** The tokens of o200k_base by their bytes, each byte a char code (a "binary string"). */
export interface Vocabulary {
  rank(bytes: string): number | undefined;
  /** The longest token, in bytes: a longer pair cannot be a token. */
  maxTokenBytes: number;
}

/** Builds the vocabulary from gpt-tokenizer's rank table (a token's text, or its bytes when not UTF-8). */
export function vocabularyOf(ranks: ReadonlyArray<string | readonly number[] | undefined>): Vocabulary {
  const byBytes = new Map<string, number>();
  const utf8 = new TextEncoder();
  let maxTokenBytes = 1;
  ranks.forEach((value, rank) => {
    if (value === undefined) return;
    const bytes = typeof value === "string" ? utf8.encode(value) : value;
    byBytes.set(binary(bytes, 0, bytes.length), rank);
    maxTokenBytes = Math.max(maxTokenBytes, bytes.length);
  });
  return { rank: (bytes) => byBytes.get(bytes), maxTokenBytes };
}

function binary(bytes: ArrayLike<number>, start: number, end: number): string {
  let out = "";
  for (let i = start; i < end; i++) out += String.fromCharCode(bytes[i]);
  return out;
}

/** Steps between two pauses of the caller (see bounded-bpe.ts). */
const STEPS_PER_YIELD = 8192;
/** Heap keys are rank * POSITIONS + position: exact in a double for ranks below 2^27. */
const POSITIONS = 2 ** 26;

/** The piece's tokens (ranks), in order; yields now and then so the caller can pause. */
export function* mergeSteps(piece: Uint8Array, vocabulary: Vocabulary): Generator<void, number[]> {
  const n = piece.length;
  if (n >= POSITIONS) throw new RangeError("piece too long to merge");
  // Parts as a linked list over their start offsets: next[start] is the next part's start (n at the end).
  const next = new Int32Array(n + 1);
  const prev = new Int32Array(n + 1);
  const alive = new Uint8Array(n + 1);
  /** The rank of the pair that starts at a part, as last queued (-1: not a token). */
  const pairRank = new Int32Array(n + 1).fill(-1);
  const heap = new MinHeap();

  const rankAt = (start: number): number => {
    const second = next[start];
    if (second >= n) return -1;
    const end = next[second];
    if (end - start > vocabulary.maxTokenBytes) return -1;
    return vocabulary.rank(binary(piece, start, end)) ?? -1;
  };
  const queue = (start: number) => {
    const rank = rankAt(start);
    pairRank[start] = rank;
    if (rank >= 0) heap.push(rank * POSITIONS + start);
  };

  for (let i = 0; i <= n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    alive[i] = 1;
  }
  for (let i = 0; i + 1 < n; i++) {
    queue(i);
    if (i % STEPS_PER_YIELD === 0) yield;
  }

  let steps = 0;
  while (heap.size > 0) {
    const key = heap.pop();
    const start = key % POSITIONS;
    const rank = (key - start) / POSITIONS;
    // Stale: the part was merged into its left neighbour, or its pair changed since it was queued.
    if (!alive[start] || pairRank[start] !== rank) continue;
    const second = next[start];
    alive[second] = 0;
    next[start] = next[second];
    prev[next[second]] = start;
    queue(start);
    if (start > 0) queue(prev[start]);
    if (++steps % STEPS_PER_YIELD === 0) yield;
  }

  const tokens: number[] = [];
  for (let start = 0; start < n; start = next[start]) {
    const rank = vocabulary.rank(binary(piece, start, next[start]));
    if (rank === undefined) throw new Error("a byte is missing from the vocabulary");
    tokens.push(rank);
  }
  return tokens;
}

/** A binary min-heap of numbers. */
class MinHeap {
  private items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (items[parent] <= value) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = value;
  }

  pop(): number {
    const items = this.items;
    const top = items[0];
    const last = items.pop() as number;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= items.length) break;
        if (child + 1 < items.length && items[child + 1] < items[child]) child++;
        if (items[child] >= last) break;
        items[i] = items[child];
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

// The local embedding model (`local/embed-1`): a feature-hashing embedder. Each lowercased word and
// each character trigram of a word (with its boundaries) adds ±1 at a hashed position of the vector,
// which is then L2-normalised. Texts that share words share positions and score closer than texts
// that share none; the same text always gives the same vector; the cost is linear in the text. Runs
// on the local models' thread (worker.ts), never on the event loop.

import type { EmbeddingInput } from "../../ir/embeddings.ts";

/** The model's own vector length: what a request that asks for no `dimensions` gets. */
export const LOCAL_DIMENSIONS = 1024;

/** A word weighs more than each of its trigrams: shared words matter most. */
const WORD_WEIGHT = 2;

export function embedLocally(input: EmbeddingInput, dimensions: number): number[] {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number) => {
    const hash = fnv1a(feature);
    // The hash's top bit gives the sign, so that unrelated features cancel out rather than pile up.
    vector[(hash & 0x7fffffff) % dimensions] += hash & 0x80000000 ? -weight : weight;
  };
  if (input.kind === "tokens") for (const id of input.tokens) add(`#${id}`, WORD_WEIGHT);
  else
    for (const word of input.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      add(word, WORD_WEIGHT);
      const framed = `<${word}>`;
      for (let i = 0; i + 3 <= framed.length; i++) add(framed.slice(i, i + 3), 1);
    }
  return normalised(vector);
}

function normalised(vector: Float64Array): number[] {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  // A text with no word (punctuation only) still gets a unit vector: the first axis.
  if (norm === 0) return Array.from(vector, (_, i) => (i === 0 ? 1 : 0));
  // Rounded to float32, what every embedding API sends: a base64 answer holds exactly these values.
  return Array.from(vector, (x) => Math.fround(x / norm));
}

/** 32-bit FNV-1a over the string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

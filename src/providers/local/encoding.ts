// o200k_base as bounded-bpe.ts uses it: gpt-tokenizer for ordinary pieces, its rank table for the
// bytes of a token and for heap-bpe.ts, its splitting expression for finding where pieces end.

import type { Encoding, Splitter } from "./bounded-bpe.ts";
import { type Vocabulary, vocabularyOf } from "./heap-bpe.ts";

export interface Tokenizer {
  encoding: Encoding;
  splitter: Splitter;
}

/** Entries in gpt-tokenizer's cache of merged pieces: as quick as its default 100,000, a tenth the memory. */
const MERGE_CACHE_SIZE = 10_000;

/** Loads the tables (~70 MiB, 0.5 to 0.9 s of parsing): on the local models' thread, not the event loop. */
export async function loadTokenizer(): Promise<Tokenizer> {
  const [gpt, ranks, params] = await Promise.all([
    import("gpt-tokenizer"),
    import("gpt-tokenizer/bpeRanks/o200k_base"),
    import("gpt-tokenizer/encodingParams/constants"),
  ]);
  gpt.setMergeCacheSize(MERGE_CACHE_SIZE);
  // Special-token names (`<|endoftext|>`) in a prompt are text like any other, as real models take them.
  const plain = { disallowedSpecial: new Set<string>() };
  const utf8 = new TextEncoder();
  let vocabulary: Vocabulary | undefined;
  return {
    encoding: {
      count: (text) => gpt.countTokens(text, plain),
      encode: (text) => gpt.encode(text, plain),
      bytes: (token) => {
        const value = ranks.default[token];
        return typeof value === "string" ? utf8.encode(value) : Uint8Array.from(value);
      },
      // ~0.3 s and ~30 MiB, once, on the first piece longer than LONG_PIECE_CHARS.
      vocabulary: () => {
        vocabulary ??= vocabularyOf(ranks.default);
        return vocabulary;
      },
    },
    splitter: { pieces: params.O200K_TOKEN_SPLIT_REGEX },
  };
}

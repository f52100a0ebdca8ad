// Real token counts for the local demo models (o200k_base, the encoding of current OpenAI models).
// The tokenizer's tables take ~70 MiB, so they are loaded on the first local request, not at start:
// a gateway that only relays to real providers never pays for them.

type Tokenizer = typeof import("gpt-tokenizer");

let tokenizer: Tokenizer | undefined;

export async function loadTokenizer(): Promise<void> {
  tokenizer ??= await import("gpt-tokenizer");
}

function loaded(): Tokenizer {
  if (!tokenizer) throw new Error("loadTokenizer() must complete before counting tokens");
  return tokenizer;
}

export function tokenCount(text: string): number {
  return text.length === 0 ? 0 : loaded().countTokens(text);
}

/** The longest prefix of `text` that fits in `max` tokens. */
export function truncateToTokens(text: string, max: number): string {
  const { encode, decode } = loaded();
  const tokens = encode(text);
  return tokens.length <= max ? text : decode(tokens.slice(0, Math.max(0, max)));
}

// Gemini puts a `thoughtSignature` on functionCall parts and requires it back on the next turn.
// The chat and messages protocols have no field for it on a tool call, but every client echoes
// tool-call ids unchanged, so the signature rides inside the id (base64url, so the id stays within
// [A-Za-z0-9_-]) and is restored exactly when the id comes back (docs/architecture.md §10: Gemini
// thoughtSignature).

import { randomBytes } from "node:crypto";

const MARK = "_tsig_";

export function newToolCallId(prefix = "call_"): string {
  return prefix + randomBytes(12).toString("base64url");
}

/** The id a client sees for a tool call that carries a signature. */
export function packToolCallId(id: string, signature: string | undefined): string {
  if (!signature) return id;
  return id + MARK + Buffer.from(signature, "utf8").toString("base64url");
}

/** The upstream's id and signature from an id a client echoed back. */
export function unpackToolCallId(packed: string): { id: string; signature?: string } {
  const at = packed.indexOf(MARK);
  if (at < 0) return { id: packed };
  return {
    id: packed.slice(0, at),
    signature: Buffer.from(packed.slice(at + MARK.length), "base64url").toString("utf8"),
  };
}

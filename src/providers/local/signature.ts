// The local model signs its thinking like a real provider does, and checks the signature when the
// thinking comes back on a later turn: a gateway that alters or drops a signature fails loudly.

import { createHmac, timingSafeEqual } from "node:crypto";

const SECRET = "switchyard-local-thinking";

export function signThinking(text: string): string {
  return createHmac("sha256", SECRET).update(text).digest("base64");
}

export function verifyThinking(text: string, signature: string): boolean {
  const expected = Buffer.from(signThinking(text));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

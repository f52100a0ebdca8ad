// The SHA-256 and HMAC-SHA256 that SigV4 signing runs on every request (a Checksum constructor for
// @smithy/signature-v4, in place of @smithy/hash-node's Hash). Same digests; two costs avoided:
// - An HMAC keyed by raw bytes makes Node build a key object from them on every call, which costs
//   several times the HMAC itself. A signature's keys repeat (the secret key; the day's signing
//   key, which the signer caches and hands back as the same array), so each key's object is made
//   once and kept.
// - A plain hash of one piece (the payload, the canonical request) is one call (crypto.hash), not
//   a Hash object fed and finished.

import { createHmac, createSecretKey, hash, type KeyObject } from "node:crypto";
import type { Checksum, SourceData } from "@smithy/types";

/** Key objects of string secrets (secret access keys): few, but renewed credentials add new ones. */
const secretKeys = new Map<string, KeyObject>();
const MAX_SECRET_KEYS = 64;
/** Key objects of derived keys (the signing keys the signer caches), while the signer keeps them. */
const derivedKeys = new WeakMap<object, KeyObject>();

export class Sha256 implements Checksum {
  private readonly key: KeyObject | undefined;
  private pieces: Uint8Array[] = [];

  constructor(secret?: SourceData) {
    this.key = secret === undefined ? undefined : keyObject(secret);
  }

  update(data: SourceData): void {
    this.pieces.push(typeof data === "string" ? Buffer.from(data, "utf8") : bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    const { pieces } = this;
    this.pieces = [];
    if (this.key) {
      const hmac = createHmac("sha256", this.key);
      for (const piece of pieces) hmac.update(piece);
      return hmac.digest();
    }
    return hash("sha256", pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces), "buffer");
  }

  reset(): void {
    this.pieces = [];
  }
}

function keyObject(secret: SourceData): KeyObject {
  if (typeof secret === "string") {
    let key = secretKeys.get(secret);
    if (!key) {
      if (secretKeys.size >= MAX_SECRET_KEYS) secretKeys.clear();
      key = createSecretKey(Buffer.from(secret, "utf8"));
      secretKeys.set(secret, key);
    }
    return key;
  }
  let key = derivedKeys.get(secret);
  if (!key) {
    key = createSecretKey(bytesOf(secret));
    derivedKeys.set(secret, key);
  }
  return key;
}

function bytesOf(data: ArrayBuffer | ArrayBufferView): Buffer {
  return ArrayBuffer.isView(data)
    ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    : Buffer.from(data);
}

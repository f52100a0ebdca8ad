// Stored content at rest (storage.encryption_key): AES-256-GCM through node:crypto, a fresh 12-byte
// nonce per text. Several keys rotate: the first seals, any opens (each sealed text names its key by a
// short fingerprint, so opening tries one key, not all). Without keys texts are kept in clear, and a
// sealed text cannot be opened (the key was removed): that is an error, never a silent loss.

import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const PREFIX = "sealed1:";
const KEY_BYTES = 32;

export class ContentSeal {
  private readonly keys: Array<{ id: string; key: Buffer }>;

  /** `keys`: base64 of 32 bytes each; the first seals. */
  constructor(keys: readonly string[] = []) {
    this.keys = keys.map((text, i) => {
      const key = Buffer.from(text, "base64");
      if (key.length !== KEY_BYTES) throw new Error(`encryption key ${i} is not 32 bytes of base64`);
      return { id: createHash("sha256").update(key).digest("hex").slice(0, 8), key };
    });
  }

  /** True when texts are sealed; false when kept in clear. */
  get sealing(): boolean {
    return this.keys.length > 0;
  }

  seal(text: string): string {
    const first = this.keys[0];
    if (!first) return text;
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", first.key, nonce);
    const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()]);
    const parts = [nonce, cipher.getAuthTag(), body].map((b) => b.toString("base64"));
    return `${PREFIX}${first.id}:${parts.join(":")}`;
  }

  /** A text that must have been sealed (a compaction item): clear text is refused, not passed on. */
  openSealed(stored: string): string {
    if (!stored.startsWith(PREFIX)) throw new Error("the text is not sealed");
    return this.open(stored);
  }

  open(stored: string): string {
    if (!stored.startsWith(PREFIX)) return stored;
    const [id, nonce, tag, body] = stored.slice(PREFIX.length).split(":");
    const entry = this.keys.find((k) => k.id === id);
    if (!entry || nonce === undefined || tag === undefined || body === undefined)
      throw new Error(`stored content is sealed with key ${id}, which storage.encryption_key does not hold`);
    const decipher = createDecipheriv("aes-256-gcm", entry.key, Buffer.from(nonce, "base64"));
    decipher.setAuthTag(Buffer.from(tag, "base64"));
    return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8");
  }
}

/** A new key as storage.encryption_key takes one: 32 random bytes, base64. */
export function newSealKey(): string {
  return randomBytes(KEY_BYTES).toString("base64");
}

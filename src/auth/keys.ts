// API keys: kinds, hashing, generation. Only the sha256 of a key is ever stored.

import { createHash, randomBytes } from "node:crypto";
import type { KeyKind } from "../ledger/types.ts";

export const SUBSCRIPTION_PREFIX = "sk-ss-v1-";
const PAYG_PREFIX = "sk-sy-";

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** A key starting `sk-ss-v1-` is a subscription key (metering only); any other is pay-as-you-go. */
export function keyKind(key: string): KeyKind {
  return key.startsWith(SUBSCRIPTION_PREFIX) ? "subscription" : "payg";
}

export function newKey(kind: KeyKind): string {
  return (
    (kind === "subscription" ? SUBSCRIPTION_PREFIX : PAYG_PREFIX) + randomBytes(24).toString("base64url")
  );
}

/** What may be shown of a key: its first characters. */
export function keyPrefix(key: string): string {
  return `${key.slice(0, Math.min(key.length - 4, key.startsWith(SUBSCRIPTION_PREFIX) ? 13 : 10))}…`;
}

/** A stable, non-secret id for a key, derived from its hash. */
export function keyId(hash: string): string {
  return `key_${hash.slice(0, 16)}`;
}

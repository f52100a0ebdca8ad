// API keys in the ledger: one row per key, found by the hash of the key (the store never sees the
// key itself). Both stores implement it (keys-sqlite.ts, keys-postgres.ts) and share one contract
// test (test/ledger/keys-contract.ts).

import type { KeyBudget, KeyLimits, KeyRow } from "./types.ts";

export interface KeyStore {
  /** A key whose id or hash exists already is refused (duplicateKey). */
  insertKey(key: KeyRow): Promise<void>;
  findKeyByHash(hash: string): Promise<KeyRow | undefined>;
  /** The account's keys, or every key, oldest first. */
  listKeys(accountId?: string): Promise<KeyRow[]>;
  /** Revokes the key with this id, or else the one live key with this display prefix (store-rules.ts). */
  revokeKey(idOrPrefix: string): Promise<boolean>;
  /** Replaces a key's limits and budget (undefined: none); false when there is no such key. */
  setKeyLimits(id: string, limits: KeyLimits | undefined, budget: KeyBudget | undefined): Promise<boolean>;
}

// Puts the configuration's bootstrap keys (and, on the embedded default, a demo key) into the store.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { KeyBudget, KeyLimits, Store } from "../ledger/types.ts";
import { hashKey, keyId, keyKind, keyPrefix, newKey } from "./keys.ts";

/** A key the configuration names (`keys:`), installed at start-up. */
export interface BootstrapKey {
  key: string;
  account: string;
  credits?: string;
  name?: string;
  limits?: KeyLimits;
  budget?: KeyBudget;
}

export async function installKey(store: Store, key: BootstrapKey): Promise<void> {
  const hash = hashKey(key.key);
  const account = await store.accounts.getAccount(key.account);
  if (!account) await store.accounts.upsertAccount(key.account, { balance: key.credits ?? "0" });
  const existing = await store.keys.findKeyByHash(hash);
  // The file is the truth for its keys' limits and budget: each start applies them.
  if (existing) {
    if (!sameJson(existing.limits, key.limits) || !sameJson(existing.budget, key.budget))
      await store.keys.setKeyLimits(existing.id, key.limits, key.budget);
    return;
  }
  const row = {
    id: keyId(hash),
    hash,
    prefix: keyPrefix(key.key),
    kind: keyKind(key.key),
    accountId: key.account,
    createdAt: Date.now(),
    name: key.name,
    limits: key.limits,
    budget: key.budget,
  };
  try {
    await store.keys.insertKey(row);
  } catch (err) {
    // Another process sharing the store installed the same key at the same moment: that is fine.
    if (!(await store.keys.findKeyByHash(hash))) throw err;
  }
}

/**
 * The embedded default's demo key: made once, kept (0600) beside the database so that every start
 * can print it, and installed with $10 of credit on the `demo` account.
 */
export async function demoKey(store: Store, dataDir: string): Promise<string> {
  const file = `${dataDir}/demo-key`;
  let key: string;
  if (existsSync(file)) key = readFileSync(file, "utf8").trim();
  else {
    key = newKey("payg");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${key}\n`, { mode: 0o600 });
  }
  await installKey(store, { key, account: "demo", credits: "10" });
  return key;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

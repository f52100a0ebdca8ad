// The work `serve` does once per start, before any request: in the single process, or in the
// primary of `--workers N` before it forks (workers only serve).

import { dirname } from "node:path";
import { embeddedAdminKey } from "../auth/admin.ts";
import { demoKey, installKey } from "../auth/bootstrap.ts";
import { hashKey } from "../auth/keys.ts";
import type { Config } from "../config/load.ts";
import { startNotes } from "../config/notes.ts";
import type { Settlement } from "../gateway/settlement.ts";
import type { Store } from "../ledger/types.ts";
import { startUpSilenceMs } from "./lease.ts";

export interface StartUp {
  /** Generations left pending by processes that are gone, now marked interrupted. */
  interrupted: number;
  /** The embedded default's demo key, to print. */
  demo?: string;
  /** The embedded default's admin key (dashboard and admin API), to print. */
  admin?: string;
  /** What the configuration is worth knowing about (src/config/notes.ts), one line each. */
  notes: string;
}

/**
 * Marks the generations a dead process left pending, settles those it finished but did not settle,
 * installs the bootstrap keys and, on the embedded default, the demo key.
 */
export async function startUpOnce(config: Config, store: Store, settlement: Settlement): Promise<StartUp> {
  // Background runs first: their process's lease is still there to judge them by.
  const abandonedRuns = await store.responses.markAbandonedRuns(startUpSilenceMs(store));
  const interrupted = await store.markAbandoned(startUpSilenceMs(store));
  await settleLeftovers(store, settlement, config);
  for (const key of config.keys) await installKey(store, key);
  const demo = config.embeddedDefault ? await demoKey(store, dataDir(config.storage.url)) : undefined;
  const admin = config.embeddedDefault ? embeddedAdminKey(dataDir(config.storage.url)) : undefined;
  let notes = startNotes(config.models, config.providers);
  if (config.storage.encryptionKeys.length === 0)
    notes +=
      "note: stored responses (the Responses API's store) are kept in clear; set storage.encryption_key to encrypt them\n";
  if (abandonedRuns > 0) notes += `marked ${abandonedRuns} unfinished background response(s) as failed\n`;
  return { interrupted, demo, admin, notes };
}

/**
 * The embedded default opens the dashboard with an admin key of its own, made once and kept beside
 * the demo key; it is added before any process (worker) is made, so each one accepts it.
 */
export function withEmbeddedAdmin(config: Config): Config {
  if (!config.embeddedDefault) return config;
  const key = embeddedAdminKey(dataDir(config.storage.url));
  return { ...config, admin: { keyHashes: [...config.admin.keyHashes, hashKey(key)] } };
}

/** What `serve` prints once it listens, in one write: whoever reads the listening line has the rest. */
export function startUpReport(startUp: StartUp, url: string): string {
  let report = "";
  if (startUp.interrupted > 0)
    report += `marked ${startUp.interrupted} unfinished generation(s) as interrupted\n`;
  report += startUp.notes;
  report += `switchyard listening on ${url}\n`;
  if (startUp.demo) report += welcome(url, startUp.demo);
  if (startUp.admin)
    report += `Admin key (dashboard and admin API): ${startUp.admin}\n  Open ${url}/dashboard and sign in with it.\n\n`;
  return report;
}

/** Generations completed before a restart but not yet rated are settled now. */
async function settleLeftovers(store: Store, settlement: Settlement, config: Config): Promise<void> {
  const byId = new Map(config.models.map((m) => [m.id, m]));
  const kinds = new Map((await store.keys.listKeys()).map((k) => [k.id, k.kind]));
  for (const row of await store.listUnsettled(10_000)) {
    const model = byId.get(row.model);
    const kind = kinds.get(row.keyId) ?? "payg";
    if (model && row.usage)
      settlement.schedule({ id: row.id, accountId: row.accountId, kind }, model, row.usage);
  }
}

function dataDir(storageUrl: string): string {
  const path = storageUrl.replace(/^sqlite:/, "");
  return path === ":memory:" ? "./.switchyard" : dirname(path);
}

function welcome(url: string, key: string): string {
  return (
    `\nDemo API key (account "demo", $10 of credit): ${key}\n\n` +
    `Try it:\n  curl ${url}/v1/chat/completions -H "Authorization: Bearer ${key}" ` +
    `-H "content-type: application/json" -d '{"model":"local/echo-1","messages":[{"role":"user","content":"Hello"}]}'\n\n`
  );
}

// `switchyard serve`: load the configuration, open the store, recover, listen.

import { dirname } from "node:path";
import { demoKey, installKey } from "../auth/bootstrap.ts";
import type { Config } from "../config/load.ts";
import { startNotes } from "../config/notes.ts";
import { openStore } from "../ledger/open-store.ts";
import type { Store } from "../ledger/types.ts";
import { createApp } from "../server/app.ts";
import { installProcessGuards } from "../server/process-guards.ts";

export async function serve(config: Config): Promise<void> {
  const store = await openConfiguredStore(config);
  const interrupted = await store.markInterrupted();
  const app = createApp(config, store);
  installProcessGuards(app.fastify.log, { exitOnUncaught: false });
  await settleLeftovers(store, app, config);
  for (const key of config.keys) await installKey(store, key);
  const demo = config.embeddedDefault ? await demoKey(store, dataDir(config.storage.url)) : undefined;

  const address = await app.fastify.listen({ host: config.server.host, port: config.server.port });
  const url = address.replace("[::1]", "localhost");
  // One write, so whoever reads the listening line has the rest of the start-up report with it.
  let report = "";
  if (interrupted > 0) report += `marked ${interrupted} unfinished generation(s) as interrupted\n`;
  report += startNotes(config.models, config.providers);
  report += `switchyard listening on ${url}\n`;
  if (demo) report += welcome(url, demo);
  process.stdout.write(report);

  const shutdown = async () => {
    await app.close();
    await store.close();
    process.exit(0);
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

export async function openConfiguredStore(config: Config): Promise<Store> {
  const store = openStore(config.storage.url);
  await store.migrate();
  return store;
}

/** Generations completed before a restart but not yet rated are settled now. */
async function settleLeftovers(
  store: Store,
  app: ReturnType<typeof createApp>,
  config: Config,
): Promise<void> {
  const byId = new Map(config.models.map((m) => [m.id, m]));
  const kinds = new Map((await store.listKeys()).map((k) => [k.id, k.kind]));
  for (const row of await store.listUnsettled(10_000)) {
    const model = byId.get(row.model);
    const kind = kinds.get(row.keyId) ?? "payg";
    if (model && row.usage)
      app.settlement.schedule({ id: row.id, accountId: row.accountId, kind }, model, row.usage);
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

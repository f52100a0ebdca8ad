// `switchyard serve`: load the configuration, open the store, recover, listen; in one process, or
// with `--workers N` as the primary of N worker processes (src/cli/cluster-primary.ts).

import type { Config } from "../config/load.ts";
import { openConfiguredStore } from "../ledger/open-store.ts";
import { servePrimary } from "./cluster-primary.ts";
import { openGateway, stopOnSignals } from "./gateway-process.ts";
import { startUpOnce, startUpReport, withEmbeddedAdmin } from "./start-up.ts";

export interface ServeOptions {
  /** Worker processes; 1 (the default) serves in this process, without a cluster. */
  workers?: number;
}

export async function serve(file: Config, options: ServeOptions = {}): Promise<void> {
  const config = withEmbeddedAdmin(file);
  const workers = options.workers ?? 1;
  if (workers > 1) return servePrimary(config, workers);
  const store = await openConfiguredStore(config);
  const gateway = await openGateway(config, store);
  const startUp = await startUpOnce(config, store, gateway.app.settlement);
  const url = await gateway.listen();
  process.stdout.write(startUpReport(startUp, url));
  stopOnSignals(async () => {
    await gateway.close();
    process.exit(0);
  });
}

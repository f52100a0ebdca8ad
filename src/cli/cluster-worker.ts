// A worker of `serve --workers N` (forked by src/cli/cluster-primary.ts). It takes the configuration
// from the primary rather than reading the file again, so that a worker started to replace a dead one
// serves what the others serve even if the file has changed since; it serves on the shared port and
// writes its generations under the owner id the primary gave it. SIGTERM or SIGINT, or losing the
// primary, stops it gracefully: the requests in flight end and its ledger writes are flushed.

import { openStore } from "../ledger/open-store.ts";
import type { StartMessage, WorkerMessage } from "./cluster-primary.ts";
import { type GatewayProcess, openGateway, stopOnSignals } from "./gateway-process.ts";

let gateway: GatewayProcess | undefined;
let starting: Promise<void> | undefined;

const stop = stopOnSignals(async () => {
  await starting?.catch(() => {});
  await gateway?.close();
  process.exit(0);
});
process.once("disconnect", () => void stop());

function tell(message: WorkerMessage): void {
  process.send?.(message);
}

async function run({ config, owner }: StartMessage): Promise<void> {
  const store = openStore(config.storage.url, { owner, sharedByProcesses: true });
  gateway = await openGateway(config, store);
  const url = await gateway.listen();
  tell({ type: "switchyard:listening", url });
}

process.on("message", (message: StartMessage) => {
  if (message?.type !== "switchyard:start" || starting) return;
  starting = run(message);
  starting.catch((err) => {
    process.stderr.write(
      `switchyard: worker ${process.pid}: ${err?.code === "EADDRINUSE" ? err.message : (err?.stack ?? err)}\n`,
    );
    process.exit(1);
  });
});
tell({ type: "switchyard:ready" });

// A worker of `serve --workers N` (forked by src/cli/cluster-primary.ts). It takes the configuration
// from the primary rather than reading the file again, so that a worker started to replace a dead one
// serves what the others serve even if the file has changed since; it serves on the shared port and
// writes its generations under the owner id the primary gave it. SIGTERM or SIGINT, or losing the
// primary, stops it gracefully: the requests in flight end and its ledger writes are flushed.

import { randomUUID } from "node:crypto";
import { openStore } from "../ledger/open-store.ts";
import type { PrimaryMessage, StartMessage, WorkerMessage } from "./cluster-primary.ts";
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

/** How long a scrape waits for the primary to gather every worker's metrics before it answers its own. */
const METRICS_WAIT_MS = 2_000;
const metricsAsked = new Map<string, (text: string) => void>();

/** This worker's own metrics (none before its app exists). */
function ownMetrics(): string {
  return gateway?.app.metrics.render() ?? "";
}

/** Every live worker's metrics, each labelled with its worker (src/gateway/metrics-merge.ts). */
function everyWorkersMetrics(): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      metricsAsked.delete(id);
      resolve(ownMetrics());
    }, METRICS_WAIT_MS);
    metricsAsked.set(id, (text) => {
      clearTimeout(timer);
      metricsAsked.delete(id);
      resolve(text);
    });
    tell({ type: "switchyard:metrics?", id });
  });
}

async function run({ config, owner }: StartMessage): Promise<void> {
  const store = openStore(config.storage.url, { owner, sharedByProcesses: true });
  gateway = await openGateway(config, store, { metrics: everyWorkersMetrics, worker: true });
  const url = await gateway.listen();
  tell({ type: "switchyard:listening", url });
}

process.on("message", (message: PrimaryMessage) => {
  if (message?.type === "switchyard:snapshot?") {
    tell({ type: "switchyard:snapshot", id: message.id, text: ownMetrics() });
  } else if (message?.type === "switchyard:metrics") {
    metricsAsked.get(message.id)?.(message.text);
  } else if (message?.type === "switchyard:start" && !starting) {
    starting = run(message);
    starting.catch((err) => {
      const why = err?.code === "EADDRINUSE" ? err.message : (err?.stack ?? err);
      process.stderr.write(`switchyard: worker ${process.pid}: ${why}\n`);
      process.exit(1);
    });
  }
});
tell({ type: "switchyard:ready" });

// One serving process: the app on an open store, the store owner's lease when gateways share the
// store, listening. The single process of `serve` and each worker of `serve --workers N` are one.

import type { Config } from "../config/load.ts";
import type { Store } from "../ledger/types.ts";
import { type App, type AppOptions, createApp } from "../server/app.ts";
import { installProcessGuards } from "../server/process-guards.ts";
import { LeaseKeeper } from "./lease.ts";

export interface GatewayProcess {
  app: App;
  /** Listens on the configured address; resolves to the URL clients use. */
  listen(): Promise<string>;
  /** Stops accepting, lets the requests in flight end, settles and flushes the ledger, closes the store. */
  close(): Promise<void>;
}

export async function openGateway(
  config: Config,
  store: Store,
  options: AppOptions & { worker?: boolean } = {},
): Promise<GatewayProcess> {
  // Loaded only when configured: tracing off costs neither its modules nor anything per request.
  const tracing = config.telemetry
    ? new (await import("../telemetry/tracing.ts")).Tracing(config.telemetry)
    : undefined;
  const app = createApp(config, store, { ...options, tracing });
  installProcessGuards(app.fastify.log, { exitOnUncaught: options.worker === true });
  const lease = new LeaseKeeper(store);
  await lease.start();
  return {
    app,
    async listen() {
      const address = await app.fastify.listen({ host: config.server.host, port: config.server.port });
      return address.replace("[::1]", "localhost");
    },
    async close() {
      await lease.stop();
      await app.close();
      await store.close();
    },
  };
}

/** `stop` runs once, on the first SIGINT or SIGTERM; calling the function returned runs it too (once). */
export function stopOnSignals(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  const once = () => {
    stopping ??= stop();
    return stopping;
  };
  process.once("SIGINT", once);
  process.once("SIGTERM", once);
  return once;
}

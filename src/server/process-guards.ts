// The process's last line of defence. Every request path catches its own errors (a bug there is a
// 500 for that one request: src/server/inference-routes.ts); what still escapes is a bug outside any
// request's promise chain, in an event callback or a promise nobody awaited.

interface GuardLog {
  error(obj: unknown, msg?: string): void;
  fatal(obj: unknown, msg?: string): void;
}

/**
 * A rejected promise nobody awaited is logged and the process goes on: nothing was left half-done
 * by it. An exception thrown from a callback may have left shared state half-updated: in a worker
 * (`serve --workers N`) the process exits and the primary starts a fresh one while the other workers
 * serve; a single process has no one to restart it, so it logs and goes on serving rather than take
 * every client down.
 */
export function installProcessGuards(log: GuardLog, opts: { exitOnUncaught: boolean }): void {
  process.on("unhandledRejection", (reason) => {
    log.error({ err: reason }, "unhandled promise rejection (a bug): the process goes on");
  });
  process.on("uncaughtException", (err) => {
    if (opts.exitOnUncaught) {
      log.fatal({ err }, "uncaught exception (a bug): this worker exits and is replaced");
      process.exit(1);
    }
    log.error({ err }, "uncaught exception (a bug): the process goes on");
  });
}

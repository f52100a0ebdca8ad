// Preloaded (`node --import`) into a peer gateway the bench starts, so that it listens on 127.0.0.1
// only, whatever host it asks for, and prints the "listening on" line the bench waits for.

import { Server } from "node:net";

const listen = Server.prototype.listen;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  const first = args[0];
  const port = typeof first === "object" && first !== null ? (first as { port?: number }).port : first;
  const callback = args.find((a) => typeof a === "function") as (() => void) | undefined;
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object")
      process.stdout.write(`peer listening on http://127.0.0.1:${address.port}\n`);
  });
  return listen.call(this, { port: Number(port) || 0, host: "127.0.0.1" }, callback);
} as typeof Server.prototype.listen;

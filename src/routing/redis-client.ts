// ioredis, loaded when the first Redis state (routing or limits) is made: a gateway without `redis`
// configured does not carry its modules.

import { createRequire } from "node:module";
import type { Redis } from "ioredis";

export function loadRedis(): typeof Redis {
  return (createRequire(import.meta.url)("ioredis") as typeof import("ioredis")).Redis;
}

/**
 * Resolves once the client is connected (its commands are not queued before), or after `withinMs`:
 * waited for before the gateway listens, so that its first requests are counted where every process
 * counts them instead of in its own memory while the connection is still being made.
 */
export async function connectedWithin(redis: Redis, withinMs: number): Promise<void> {
  if (redis.status === "ready") return;
  let done!: () => void;
  const connected = new Promise<void>((resolve) => {
    done = resolve;
  });
  const timer = setTimeout(done, withinMs);
  redis.once("ready", done);
  await connected;
  clearTimeout(timer);
  redis.off("ready", done);
}

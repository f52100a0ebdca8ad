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

/**
 * How long a command to a shared state may wait: the states are advisory or have a fallback of this
 * process's own, so a slow Redis must not make requests wait.
 */
const COMMAND_TIMEOUT_MS = 250;

/**
 * A client whose commands fail at once while Redis is away (never queued) and wait at most
 * COMMAND_TIMEOUT_MS: its caller falls back to a state of its own rather than making requests wait.
 */
function failFastRedis(url: string): Redis {
  const redis = new (loadRedis())(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    // Keep reconnecting in the background, a little slower each time, up to 2 s apart.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
  // Errors surface on the commands (and fall back there); an unhandled 'error' event would crash.
  redis.on("error", () => {});
  return redis;
}

/** A state kept in Redis (routing, limits, spend): one fail-fast client, ready once connected. */
export abstract class RedisBacked {
  readonly redis: Redis;

  constructor(url: string) {
    this.redis = failFastRedis(url);
  }

  /** Resolves once connected, or after `withinMs` (connectedWithin). */
  ready(withinMs: number): Promise<void> {
    return connectedWithin(this.redis, withinMs);
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/** A Lua script as a command: its keys, then its arguments. */
export type LuaCommand = (keys: string[], ...args: Array<string | number>) => Promise<unknown>;

/**
 * A Lua script made a command of the client (ioredis `defineCommand`): each call sends the script's
 * SHA1 (EVALSHA), the whole script only the first time on a connection and again when Redis answers
 * NOSCRIPT (restarted, failed over, or SCRIPT FLUSH), not its text with every call.
 */
export function luaCommand(redis: Redis, name: string, lua: string): LuaCommand {
  redis.defineCommand(name, { lua });
  const command = (redis as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[name]!;
  return (keys, ...args) => command.call(redis, keys.length, ...keys, ...args);
}

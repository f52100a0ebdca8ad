// Redis for tests: 127.0.0.1:6379 (SWITCHYARD_TEST_REDIS_URL overrides). Down: a developer's run
// skips with a loud warning; under CI=true the test fails instead.

import { createConnection } from "node:net";

export const REDIS_URL = process.env.SWITCHYARD_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** undefined when Redis answers PING, else why not. */
export function redisUnreachable(): Promise<string | undefined> {
  const url = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port || 6379) });
    const done = (why: string | undefined) => {
      socket.destroy();
      resolve(why);
    };
    socket.setTimeout(2000, () => done("timed out"));
    socket.once("error", (err) => done(err.message));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG") ? undefined : `unexpected reply ${d}`));
  });
}

export async function requireRedis(t: { skip(message?: string): void }): Promise<boolean> {
  const why = await redisUnreachable();
  if (why === undefined) return true;
  if (process.env.CI === "true") throw new Error(`Redis is required under CI=true but unreachable: ${why}`);
  console.warn(`\n*** SKIPPING: Redis at ${REDIS_URL} is unreachable (${why}) ***\n`);
  t.skip(`Redis unreachable: ${why}`);
  return false;
}

/**
 * Counts the scripts a Redis state's client sends from now on, by how they went: whole (EVAL) or by
 * SHA1 (EVALSHA). Read once the calls are done (a script command's name is settled as it is written).
 */
export function scriptsSent(state: object): () => { eval: number; evalsha: number } {
  const client = (state as { redis: { sendCommand(command: { name: string }): unknown } }).redis;
  const sent: Array<{ name: string }> = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = (command) => {
    sent.push(command);
    return send(command);
  };
  return () => ({
    eval: sent.filter((c) => c.name === "eval").length,
    evalsha: sent.filter((c) => c.name === "evalsha").length,
  });
}

/** Redis forgets every script it was sent (as a restart or a failover does), through the state's client. */
export async function flushScripts(state: object): Promise<void> {
  await (state as { redis: { script(op: "FLUSH"): Promise<unknown> } }).redis.script("FLUSH");
}

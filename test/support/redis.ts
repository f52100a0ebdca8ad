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

// PostgreSQL for tests: 127.0.0.1:5432/test (SWITCHYARD_TEST_PG_URL overrides). When it is down a
// developer's run skips with a loud warning; under CI=true the test fails instead.

import { randomUUID } from "node:crypto";
import pg from "pg";
import { withDefaultUser } from "../../src/ledger/postgres-url.ts";

export const PG_URL = process.env.SWITCHYARD_TEST_PG_URL ?? "postgres://127.0.0.1:5432/test";

/** undefined when reachable, else why not. */
export async function postgresUnreachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: withDefaultUser(PG_URL), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Skip (locally) or fail (CI) a test that needs PostgreSQL; returns true when the test may run. */
export async function requirePostgres(t: { skip(message?: string): void }): Promise<boolean> {
  const why = await postgresUnreachable();
  if (why === undefined) return true;
  if (process.env.CI === "true")
    throw new Error(`PostgreSQL is required under CI=true but unreachable: ${why}`);
  console.warn(`\n*** SKIPPING: PostgreSQL at ${PG_URL} is unreachable (${why}) ***\n`);
  t.skip(`PostgreSQL unreachable: ${why}`);
  return false;
}

export function uniqueSchema(prefix: string): string {
  return `${prefix}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

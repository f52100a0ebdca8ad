// The PostgreSQL ledger scenario runs in a schema of its own, created for the run and dropped after
// it, so the bench neither reads nor leaves rows in the tables the tests use.

import pg from "pg";
import { withDefaultUser } from "../src/ledger/postgres-url.ts";

export const DEFAULT_POSTGRES_URL = "postgres://127.0.0.1:5432/test";

export interface BenchDatabase {
  /** The storage URL for the gateway: the database with its search_path set to the bench schema. */
  url: string;
  drop(): Promise<void>;
}

/** Creates the bench schema, or says why PostgreSQL cannot be used. */
export async function prepareDatabase(baseUrl: string): Promise<BenchDatabase | { unavailable: string }> {
  const schema = `switchyard_bench_${process.pid}`;
  const connect = async () => {
    const client = new pg.Client({
      connectionString: withDefaultUser(baseUrl),
      connectionTimeoutMillis: 3000,
    });
    await client.connect();
    return client;
  };
  try {
    const client = await connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.end();
  } catch (err) {
    return { unavailable: `PostgreSQL at ${redact(baseUrl)} is not reachable: ${(err as Error).message}` };
  }
  const separator = baseUrl.includes("?") ? "&" : "?";
  return {
    url: `${baseUrl}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const client = await connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//…@");
}

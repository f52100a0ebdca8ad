// `storage.url` → a store. The caller runs `migrate()` before use and `markAbandoned()` at start-up.

import { PostgresStore } from "./postgres-store.ts";
import { SqliteStore } from "./sqlite-store.ts";
import type { Store, StoreOptions } from "./types.ts";

export interface OpenStoreOptions extends StoreOptions {
  /** The workers of one `serve` share the store (PostgreSQL always is shared). */
  sharedByProcesses?: boolean;
}

const acceptedForms =
  'accepted forms: "sqlite:./path/file.db", "sqlite::memory:", "postgres://user@host:5432/db[?schema=NAME]" or "postgresql://…"';

/**
 * `sqlite:PATH` (relative to the working directory; `sqlite:///abs/file.db` and `sqlite::memory:`
 * too) or `postgres://…` / `postgresql://…`.
 */
export function openStore(url: string, options: OpenStoreOptions = {}): Store {
  if (typeof url !== "string" || url.trim() === "") throw new Error(`storage.url is empty; ${acceptedForms}`);
  if (url.startsWith("sqlite:")) {
    const path = sqlitePath(url.slice("sqlite:".length));
    if (path === "") throw new Error(`storage.url ${JSON.stringify(url)} names no file; ${acceptedForms}`);
    return new SqliteStore(path, options);
  }
  if (url.startsWith("postgres://") || url.startsWith("postgresql://")) {
    // `?schema=NAME` keeps Switchyard's tables in a schema of their own (tests use one per run).
    const parsed = new URL(url);
    const schema = parsed.searchParams.get("schema") ?? undefined;
    parsed.searchParams.delete("schema");
    return new PostgresStore(schema === undefined ? url : parsed.toString(), {
      schema,
      owner: options.owner,
    });
  }
  // Only the scheme is echoed: the rest of a URL may hold a password.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(url)?.[0] ?? "(no scheme)";
  throw new Error(`storage.url with scheme ${scheme} is not a supported store; ${acceptedForms}`);
}

/** `//` after the scheme is URL style: `sqlite:///abs/file.db` is `/abs/file.db`, `sqlite://./x.db` is `./x.db`. */
function sqlitePath(rest: string): string {
  return rest.startsWith("//") ? rest.slice(2) : rest;
}

/** The configured store, opened and migrated: what `serve` and the operator's commands work on. */
export async function openConfiguredStore(
  // Only the URL, typed here rather than as the configuration's, so the ledger imports nothing of config/.
  config: { storage: { url: string } },
  options: OpenStoreOptions = {},
): Promise<Store> {
  const store = openStore(config.storage.url, options);
  await store.migrate();
  return store;
}

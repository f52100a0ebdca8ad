// libpq (psql) connects as the operating-system user when a URL names none; pg falls back only to
// $PGUSER / $USER, which containers often leave unset, and then fails with "no PostgreSQL user name
// specified". Filling the OS user in keeps `postgres://127.0.0.1/db` meaning what it means to psql.

import { userInfo } from "node:os";

export function withDefaultUser(url: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.PGUSER || env.USER) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url; // not a WHATWG URL (a socket path, say): leave it to pg
  }
  if (parsed.username !== "" || parsed.hostname === "") return url;
  let osUser: string;
  try {
    osUser = userInfo().username;
  } catch {
    return url;
  }
  parsed.username = encodeURIComponent(osUser);
  return parsed.toString();
}

// Admin credentials: the configuration's admin keys (kept only as hashes), and the dashboard's session
// cookie. An admin key opens /api/v1/admin/ and /dashboard and nothing else; an API key opens neither
// (src/auth/authenticator.ts refuses admin keys on inference). docs/operations.md, "Admin API".
//
// The session cookie is stateless, so every worker of `serve --workers N` accepts it: its expiry and an
// HMAC of that expiry keyed by the admin key's hash. Removing the key from the configuration ends its
// sessions.

import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { GatewayError } from "../ir/errors.ts";
import type { IncomingHeaders } from "../protocols/types.ts";
import { hashKey, newKey } from "./keys.ts";

export const SESSION_COOKIE = "switchyard_session";
/** How long a dashboard login lasts. */
export const SESSION_MS = 12 * 3_600_000;

export class AdminKeys {
  private readonly hashes: Set<string>;

  constructor(hashes: readonly string[]) {
    this.hashes = new Set(hashes);
  }

  isAdminKey(key: string): boolean {
    return this.hashes.has(hashKey(key));
  }

  /** A session cookie value for a valid admin key; undefined for any other key. */
  newSession(key: string, now = Date.now()): string | undefined {
    const hash = hashKey(key);
    if (!this.hashes.has(hash)) return undefined;
    const expires = String(now + SESSION_MS);
    return `${expires}.${sessionMac(hash, expires)}`;
  }

  /** True when the request carries an unexpired session cookie made with a configured admin key. */
  hasSession(headers: IncomingHeaders, now = Date.now()): boolean {
    const value = cookie(headers, SESSION_COOKIE);
    const match = value ? /^(\d{13,16})\.([A-Za-z0-9_-]{43})$/.exec(value) : null;
    if (!match || Number(match[1]) < now) return false;
    const presented = Buffer.from(match[2]);
    for (const hash of this.hashes) {
      const expected = Buffer.from(sessionMac(hash, match[1]));
      if (expected.length === presented.length && timingSafeEqual(expected, presented)) return true;
    }
    return false;
  }
}

function sessionMac(hash: string, expires: string): string {
  return createHmac("sha256", hash).update(`switchyard-session:${expires}`).digest("base64url");
}

/** One cookie's value from the Cookie header, or undefined. */
export function cookie(headers: IncomingHeaders, name: string): string | undefined {
  const raw = headers.cookie;
  const text = Array.isArray(raw) ? raw.join("; ") : raw;
  if (!text) return undefined;
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** The Set-Cookie header of a session (HttpOnly, same-site only, the whole gateway's path). */
export function sessionCookie(value: string, maxAgeMs = SESSION_MS): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeMs / 1000)}`;
}

export const adminKeyRefused = () =>
  new GatewayError("permission", "An admin key cannot call inference or the lookup; use an API key.");

export const apiKeyRefused = () =>
  new GatewayError("permission", "An API key cannot call the admin API; use an admin key.");

/**
 * The embedded default's admin key: made once and kept (0600) beside the database, like the demo
 * key, so a newcomer can open the dashboard after `npm start`.
 */
export function embeddedAdminKey(dataDir: string): string {
  const file = `${dataDir}/admin-key`;
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const key = newKey("payg").replace(/^sk-sy-/, "sk-admin-");
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

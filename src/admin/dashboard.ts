// The dashboard at /dashboard: static pages served by the gateway itself (src/dashboard/, plain ES
// modules, no build), the charting library from node_modules (uPlot), nothing from a CDN, so it works
// offline. The login form trades the admin key for an HttpOnly session cookie (src/auth/admin.ts);
// the pages then call the admin API with it. docs/operations.md, "Dashboard".

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { FastifyInstance, FastifyReply } from "fastify";
import { type AdminKeys, SESSION_COOKIE, sessionCookie } from "../auth/admin.ts";
import { GatewayError, invalid } from "../ir/errors.ts";

const PAGES = new URL("../dashboard/", import.meta.url).pathname;
const UPLOT = dirname(createRequire(import.meta.url).resolve("uplot"));

/** Path under /dashboard → [file, content type]. Read once, at start. */
const FILES: Record<string, [string, string]> = {
  "": [join(PAGES, "index.html"), "text/html; charset=utf-8"],
  "app.js": [join(PAGES, "app.js"), "text/javascript; charset=utf-8"],
  "style.css": [join(PAGES, "style.css"), "text/css; charset=utf-8"],
  "vendor/uPlot.esm.js": [join(UPLOT, "uPlot.esm.js"), "text/javascript; charset=utf-8"],
  "vendor/uPlot.min.css": [join(UPLOT, "uPlot.min.css"), "text/css; charset=utf-8"],
};

/** uPlot sets element styles from script; everything else is the gateway's own files. */
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function registerDashboard(fastify: FastifyInstance, admins: AdminKeys): void {
  const files = new Map(
    Object.entries(FILES).map(([path, [file, type]]) => [path, { body: readFileSync(file), type }]),
  );
  const send = (reply: FastifyReply, path: string) => {
    const file = files.get(path);
    if (!file) throw new GatewayError("not_found", `No dashboard page '${path}'.`);
    return reply
      .header("content-type", file.type)
      .header("content-security-policy", CSP)
      .header("x-content-type-options", "nosniff")
      .header("cache-control", "no-cache")
      .send(file.body);
  };
  fastify.get("/dashboard", async (_req, reply) => send(reply, ""));
  fastify.get("/dashboard/*", async (req, reply) => send(reply, (req.params as { "*": string })["*"]));

  fastify.post("/dashboard/login", async (req, reply) => {
    const body = req.body as { key?: unknown } | undefined;
    if (typeof body?.key !== "string" || body.key === "") throw invalid("key", "the admin key is required");
    const session = admins.newSession(body.key);
    if (!session) throw new GatewayError("authentication", "That is not an admin key.");
    return reply.code(204).header("set-cookie", sessionCookie(session)).send();
  });
  // Whether the page's session is good, asked before any page is shown: a signed-out page learns it
  // with a 200, not from a 401 that the browser would log as a failed request.
  fastify.get("/dashboard/session", async (req, reply) =>
    reply.header("cache-control", "no-store").send({ signedIn: admins.hasSession(req.headers) }),
  );
  fastify.post("/dashboard/logout", async (_req, reply) =>
    reply
      .code(204)
      .header("set-cookie", `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`)
      .send(),
  );
}

// The admin API under /api/v1/admin/ (described in ./openapi.ts, served at /api/v1/admin/openapi.json):
// JSON in and out, errors in the chat shape, lists paged by cursor. Only an admin key (Bearer) or the
// dashboard's session cookie opens it (src/auth/admin.ts). Usage and overview read the per-day rollups,
// never the raw ledger. docs/operations.md, "Admin API".

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { z } from "zod";
import { type AdminKeys, apiKeyRefused } from "../auth/admin.ts";
import type { Authenticator } from "../auth/authenticator.ts";
import { presentedKey } from "../auth/credentials.ts";
import { hashKey, keyId, keyKind, keyPrefix, newKey } from "../auth/keys.ts";
import { canonicalDecimal } from "../billing/money.ts";
import { chatModel } from "../catalog/listing.ts";
import { parseWith } from "../catalog/schema-kit.ts";
import type { ProviderConfig } from "../config/providers.ts";
import { keyBudget, keyLimits } from "../config/schema.ts";
import type { ModelIndex } from "../gateway/models.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import { storableText } from "../ledger/columns.ts";
import { epochDay, type UsageSums } from "../ledger/rollups.ts";
import type { KeyBudget, KeyLimits, Store } from "../ledger/types.ts";
import type { EndpointHealth } from "../routing/health.ts";
import { endpointKey } from "../routing/plan.ts";
import { openApiDocument } from "./openapi.ts";
import { generationFilter, type Query, text, usageQuery } from "./query.ts";
import {
  adminAccount,
  adminGeneration,
  adminKey,
  dayName,
  type HeldUsd,
  type KeySpend,
  totalOf,
  usageRow,
} from "./render.ts";

export const ADMIN_PREFIX = "/api/v1/admin";

export interface AdminDeps {
  store: Store;
  admins: AdminKeys;
  /** The inference keys' authenticator: told when a key is revoked, and asked who an API key is. */
  auth: Authenticator;
  models: ModelIndex;
  providers: readonly ProviderConfig[];
  health: EndpointHealth;
  /** Spend held against budgets and credit (src/limits/spend-reservations.ts); none shown when absent. */
  spend?: { held(on: { keyId: string } | { accountId: string }): Promise<HeldUsd> };
}

export function registerAdminApi(fastify: FastifyInstance, deps: AdminDeps): void {
  const { store } = deps;
  fastify.get(`${ADMIN_PREFIX}/openapi.json`, async () => openApiDocument);

  const admin =
    <T>(handler: (req: FastifyRequest, reply: FastifyReply) => Promise<T>) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      await authorize(req, deps);
      return handler(req, reply);
    };
  const query = (req: FastifyRequest) => req.query as Query;
  const param = (req: FastifyRequest, name: string) =>
    storableText(name, (req.params as Record<string, string>)[name] ?? "");

  fastify.get(
    `${ADMIN_PREFIX}/generations`,
    admin(async (req) => {
      const filter = generationFilter(query(req));
      const rows = await store.queries.listGenerations({ ...filter, limit: filter.limit + 1 });
      const page = rows.slice(0, filter.limit);
      return {
        data: page.map(adminGeneration),
        nextCursor: rows.length > filter.limit ? page[page.length - 1].id : null,
      };
    }),
  );
  fastify.get(
    `${ADMIN_PREFIX}/generations/:id`,
    admin(async (req) => {
      const id = param(req, "id");
      const row = await store.getGenerationAnyAccount(id);
      if (!row) throw new GatewayError("not_found", `No generation '${id}'.`, { param: "id" });
      return adminGeneration(row);
    }),
  );

  fastify.get(
    `${ADMIN_PREFIX}/usage`,
    admin(async (req) => {
      const { filter, group } = usageQuery(query(req));
      const groups = await store.queries.usage(filter, group);
      return {
        groupBy: group,
        from: dayName(filter.fromDay),
        to: dayName(filter.toDay),
        data: groups.map((g) => usageRow(g, group)),
        total: usageRow(totalOf(groups), "total"),
      };
    }),
  );
  // Every day of the range, the empty ones included, for charts; and the range's totals.
  fastify.get(
    `${ADMIN_PREFIX}/overview`,
    admin(async (req) => {
      const { filter } = usageQuery(query(req));
      const byDay = new Map((await store.queries.usage(filter, "day")).map((g) => [Number(g.group), g]));
      const days: UsageSums[] = [];
      for (let day = filter.fromDay; day <= filter.toDay; day++)
        days.push(byDay.get(day) ?? { ...totalOf([]), group: day });
      return {
        from: dayName(filter.fromDay),
        to: dayName(filter.toDay),
        days: days.map((g) => usageRow(g, "day")),
        total: usageRow(totalOf(days), "total"),
      };
    }),
  );

  fastify.get(
    `${ADMIN_PREFIX}/keys`,
    admin(async (req) => {
      const account = text(query(req), "account");
      const [keys, spend] = await Promise.all([store.keys.listKeys(account), spendByKey(store, account)]);
      const held = await Promise.all(keys.map((k) => (k.budget ? heldBy(deps, { keyId: k.id }) : undefined)));
      return { data: keys.map((k, i) => adminKey(k, spend.get(k.id), held[i])) };
    }),
  );
  fastify.post(
    `${ADMIN_PREFIX}/keys`,
    admin(async (req, reply) => {
      const body = newKeyBody(req.body);
      if (!(await store.accounts.getAccount(body.account)))
        await store.accounts.upsertAccount(body.account, { balance: body.credits ?? "0" });
      else if (body.credits !== undefined) await store.accounts.creditAccount(body.account, body.credits);
      const secret = newKey(body.kind);
      const hash = hashKey(secret);
      const row = {
        id: keyId(hash),
        hash,
        prefix: keyPrefix(secret),
        kind: keyKind(secret),
        accountId: body.account,
        createdAt: Date.now(),
        name: body.name,
        limits: body.limits,
        budget: body.budget,
      };
      await store.keys.insertKey(row);
      reply.code(201);
      return { key: secret, ...adminKey(row) };
    }),
  );
  fastify.delete(
    `${ADMIN_PREFIX}/keys/:id`,
    admin(async (req) => {
      const id = param(req, "id");
      const key = (await store.keys.listKeys()).find((k) => k.id === id);
      if (!key) throw new GatewayError("not_found", `No key '${id}'.`, { param: "id" });
      await store.keys.revokeKey(id);
      // This process stops accepting it at once; others within their cache's few seconds.
      deps.auth.forget();
      const revoked = (await store.keys.listKeys(key.accountId)).find((k) => k.id === id) ?? key;
      return adminKey(revoked);
    }),
  );

  fastify.get(
    `${ADMIN_PREFIX}/accounts`,
    admin(async () => {
      const [accounts, stored] = await Promise.all([
        store.accounts.listAccounts(),
        store.responses.storedBytesByAccount(),
      ]);
      const held = await Promise.all(accounts.map((a) => heldBy(deps, { accountId: a.id })));
      return {
        data: accounts.map((account, i) => ({
          ...adminAccount(account, held[i]),
          storedResponseBytes: stored.get(account.id) ?? 0,
        })),
      };
    }),
  );
  fastify.get(
    `${ADMIN_PREFIX}/accounts/:id`,
    admin(async (req) => {
      const id = param(req, "id");
      const account = await store.accounts.getAccount(id);
      if (!account) throw new GatewayError("not_found", `No account '${id}'.`, { param: "id" });
      // What its stored responses hold (docs/responses.md), as the store keeps it (sealed or not).
      return {
        ...adminAccount(account, await heldBy(deps, { accountId: id })),
        storedResponseBytes: await store.responses.storedBytes(id),
      };
    }),
  );
  fastify.post(
    `${ADMIN_PREFIX}/accounts/:id/credit`,
    admin(async (req) => {
      const body = objectBody(req.body);
      const amount = body.amount;
      if (typeof amount !== "string" && typeof amount !== "number")
        throw invalid("amount", 'is required: a decimal amount of USD, as a string ("5.00")');
      const balance = await store.accounts.creditAccount(
        param(req, "id"),
        canonicalDecimal(String(amount), "amount"),
      );
      return { id: param(req, "id"), balance };
    }),
  );

  fastify.get(
    `${ADMIN_PREFIX}/models`,
    admin(async () => ({ data: deps.models.served.map(chatModel) })),
  );
  fastify.get(
    `${ADMIN_PREFIX}/providers`,
    admin(async () => ({
      data: await Promise.all(deps.providers.map((p) => providerHealth(p, deps))),
    })),
  );
}

/** An admin key as Bearer, or the dashboard's session cookie; an API key is a 403, anything else a 401. */
async function authorize(req: FastifyRequest, deps: AdminDeps): Promise<void> {
  const key = presentedKey("lookup", req.headers, {});
  if (key !== undefined) {
    if (deps.admins.isAdminKey(key)) return;
    const isApiKey = await deps.auth.authenticate(key).then(
      () => true,
      () => false,
    );
    if (isApiKey) throw apiKeyRefused();
    throw new GatewayError("authentication", "The admin key is not valid.");
  }
  if (!deps.admins.hasSession(req.headers))
    throw new GatewayError(
      "authentication",
      "An admin key (Authorization: Bearer) or a dashboard session is required.",
    );
  // A session rides on a cookie: a changing request must come from the gateway's own pages.
  const origin = req.headers.origin;
  if (req.method !== "GET" && origin !== undefined && originHost(origin) !== req.headers.host)
    throw new GatewayError("permission", "Cross-site requests with the dashboard's session are refused.");
}

function originHost(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalid("body", "must be a JSON object");
  return body as Record<string, unknown>;
}

const ACCOUNT_ID = /^[A-Za-z0-9._@-]{1,128}$/;

interface NewKey {
  account: string;
  name?: string;
  kind: "payg" | "subscription";
  credits?: string;
  limits?: KeyLimits;
  budget?: KeyBudget;
}

const NEW_KEY_FIELDS = ["account", "name", "kind", "credits", "limits", "budget"];

/**
 * POST /keys: account (required), name, kind, credits, limits and budget (the rules of the file's
 * `keys[].limits` and `keys[].budget`: docs/operations.md#limits-and-budgets).
 */
function newKeyBody(raw: unknown): NewKey {
  const body = objectBody(raw);
  for (const field of Object.keys(body))
    if (!NEW_KEY_FIELDS.includes(field))
      throw invalid(field, `is not a field of a new key (${NEW_KEY_FIELDS.join(", ")})`);
  if (typeof body.account !== "string" || !ACCOUNT_ID.test(body.account))
    throw invalid("account", "is required: 1 to 128 letters, digits, or . _ @ -");
  if (body.name !== undefined && (typeof body.name !== "string" || body.name.length > 200))
    throw invalid("name", "must be text of at most 200 characters");
  if (body.name !== undefined) storableText("name", body.name);
  if (body.kind !== undefined && body.kind !== "payg" && body.kind !== "subscription")
    throw invalid("kind", "must be payg or subscription");
  let credits: string | undefined;
  if (body.credits !== undefined) {
    if (typeof body.credits !== "string" && typeof body.credits !== "number")
      throw invalid("credits", "must be a decimal amount of USD");
    credits = canonicalDecimal(String(body.credits), "credits");
  }
  return {
    account: body.account,
    name: body.name === "" ? undefined : (body.name as string | undefined),
    kind: (body.kind as NewKey["kind"] | undefined) ?? "payg",
    credits,
    limits: body.limits === undefined ? undefined : checked(keyLimits, body.limits, "limits"),
    budget: body.budget === undefined ? undefined : checked(keyBudget, body.budget, "budget"),
  };
}

/** A value checked against the configuration's schema for it; a problem is a 400 naming the field. */
function checked<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  const parsed = parseWith(schema, value);
  if (parsed.ok) return parsed.value;
  const { path, problem } = parsed.problem;
  throw invalid(path ? `${field}.${path}` : field, problem);
}

/** What a key or account holds now; none when the gateway holds no spend. */
function heldBy(
  deps: AdminDeps,
  on: { keyId: string } | { accountId: string },
): Promise<HeldUsd | undefined> {
  return deps.spend ? deps.spend.held(on) : Promise.resolve(undefined);
}

/** Each key's cost today, this month (UTC) and in total, from the rollups (what its budget counts). */
async function spendByKey(store: Store, accountId: string | undefined): Promise<Map<string, KeySpend>> {
  const now = new Date();
  const today = epochDay(now.getTime());
  const monthStart = epochDay(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const [day, month, total] = await Promise.all([
    store.queries.usage({ fromDay: today, toDay: today, accountId }, "key"),
    store.queries.usage({ fromDay: monthStart, toDay: today, accountId }, "key"),
    store.queries.usage({ fromDay: 0, toDay: today, accountId }, "key"),
  ]);
  const spend = new Map<string, KeySpend>();
  const of = (group: unknown) => {
    const key = String(group);
    const found = spend.get(key);
    if (found) return found;
    const fresh = { today: "0", month: "0", total: "0" };
    spend.set(key, fresh);
    return fresh;
  };
  for (const g of total) of(g.group).total = g.cost;
  for (const g of month) of(g.group).month = g.cost;
  for (const g of day) of(g.group).today = g.cost;
  return spend;
}

/** A provider's endpoints with their breaker and recent statistics, and this process's recent errors. */
async function providerHealth(provider: ProviderConfig, deps: AdminDeps): Promise<Record<string, unknown>> {
  const endpoints = deps.models.served.flatMap((model) =>
    model.endpoints.filter((e) => e.provider === provider.id).map((endpoint) => ({ model, endpoint })),
  );
  const readings = await Promise.all(
    endpoints.map(async ({ model, endpoint }) => {
      const key = endpointKey(endpoint);
      const reading = await deps.health.read(key);
      const stats = deps.health.statsOf(reading.hash);
      const a = reading.availability;
      return {
        model: model.id,
        upstreamModel: endpoint.model,
        breaker: a.state === "blocked" ? (a.reason === "breaker" ? "open" : "cooling-down") : a.state,
        blockedForMs: a.state === "blocked" ? a.forMs : 0,
        ok: stats.ok,
        errors: stats.errors,
        consecutiveFailures: stats.consecutiveFailures,
        ttftMs: stats.ttftMs ?? null,
        durationMs: stats.durationMs ?? null,
        tokensPerSecond: stats.tokensPerSecond ?? null,
      };
    }),
  );
  const keys = new Set(endpoints.map(({ endpoint }) => endpointKey(endpoint)));
  return {
    id: provider.id,
    protocol: provider.protocol,
    ...(provider.platform ? { platform: provider.platform.kind } : {}),
    enabled: provider.enabled,
    baseUrl: provider.baseUrl,
    endpoints: readings,
    recentErrors: deps.health.recentErrors
      .filter((e) => keys.has(e.endpoint))
      .slice(-10)
      .reverse()
      .map((e) => ({
        endpoint: e.endpoint,
        at: new Date(e.at).toISOString(),
        status: e.status ?? null,
        message: e.message,
      })),
  };
}

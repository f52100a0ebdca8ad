// The HTTP surface (README lists the endpoints; docs/operations.md says what the edge accepts).
// Routes are thin: they hand the raw request to the pipeline, the lookup or the catalog listings,
// and render errors in the caller's protocol.

import { createServer, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { registerDashboard } from "../admin/dashboard.ts";
import { registerAdminApi } from "../admin/routes.ts";
import { AdminKeys } from "../auth/admin.ts";
import { Authenticator } from "../auth/authenticator.ts";
import {
  chatModel,
  geminiModel,
  listChat,
  listGemini,
  listMessages,
  messagesModel,
} from "../catalog/listing.ts";
import type { Config } from "../config/load.ts";
import type { ProviderConfig } from "../config/providers.ts";
import { CreditCheck } from "../gateway/credit.ts";
import { errorAnswer, writeError } from "../gateway/error-answer.ts";
import { eventLoopLag } from "../gateway/event-loop-lag.ts";
import { bodyJson, bodyTooLarge } from "../gateway/front-step.ts";
import { asGatewayError, InferencePipeline } from "../gateway/inference.ts";
import { lookupGeneration } from "../gateway/lookup.ts";
import { METRICS_CONTENT_TYPE, Metrics } from "../gateway/metrics.ts";
import { ModelIndex } from "../gateway/models.ts";
import { RequestLog } from "../gateway/request-log.ts";
import { ResponseMemory } from "../gateway/response-memory.ts";
import { Retention } from "../gateway/retention.ts";
import { Settlement } from "../gateway/settlement.ts";
import { TokenCounter } from "../gateway/token-count.ts";
import { GatewayError, kindForStatus } from "../ir/errors.ts";
import { ContentSeal } from "../ledger/content-seal.ts";
import type { Store } from "../ledger/types.ts";
import { BudgetCheck } from "../limits/budget.ts";
import { RateLimiter } from "../limits/rate-limiter.ts";
import { RedisLimitState } from "../limits/redis-limit-state.ts";
import { RedisSpendState } from "../limits/redis-spend-state.ts";
import { SpendReservations } from "../limits/spend-reservations.ts";
import { isMessagesClient } from "../protocols/anthropic/headers.ts";
import { protocols } from "../protocols/index.ts";
import type { ProtocolName } from "../protocols/types.ts";
import { adapterRegistry } from "../providers/registry.ts";
import type { ProviderAdapter } from "../providers/types.ts";
import { FallbackRoutingState, RedisRoutingState } from "../routing/redis-state.ts";
import { Router } from "../routing/router.ts";
import type { Tracing } from "../telemetry/tracing.ts";
import { afterTheUpload, type InferenceServer, inferenceRoute, serveInference } from "./inference-routes.ts";
import { decodePathSegment, errorFaceOf, isGeminiCaller } from "./paths.ts";
import { registerResponseRoutes } from "./response-routes.ts";

/** How long start-up waits for the shared state's Redis (limits, routing) before serving without it. */
const SHARED_STATE_WAIT_MS = 2_000;

export interface App {
  fastify: FastifyInstance;
  /** The inference pipeline behind the inference routes (driven in-process by bench/micro.ts). */
  pipeline: InferencePipeline;
  settlement: Settlement;
  /** This app's own counts and histograms (GET /metrics shows them, with the process's event loop lag). */
  metrics: Metrics;
  close(): Promise<void>;
}

export interface AppOptions {
  /** The upstream adapter for a provider; the real HTTP and local adapters unless given (bench/). */
  adapterFor?: (provider: ProviderConfig) => ProviderAdapter;
  /** GET /metrics text; this process's own metrics unless given (every worker's: src/cli/cluster-worker.ts). */
  metrics?: () => Promise<string>;
  /** OpenTelemetry traces (`telemetry.otlp`), made by the caller so that the modules load only when on. */
  tracing?: Tracing;
}

export function createApp(config: Config, store: Store, options: AppOptions = {}): App {
  // Inference requests are served on the raw server ahead of fastify (src/server/inference-routes.ts);
  // `inference` is filled in below, once the pipeline exists.
  let inference: InferenceServer | undefined;
  const fastify = Fastify({
    logger: { level: config.logging.level ?? process.env.SWITCHYARD_LOG_LEVEL ?? "warn" },
    bodyLimit: config.server.bodyLimitBytes,
    routerOptions: { maxParamLength: 500 },
    serverFactory: (handler) =>
      createServer(SERVER_LIMITS, (req, res) => {
        const route = inference && inferenceRoute(req.method, req.url);
        if (route && inference) serveInference(route, req, res, inference);
        else handler(req, res);
      }),
    clientErrorHandler: answerClientError,
    // A path fastify's router cannot decode (`/%FF`), or a parameter over its length: a 400 in the
    // caller's protocol, like every other error, not fastify's own body.
    frameworkErrors: (err, req, reply) =>
      sendError(
        reply,
        errorFaceOf(req.url, req.headers),
        new GatewayError("invalid_request", `path: ${err.message}`, { param: "path" }),
      ),
  });
  const log = fastify.log;
  const models = new ModelIndex(config.models, config.providers);
  const providers = new Map<string, ProviderConfig>(config.providers.map((p) => [p.id, p]));
  const admins = new AdminKeys(config.admin.keyHashes);
  const auth = new Authenticator(store, admins);
  const credit = new CreditCheck(store);
  // Many processes share round-robin turns, endpoint statistics and breakers through Redis.
  const redisState = config.redis
    ? new RedisRoutingState(config.redis.url, { prefix: `${config.redis.prefix}routing:` })
    : undefined;
  const routingState = redisState
    ? new FallbackRoutingState(redisState, (message) => log.warn(message))
    : undefined;
  // Key limits are shared through Redis too (atomic scripts), under the deployment's prefix.
  const limiter = new RateLimiter({
    shared: config.redis ? new RedisLimitState(config.redis.url, config.redis.prefix) : undefined,
    warn: (message) => log.warn(message),
  });
  const budget = new BudgetCheck(store);
  // Budgets and credit hold each request's estimated cost: in Redis when shared, else in the ledger.
  const spend = new SpendReservations({
    store,
    shared: config.redis ? new RedisSpendState(config.redis.url, config.redis.prefix) : undefined,
    budget,
    credit,
    warn: (message) => log.warn(message),
  });
  const settlement = new Settlement({
    store,
    delayMs: config.billing.settleDelayMs,
    priceVersion: config.billing.priceVersion,
    log,
    onSettled: (accounts) => credit.forget(accounts),
  });
  // The adapters the app makes are its own: close() closes their upstream connections.
  const registry = adapterRegistry({ warn: (fields, message) => log.warn(fields, message) });
  const adapters = options.adapterFor ?? registry.adapterFor;
  const anthropicVersions = new Set(config.clients.anthropicVersions);
  const metrics = new Metrics();
  const memory = new ResponseMemory(store, new ContentSeal(config.storage.encryptionKeys), log);
  const router = new Router({ models, settings: config.routing, state: routingState });
  const pipeline = new InferencePipeline({
    protocols,
    models,
    providers,
    adapterFor: adapters,
    auth,
    store,
    settlement,
    credit,
    log,
    router,
    anthropicVersions,
    metrics,
    limiter,
    budget,
    spend,
    requestLog: new RequestLog(log),
    tracing: options.tracing,
    memory,
  });

  const counter = new TokenCounter({
    protocols,
    models,
    providers,
    adapterFor: adapters,
    auth,
    log,
    anthropicVersions,
  });
  inference = { pipeline, counter, bodyLimitBytes: config.server.bodyLimitBytes, log };
  // Before listening: the shared state's connections, briefly (a Redis that is down is waited for at
  // most this long; limits and routing then fall back as they do whenever Redis fails).
  fastify.addHook("onReady", async () => {
    await Promise.all([
      limiter.ready(SHARED_STATE_WAIT_MS),
      spend.ready(SHARED_STATE_WAIT_MS),
      redisState?.ready(SHARED_STATE_WAIT_MS),
    ]);
  });
  // Measured from the moment requests can arrive: start-up holds the loop, but no request waits on it.
  let measuringLag = false;
  fastify.addHook("onListen", async () => {
    if (measuringLag) return;
    measuringLag = true;
    eventLoopLag.start();
  });

  fastify.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    const face = errorFaceOf(req.url, req.headers);
    // A body past the limit is refused as the inference routes refuse it (front-step.ts): in the
    // same words, once the upload is over, on a connection that then closes.
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE") {
      reply.header("connection", "close");
      afterTheUpload(req.raw, () => sendError(reply, face, bodyTooLarge(config.server.bodyLimitBytes)));
      return;
    }
    const status = err.statusCode ?? 500;
    const error =
      status < 500
        ? new GatewayError(kindForStatus(status), err.message, { status })
        : asGatewayError(err, log);
    sendError(reply, face, error);
  });
  fastify.setNotFoundHandler((req, reply) => {
    sendError(
      reply,
      errorFaceOf(req.url, req.headers),
      new GatewayError("not_found", `No route for ${req.method} ${req.url.split("?")[0]}.`),
    );
  });

  fastify.get("/", async () => ({ name: "switchyard", status: "ok" }));
  fastify.get("/healthz", async () => ({ status: "ok" }));
  fastify.get("/metrics", async (_req, reply) => {
    reply.header("content-type", METRICS_CONTENT_TYPE);
    return options.metrics ? options.metrics() : metrics.render();
  });
  // Not ready while the store does not answer, or while the ledger refuses new generations (its
  // backlog for an unavailable store is full). Generations waiting to be written are reported.
  fastify.get("/readyz", async (_req, reply) => {
    const reachable = await store.ping().catch(() => false);
    const status = !reachable ? "store unreachable" : store.acceptsGenerations ? "ok" : "ledger backlog full";
    // Platform providers without credentials are named, but the gateway still serves the others.
    const credentials = registry.credentialProblems();
    const failing = Object.keys(credentials).length > 0 ? { provider_credentials: credentials } : {};
    return reply
      .code(status === "ok" ? 200 : 503)
      .send({ status, pending_generation_writes: store.pendingGenerationWrites, ...failing });
  });

  // Listings answer without a credential. `GET /v1/models` is shared: a Gemini client (it sends
  // x-goog-api-key or ?key=; @google/genai 3.x lists there by default) gets Gemini's shape, a messages
  // client (anthropic-version) the messages shape, anyone else the chat shape.
  const geminiListing = (req: FastifyRequest) => {
    const q = req.query as Record<string, string | undefined>;
    return listGemini(models.served, {
      pageSize: q.pageSize === undefined ? undefined : Number(q.pageSize),
      pageToken: q.pageToken,
    });
  };
  const geminiRecord = (raw: string) => {
    const name = decodePathSegment(raw, "name");
    return geminiModel(models.resolve(name, { param: "name" }));
  };
  const listing = async (req: FastifyRequest) => {
    const q = req.query as Record<string, string | undefined>;
    if (isGeminiCaller(req.headers, q)) return geminiListing(req);
    if (isMessagesClient(req.headers)) {
      return listMessages(models.served, {
        limit: q.limit === undefined ? undefined : Number(q.limit),
        after_id: q.after_id,
        before_id: q.before_id,
      });
    }
    return listChat(models.served);
  };
  const modelRecord = async (req: FastifyRequest) => {
    const id = (req.params as { "*": string })["*"];
    if (isGeminiCaller(req.headers, req.query as Record<string, unknown>)) return geminiRecord(id);
    const model = models.resolve(decodePathSegment(id, "model"), { param: "model" });
    return isMessagesClient(req.headers) ? messagesModel(model) : chatModel(model);
  };
  // Also under /api/v1, the base URL OpenRouter's clients are given (paths.ts servedPath).
  for (const prefix of ["", "/api"]) {
    fastify.get(`${prefix}/v1/models`, listing);
    fastify.get(`${prefix}/v1/models/*`, modelRecord);
  }
  fastify.get("/v1beta/models", async (req) => geminiListing(req));
  fastify.get("/v1beta/models/*", async (req) => geminiRecord((req.params as { "*": string })["*"]));

  const lookup = async (req: FastifyRequest) =>
    lookupGeneration({ auth, store }, req.headers, req.query as Record<string, unknown>);
  fastify.get("/api/v1/management/generation", lookup);
  fastify.get("/api/v1/generation", async (req, reply) => {
    reply.header("deprecation", "true");
    reply.header("link", '</api/v1/management/generation>; rel="successor-version"');
    return lookup(req);
  });

  // Their bodies are read as the inference routes' are (front-step.ts): the same checks, the same errors.
  fastify.register(async (scope) => {
    scope.addContentTypeParser(
      "application/json",
      { parseAs: "string" },
      async (_req: FastifyRequest, body: string) => bodyJson(body),
    );
    registerResponseRoutes(scope, { auth, memory, conversations: memory.conversations });
  });

  registerAdminApi(fastify, {
    store,
    admins,
    auth,
    models,
    providers: config.providers,
    health: router.health,
    spend,
  });
  registerDashboard(fastify, admins);

  const retention =
    config.storage.retentionDays === undefined
      ? undefined
      : new Retention(store, { days: config.storage.retentionDays, log });
  retention?.start();
  const responsesRetention = new Retention(store, {
    days: config.storage.responsesRetentionDays,
    remove: (idBefore, limit) => store.responses.deleteResponses(idBefore, limit),
    log,
  });
  responsesRetention.start();

  return {
    fastify,
    pipeline,
    settlement,
    metrics,
    async close() {
      if (measuringLag) eventLoopLag.stop();
      await retention?.stop();
      await responsesRetention.stop();
      await memory.background.close();
      settlement.stop();
      await fastify.close();
      await settlement.flush();
      await redisState?.close();
      await limiter.close();
      await spend.close();
      await options.tracing?.close();
      await registry.close();
    },
  };
}

/** fastify's reply as the one error writer's sink (src/gateway/error-answer.ts). */
function sendError(reply: FastifyReply, face: ProtocolName, error: GatewayError): void {
  writeError(
    {
      json: (status, headers, body) =>
        reply
          .code(status)
          .headers({ ...headers, "content-type": "application/json" })
          .send(JSON.stringify(body)),
    },
    protocols[face],
    error,
  );
}

/**
 * The node:http server's own limits, the same for the raw inference routes and fastify's: a client
 * has 60 s to send its headers (at most 16 KiB of them) and 5 min to send its whole request; an idle
 * keep-alive connection is closed after 72 s (longer than the usual load balancer's 60 s, so the
 * balancer, not us, closes first).
 */
const SERVER_LIMITS = {
  headersTimeout: 60_000,
  requestTimeout: 300_000,
  keepAliveTimeout: 72_000,
  maxHeaderSize: 16 * 1024,
};

/**
 * A request node:http could not parse (bad request line, header or chunk framing, headers too large,
 * too slow): answered in the chat shape, since no route has said otherwise, and the connection closed.
 */
function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const status =
    err.code === "HPE_HEADER_OVERFLOW" ? 431 : err.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  const message =
    status === 431
      ? "The request headers are too large."
      : status === 408
        ? "The request was not received in time."
        : "The request is not valid HTTP.";
  const { body } = errorAnswer(
    protocols["openai-chat"],
    new GatewayError(kindForStatus(status), message, { status }),
  );
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

// The admin API's OpenAPI description, served at /api/v1/admin/openapi.json. Kept beside the routes
// (./routes.ts); test/e2e/admin-api.test.ts checks that every route is described.

const money = { type: "string", description: 'Exact decimal USD, e.g. "0.000123".' };
const json = (schema: Record<string, unknown>, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
const error = json(
  {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          message: { type: "string" },
          type: { type: "string" },
          param: { type: ["string", "null"] },
          code: { type: ["string", "null"] },
        },
      },
    },
  },
  "An error in the chat-completions shape.",
);
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const q = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const pathId = (description: string) => ({
  name: "id",
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
/** Milliseconds at the 50th and 95th percentile, null with no samples. */
const percentiles = {
  type: "object",
  properties: { p50: { type: ["integer", "null"] }, p95: { type: ["integer", "null"] } },
};
const errors = { "400": error, "401": error, "403": error, "404": error };
/** An operation's answers: this JSON with `status`, or one of the errors every admin route may give. */
const answers = (schema: Record<string, unknown>, status = "200", description = "OK") => ({
  [status]: json(schema, description),
  ...errors,
});
/** An operation on one record by its id that answers with the record (`schema`, a component's name). */
const onRecord = (summary: string, idDescription: string, schema: string) => ({
  summary,
  parameters: [pathId(idDescription)],
  responses: answers(ref(schema)),
});
/** A listing's answer: its records under `data`, beside any `more` members (a page's cursor, a total). */
const list = (items: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  type: "object",
  properties: { data: { type: "array", items }, ...more },
});
const dimensionFilters = [
  q("account", "Only this account."),
  q("key", "Only this key id (key_…)."),
  q("model", "Only this catalog model id."),
  q("provider", "Only this provider id."),
];
const usageRange = [
  q("from", "First day (YYYY-MM-DD or ISO 8601, UTC); default 29 days before `to`."),
  q("to", "Last day, included; default today."),
];

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Switchyard admin API",
    version: "1",
    description:
      "Operators' API behind the dashboard. Authenticate with an admin key (`Authorization: Bearer`); API keys are " +
      "refused (403). Lists are paged by cursor: pass `nextCursor` back as `cursor`. Usage and overview read per-day " +
      "rollups; latency percentiles are the upper bounds of fixed histogram buckets.",
  },
  servers: [{ url: "/api/v1/admin" }],
  security: [{ adminKey: [] }],
  components: {
    securitySchemes: {
      adminKey: { type: "http", scheme: "bearer" },
      session: { type: "apiKey", in: "cookie", name: "switchyard_session" },
    },
    schemas: {
      Generation: {
        type: "object",
        description:
          "The lookup's generation record (api, generationId, model, createAt, latency, generationTime, nativeTokens, " +
          "streamed, finishReason, requestRetryTimes, finalRetry, status, provider, sessionId, usageEstimated when the " +
          "counts are the gateway's estimate, usage, ratingResponses) " +
          "plus what an operator sees.",
        properties: {
          generationId: { type: "string" },
          accountId: { type: "string" },
          keyId: { type: "string" },
          cost: { ...money, type: ["string", "null"] },
          attempts: { type: "integer" },
          errorMessage: { type: ["string", "null"] },
          timings: { type: "object" },
          tokens: { type: ["object", "null"] },
        },
      },
      Usage: {
        type: "object",
        properties: {
          group: { type: ["string", "null"] },
          requests: { type: "integer" },
          errors: { type: "integer" },
          errorRate: { type: "number" },
          tokens: {
            type: "object",
            properties: Object.fromEntries(
              ["prompt", "completion", "cacheRead", "cacheWrite", "reasoning"].map((k) => [
                k,
                { type: "integer" },
              ]),
            ),
          },
          cost: money,
          latencyMs: percentiles,
          ttftMs: percentiles,
        },
      },
      Key: {
        type: "object",
        properties: {
          id: { type: "string" },
          prefix: { type: "string" },
          name: { type: ["string", "null"] },
          account: { type: "string" },
          kind: { enum: ["payg", "subscription"] },
          createdAt: { type: "string" },
          revokedAt: { type: ["string", "null"] },
          limits: { oneOf: [ref("KeyLimits"), { type: "null" }] },
          budget: { oneOf: [ref("KeyBudget"), { type: "null" }] },
          spend: {
            type: "object",
            description:
              "Settled cost today, this month (UTC) and in total; with a budget, what requests in flight " +
              "hold against it (`reserved`) and settled cost still held a few seconds (`settling`).",
            properties: { today: money, month: money, total: money, reserved: money, settling: money },
          },
        },
      },
      KeyLimits: {
        type: "object",
        description: "Rate limits; each absent one is unlimited.",
        additionalProperties: false,
        properties: {
          rpm: { type: "integer", minimum: 1, description: "Requests per minute." },
          tpm: { type: "integer", minimum: 1, description: "Tokens (prompt + output) per minute." },
          concurrency: { type: "integer", minimum: 1, description: "Requests in flight at once." },
        },
      },
      KeyBudget: {
        type: "object",
        description: "The most the key may spend (its settled cost) per UTC day, UTC month, or in total.",
        required: ["usd", "period"],
        additionalProperties: false,
        properties: { usd: money, period: { enum: ["day", "month", "total"] } },
      },
      Account: {
        type: "object",
        properties: {
          id: { type: "string" },
          balance: money,
          reserved: { ...money, description: "Held against the balance by requests in flight." },
          settling: { ...money, description: "Settled lately (in the balance), still held a few seconds." },
          discount: { type: ["string", "null"] },
          createdAt: { type: "string" },
          storedResponseBytes: {
            type: "integer",
            description:
              "Bytes of the account's stored responses and their background runs' events, as the store keeps them (sealed or not).",
          },
        },
      },
    },
  },
  paths: {
    "/generations": {
      get: {
        summary: "Generations, newest first",
        parameters: [
          ...dimensionFilters,
          q("status", "Only this status.", {
            enum: ["pending", "completed", "failed", "cancelled", "interrupted"],
          }),
          q("from", "Made at or after (ISO 8601)."),
          q("to", "Made at or before (ISO 8601)."),
          q("limit", "Page size, 1-200 (default 50).", { type: "integer" }),
          q("cursor", "`nextCursor` of the previous page."),
        ],
        responses: answers(list(ref("Generation"), { nextCursor: { type: ["string", "null"] } })),
      },
    },
    "/generations/{id}": {
      get: onRecord(
        "One generation (any account); 404 once retention deleted it",
        "Generation id (gen-…).",
        "Generation",
      ),
    },
    "/usage": {
      get: {
        summary: "Usage aggregates by day, model, provider, key or account",
        parameters: [
          ...usageRange,
          ...dimensionFilters,
          q("group_by", "Grouping (default day).", { enum: ["day", "model", "provider", "key", "account"] }),
        ],
        responses: answers(
          list(ref("Usage"), {
            groupBy: { type: "string" },
            from: { type: "string" },
            to: { type: "string" },
            total: ref("Usage"),
          }),
        ),
      },
    },
    "/overview": {
      get: {
        summary: "Every day of the range (empty days included) and the range's total",
        parameters: [...usageRange, ...dimensionFilters],
        responses: answers({
          type: "object",
          properties: { days: { type: "array", items: ref("Usage") }, total: ref("Usage") },
        }),
      },
    },
    "/keys": {
      get: {
        summary: "API keys with their spend today, this month (UTC) and in total",
        parameters: [q("account", "Only this account's keys.")],
        responses: answers(list(ref("Key"))),
      },
      post: {
        summary: "Create an API key; the secret is in this answer only",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["account"],
                additionalProperties: false,
                properties: {
                  account: { type: "string", description: "Created when new." },
                  name: { type: "string" },
                  kind: { enum: ["payg", "subscription"] },
                  credits: { ...money, description: "Added to the account." },
                  limits: ref("KeyLimits"),
                  budget: ref("KeyBudget"),
                },
              },
            },
          },
        },
        responses: answers(
          { allOf: [ref("Key"), { type: "object", properties: { key: { type: "string" } } }] },
          "201",
          "Created",
        ),
      },
    },
    "/keys/{id}": {
      delete: onRecord("Revoke a key", "Key id (key_…).", "Key"),
    },
    "/accounts": {
      get: {
        summary: "Accounts and balances",
        responses: answers(list(ref("Account"))),
      },
    },
    "/accounts/{id}": {
      get: onRecord("One account", "Account id.", "Account"),
    },
    "/accounts/{id}/credit": {
      post: {
        summary: "Add (or with a negative amount remove) credits",
        parameters: [pathId("Account id.")],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { type: "object", required: ["amount"], properties: { amount: money } },
            },
          },
        },
        responses: answers({ type: "object", properties: { id: { type: "string" }, balance: money } }),
      },
    },
    "/models": {
      get: {
        summary: "The served catalog with prices (tiers as pricing items with conditions)",
        responses: answers(list({ type: "object" })),
      },
    },
    "/providers": {
      get: {
        summary:
          "Providers, their endpoints' breaker state and latency, and this process's recent upstream errors",
        responses: answers(list({ type: "object" })),
      },
    },
  },
} as const;

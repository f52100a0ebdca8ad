// Fakes of the cloud platforms' native APIs (docs/clouds.md): each is a front server that checks what
// the platform checks (its paths, its authorization, its body rules) and answers as the platform
// does when they fail, then hands the call, in the model vendor's own terms, to the vendor's fake
// (index.ts), whose answer comes back unchanged: Azure OpenAI and Vertex answer in the OpenAI,
// Gemini and Anthropic wire formats themselves.
//
//   const azure = await startFakeAzure({ apiKey: "k" });   // azure.url, azure.vendor.openai.script(…)
//   const tokens = await startFakeGoogleTokens();           // GCE_METADATA_HOST = tokens.host
//   const vertex = await startFakeVertex({ project: "p", location: "us-east5", tokens });

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { vertexPredict } from "./embeddings.ts";
import { type FakeUpstream, startFakeUpstream } from "./index.ts";
import type { FakeProtocol } from "./reply.ts";

/** One request as the platform received it. */
export interface PlatformRequest {
  path: string;
  headers: IncomingMessage["headers"];
  rawBody: string;
  body: any;
}

/** Where a platform call goes in its vendor's API, or the platform's own answer refusing it. */
type Routed =
  | {
      vendor: FakeProtocol;
      path: string;
      body: unknown;
      headers?: Record<string, string>;
      /** What the platform adds to the vendor's answer: SSE text before a stream, members to a whole answer. */
      adds?: { streamOpening: string; whole(answer: any): unknown };
    }
  | { status: number; body: unknown; headers?: Record<string, string> };

export interface FakePlatform {
  readonly url: string;
  /** Every request the platform received, in order, as sent. */
  readonly requests: PlatformRequest[];
  /** The vendors' fakes behind it: script their replies, read what reached them. */
  readonly vendor: Partial<Record<FakeProtocol, FakeUpstream>>;
  /** Queues platform-level answers for the next requests (before any vendor sees them). */
  refuseNext(status: number, body: unknown, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

/** The platform's own credential as each vendor's fake wants one (any is accepted). */
const VENDOR_KEY: Record<FakeProtocol, Record<string, string>> = {
  openai: { authorization: "Bearer platform" },
  "openai-responses": { authorization: "Bearer platform" },
  anthropic: { "x-api-key": "platform", "anthropic-version": "2023-06-01" },
  gemini: { "x-goog-api-key": "platform" },
};

async function startPlatform(
  vendors: FakeProtocol[],
  route: (request: PlatformRequest) => Routed | Promise<Routed>,
): Promise<FakePlatform> {
  const vendor: Partial<Record<FakeProtocol, FakeUpstream>> = {};
  for (const name of vendors) vendor[name] = await startFakeUpstream(name);
  const requests: PlatformRequest[] = [];
  const refusals: Array<{ status: number; body: unknown; headers?: Record<string, string> }> = [];
  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent) send(res, 500, { message: String(err) });
      else res.destroy();
    });
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const request = { path: req.url ?? "/", headers: req.headers, rawBody, body };
    requests.push(request);
    const routed = refusals.shift() ?? (await route(request));
    if (!("vendor" in routed)) return send(res, routed.status, routed.body, routed.headers);
    const upstream = vendor[routed.vendor];
    if (!upstream) return send(res, 404, { message: `no ${routed.vendor} behind this fake` });
    const answer = await fetch(new URL(routed.path, upstream.url.replace(/\/v1$/, "")), {
      method: "POST",
      headers: { "content-type": "application/json", ...VENDOR_KEY[routed.vendor], ...routed.headers },
      body: JSON.stringify(routed.body),
    });
    const headers: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding") headers[name] = value;
    });
    res.writeHead(answer.status, headers);
    if (!answer.body) return void res.end();
    const adds = answer.status < 400 ? routed.adds : undefined;
    if (adds && !headers["content-type"]?.startsWith("text/event-stream"))
      return void res.end(JSON.stringify(adds.whole(await answer.json())));
    if (adds) res.write(adds.streamOpening);
    Readable.fromWeb(answer.body as import("node:stream/web").ReadableStream).pipe(res);
  }
  const url = await listen(server);
  return {
    url,
    requests,
    vendor,
    refuseNext: (status, body, headers) => void refusals.push({ status, body, headers }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await Promise.all(Object.values(vendor).map((fake) => fake.close()));
    },
  };
}

// ── Azure OpenAI ────────────────────────────────────────────────────────────────────────────────

/** Azure's answer to a missing or wrong key or token. */
const AZURE_401 = {
  error: {
    code: "401",
    message:
      "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.",
  },
};

/** Azure's refusal of a prompt its content filter caught. */
export const AZURE_PROMPT_FILTERED = {
  error: {
    message:
      "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
    type: null,
    param: "prompt",
    code: "content_filter",
    status: 400,
    innererror: {
      code: "ResponsibleAIPolicyViolation",
      content_filter_result: {
        hate: { filtered: false, severity: "safe" },
        self_harm: { filtered: false, severity: "safe" },
        sexual: { filtered: false, severity: "safe" },
        violence: { filtered: true, severity: "high" },
      },
    },
  },
};

export interface AzureOptions {
  /** The resource key `api-key` must carry; absent: none is accepted. */
  apiKey?: string;
  /** Entra ID access tokens accepted as Bearer. */
  bearerTokens?: () => Iterable<string>;
}

export function startFakeAzure(options: AzureOptions): Promise<FakePlatform> {
  return startPlatform(["openai", "openai-responses"], (request) => {
    const key = request.headers["api-key"];
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
    const keyOk = options.apiKey !== undefined && key === options.apiKey;
    const tokenOk = bearer !== undefined && [...(options.bearerTokens?.() ?? [])].includes(bearer);
    if (!keyOk && !tokenOk) return { status: 401, body: AZURE_401 };
    const url = new URL(request.path, "http://azure.invalid");
    const version = url.searchParams.get("api-version");
    const v1 = /^\/openai\/v1\/(chat\/completions|responses)$/.exec(url.pathname);
    if (v1) return toOpenAI(v1[1]!, request.body);
    const deployment = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(url.pathname);
    if ((deployment || url.pathname === "/openai/responses") && !version)
      return { status: 404, body: { error: { code: "404", message: "Resource not found" } } };
    if (deployment)
      return toOpenAI("chat/completions", { ...request.body, model: decodeURIComponent(deployment[1]!) });
    if (url.pathname === "/openai/responses") return toOpenAI("responses", request.body);
    return { status: 404, body: { error: { code: "404", message: "Resource not found" } } };
  });
}

export interface FakeAzureIdentity {
  /** For IDENTITY_ENDPOINT and IDENTITY_HEADER: the App Service managed identity endpoint. */
  readonly endpoint: string;
  readonly secret: string;
  /** Every token issued, in order, with the resource it was asked for. */
  readonly issued: Array<{ token: string; resource: string }>;
  /** The token was issued here for Azure OpenAI's resource. */
  valid(token: string): boolean;
  close(): Promise<void>;
}

/**
 * An App Service managed identity endpoint (what @azure/identity's ManagedIdentityCredential calls when
 * IDENTITY_ENDPOINT and IDENTITY_HEADER are set): `GET ?api-version=2019-08-01&resource=…` with the
 * `X-IDENTITY-HEADER` secret, answered `{access_token, expires_on, resource, token_type}`.
 */
export async function startFakeAzureIdentity(): Promise<FakeAzureIdentity> {
  const secret = `identity-secret-${Math.random().toString(36).slice(2)}`;
  const issued: Array<{ token: string; resource: string }> = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://identity.invalid");
    if (req.headers["x-identity-header"] !== secret)
      return send(res, 401, { error: { code: "UnauthorizedRequest", message: "missing X-IDENTITY-HEADER" } });
    if (url.searchParams.get("api-version") !== "2019-08-01")
      return send(res, 400, { error: { code: "BadRequest", message: "api-version" } });
    const resource = url.searchParams.get("resource") ?? "";
    const token = `eyJ0eXAiOi.fake-entra-${issued.length + 1}`;
    issued.push({ token, resource });
    const expiresOn = String(Math.floor(Date.now() / 1000) + 3600);
    send(res, 200, { access_token: token, expires_on: expiresOn, resource, token_type: "Bearer" });
  });
  const url = await listen(server);
  return {
    endpoint: `${url}/msi/token`,
    secret,
    issued,
    valid: (token) =>
      issued.some(
        (t) =>
          t.token === token &&
          t.resource.replace(/\/\.default$/, "").replace(/\/$/, "") === "https://cognitiveservices.azure.com",
      ),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function toOpenAI(method: string, body: unknown): Routed {
  if (method === "responses") return { vendor: "openai-responses", path: "/v1/responses", body };
  return { vendor: "openai", path: "/v1/chat/completions", body, adds: AZURE_FILTER_RESULTS };
}

const SAFE = { filtered: false, severity: "safe" };
const CONTENT_FILTER_RESULTS = { hate: SAFE, self_harm: SAFE, sexual: SAFE, violence: SAFE };
const PROMPT_FILTER_RESULTS = [{ prompt_index: 0, content_filter_results: CONTENT_FILTER_RESULTS }];

/**
 * What Azure adds to a chat answer: its content filter's verdicts. A stream opens with a chunk of its
 * own holding the prompt's verdicts, with no choices and empty `id` and `model`; a whole answer
 * carries them beside its choices, each choice its own.
 */
const AZURE_FILTER_RESULTS = {
  streamOpening: `data: ${JSON.stringify({ choices: [], created: 0, id: "", model: "", object: "", prompt_filter_results: PROMPT_FILTER_RESULTS })}\n\n`,
  whole: (answer: any) => ({
    ...answer,
    prompt_filter_results: PROMPT_FILTER_RESULTS,
    choices: answer.choices?.map((choice: object) => ({
      ...choice,
      content_filter_results: CONTENT_FILTER_RESULTS,
    })),
  }),
};

// ── Google: a metadata server's tokens, Vertex AI ───────────────────────────────────────────────

export interface FakeGoogleTokens {
  /** `host:port`, for GCE_METADATA_HOST. */
  readonly host: string;
  /** Every token issued, in order. */
  readonly issued: string[];
  /** The token was issued here and has not expired (nor been revoked). */
  valid(token: string): boolean;
  /** Revokes every token issued so far: Vertex refuses them from now on. */
  revokeAll(): void;
  close(): Promise<void>;
}

/**
 * A GCE metadata server that issues access tokens living `lifetimeSeconds`. google-auth-library
 * renews a token five minutes before it expires, so a lifetime under that makes each call renew it.
 */
export async function startFakeGoogleTokens(lifetimeSeconds = 3600): Promise<FakeGoogleTokens> {
  const issued: string[] = [];
  const expiry = new Map<string, number>();
  const server = createServer((req, res) => {
    if (req.headers["metadata-flavor"] !== "Google") return send(res, 403, "Missing Metadata-Flavor header");
    const headers = { "metadata-flavor": "Google" };
    if (req.url?.startsWith("/computeMetadata/v1/instance/service-accounts/default/token")) {
      const token = `ya29.fake-${issued.length + 1}-${Math.random().toString(36).slice(2)}`;
      issued.push(token);
      expiry.set(token, Date.now() + lifetimeSeconds * 1000);
      return send(
        res,
        200,
        { access_token: token, expires_in: lifetimeSeconds, token_type: "Bearer" },
        headers,
      );
    }
    if (req.url?.startsWith("/computeMetadata/v1/project/project-id"))
      return sendRaw(res, 200, "fake-project", headers);
    return sendRaw(res, 200, "", headers);
  });
  const url = await listen(server);
  return {
    host: url.replace(/^http:\/\//, ""),
    issued,
    valid: (token) => (expiry.get(token) ?? 0) > Date.now(),
    revokeAll: () => expiry.clear(),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const VERTEX_401 = {
  error: {
    code: 401,
    message:
      "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    status: "UNAUTHENTICATED",
  },
};

export function startFakeVertex(options: {
  project: string;
  location: string;
  tokens: FakeGoogleTokens;
}): Promise<FakePlatform> {
  const prefix = `/v1/projects/${options.project}/locations/${options.location}/publishers/`;
  return startPlatform(["gemini", "anthropic"], (request) => {
    const bearer = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ""))?.[1];
    if (!bearer || !options.tokens.valid(bearer)) return { status: 401, body: VERTEX_401 };
    const url = new URL(request.path, "http://vertex.invalid");
    if (!url.pathname.startsWith(prefix)) return vertexNotFound(url.pathname);
    const rest = url.pathname.slice(prefix.length);
    const gemini = /^google\/models\/([^:]+):(generateContent|streamGenerateContent|countTokens)$/.exec(rest);
    if (gemini)
      return {
        vendor: "gemini",
        path: `/v1beta/models/${gemini[1]}:${gemini[2]}${url.search}`,
        body: request.body,
      };
    const predict = /^google\/models\/([^:]+):predict$/.exec(rest);
    if (predict) {
      const answer = vertexPredict(decodeURIComponent(predict[1]!), request.body);
      return "status" in answer
        ? {
            status: answer.status,
            body: { error: { code: answer.status, message: answer.message, status: "INVALID_ARGUMENT" } },
          }
        : { status: 200, body: answer.body };
    }
    const claude = /^anthropic\/models\/([^:]+):(rawPredict|streamRawPredict)$/.exec(rest);
    if (claude)
      return vertexClaude(decodeURIComponent(claude[1]!), claude[2] === "streamRawPredict", request.body);
    return vertexNotFound(url.pathname);
  });
}

function vertexNotFound(path: string): Routed {
  return { status: 404, body: { error: { code: 404, message: `${path} not found`, status: "NOT_FOUND" } } };
}

/** Vertex's Claude takes a messages body with its own `anthropic_version` and no `model`. */
function vertexClaude(model: string, stream: boolean, body: any): Routed {
  const invalid = (message: string): Routed => ({
    status: 400,
    body: { type: "error", error: { type: "invalid_request_error", message } },
  });
  if (body?.anthropic_version !== "vertex-2023-10-16")
    return invalid("anthropic_version: vertex-2023-10-16 is required");
  const { anthropic_version: _, anthropic_beta: betas, ...messages } = body;
  if (model === "count-tokens")
    return {
      vendor: "anthropic",
      path: "/v1/messages/count_tokens",
      body: messages,
      headers: anthropicHeaders(betas),
    };
  if ("model" in messages) return invalid("model: Extra inputs are not permitted");
  if (stream !== (messages.stream === true))
    return invalid("stream must match the method (streamRawPredict)");
  return {
    vendor: "anthropic",
    path: "/v1/messages",
    body: { ...messages, model },
    headers: anthropicHeaders(betas),
  };
}

function anthropicHeaders(betas: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (Array.isArray(betas)) headers["anthropic-beta"] = betas.join(",");
  return headers;
}

// ── plumbing ──────────────────────────────────────────────────────────────────────────────────

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendRaw(res, status, JSON.stringify(body), { "content-type": "application/json", ...headers });
}

function sendRaw(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, headers);
  res.end(text);
}

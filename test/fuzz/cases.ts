// The fuzz's inputs: a deterministic list of cases from a seed. Each case is one HTTP exchange (sent
// with node:http) or a raw byte script (sent on its own socket, for what node:http cannot send:
// CR/LF/NUL in heads, broken framing, pipelining, a head that never ends), plus what the oracle
// needs to judge the answer: the error shape the route speaks, the field a 400 should name, and
// whether an upstream was told to fail.

import { mutateBytes, mutateTree } from "./mutate.ts";
import { Rng } from "./prng.ts";
import {
  chatRequest,
  embeddingRequest,
  type Face,
  geminiRequest,
  messagesRequest,
  responsesRequest,
} from "./templates.ts";
import { INJECTION_MARKER, longString, NUMBERS, oddValue, STRINGS } from "./values.ts";

export interface HttpExchange {
  kind: "http";
  method: string;
  /** The request target as sent (node:http refuses only characters outside \x21-\xff). */
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
}

/** Write bytes, pause, half-close (`end`), or reset the connection. */
export type RawStep = { write: Buffer } | { waitMs: number } | { end: true } | { reset: true };

export interface RawExchange {
  kind: "raw";
  steps: RawStep[];
  /** How many requests the script holds (pipelining): at most that many answers may come back. */
  requests: number;
}

export interface FuzzCase {
  id: number;
  category: string;
  /** What was done to the request, for the report. */
  label: string;
  /** The error shape the route speaks (raw cases may also get the chat shape from the HTTP parser). */
  face: Face;
  exchange: HttpExchange | RawExchange;
  /** A 400 to a mutated body must name a field: one of these (the mutated ones), or `body`. */
  bodyFields?: string[];
  /** The body is not JSON at all: a 400 need not name a field. */
  notJson?: boolean;
  /** The upstream behind the model was told to fail: 500–504 are its answer, not the gateway's bug. */
  upstreamFails?: boolean;
  /** Statuses that are right for this case; anything else is a failure. */
  expectStatus?: number[];
}

/** The models a fuzz gateway serves, and how each reaches its upstream. */
export interface FuzzModel {
  id: string;
  reasoning: boolean;
  /** Its upstream fails on purpose (scripted faults). */
  failing?: boolean;
}

export interface CaseWorld {
  models: FuzzModel[];
  /** The embedding models served (local/embed-1, and ones behind each embedding upstream). */
  embeddingModels: string[];
  keys: { payg: string; sub: string; other: string; broke: string; admin: string };
}

const CATEGORIES: Array<[number, string]> = [
  [5, "valid"],
  [40, "mutate"],
  [10, "bytes"],
  [7, "credentials"],
  [6, "headers"],
  [8, "paths"],
  [8, "listing"],
  [4, "lookup"],
  [3, "misc"],
  [7, "raw"],
  [2, "huge"],
  [4, "admin"],
  [5, "embed"],
  [4, "memory"],
];

/** Every category a run draws from: a shorter run must still send some of each. */
export const CATEGORY_NAMES: readonly string[] = CATEGORIES.map(([, name]) => name);

export function generateCases(seed: number, count: number, world: CaseWorld): FuzzCase[] {
  const root = new Rng(seed);
  const cases: FuzzCase[] = [];
  for (let id = 0; id < count; id++) {
    // One generator per case, so that case N is the same whatever the count.
    const rng = root.fork();
    const category = rng.weighted(CATEGORIES);
    cases.push({ id, category, ...GENERATORS[category](rng, world) });
  }
  return cases;
}

type Generated = Omit<FuzzCase, "id" | "category">;

const GENERATORS: Record<string, (rng: Rng, world: CaseWorld) => Generated> = {
  valid(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world);
    const body = template(rng, face, model);
    return {
      label: `valid ${face} request to ${model.id}`,
      face,
      exchange: inference(face, model, body, credentials(face, world.keys.payg)),
      upstreamFails: model.failing,
      expectStatus: model.failing ? undefined : [200],
    };
  },

  mutate(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world);
    const { body, mutations } = mutateTree(rng, template(rng, face, model), face);
    return {
      label: `${face} to ${model.id}: ${mutations.map((m) => `${m.path} ${m.what}`).join("; ")}`,
      face,
      exchange: inference(face, model, body, credentials(face, world.keys.payg)),
      bodyFields: mutations.map((m) => m.field),
      upstreamFails: model.failing,
    };
  },

  /** An embedding request of either face, valid or with its tree mutated. */
  embed(rng, world) {
    const face = rng.pick(["chat", "gemini"] as const);
    const model = rng.pick(world.embeddingModels);
    const { path, body } = embeddingRequest(rng, face, model, !model.startsWith("fg/"));
    const exchange = inference(face, { id: model, reasoning: false }, {}, credentials(face, world.keys.payg));
    exchange.path = path;
    if (rng.chance(0.2)) {
      exchange.body = Buffer.from(JSON.stringify(body));
      return { label: `valid ${face} embedding to ${model}`, face, exchange, expectStatus: [200] };
    }
    const { body: mutated, mutations } = mutateTree(rng, body, face);
    exchange.body = Buffer.from(JSON.stringify(mutated));
    return {
      label: `${face} embedding to ${model}: ${mutations.map((m) => `${m.path} ${m.what}`).join("; ")}`,
      face,
      exchange,
      bodyFields: mutations.map((m) => m.field),
    };
  },

  bytes(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world);
    const { body, what } = mutateBytes(rng, JSON.stringify(template(rng, face, model)));
    const exchange = inference(face, model, {}, credentials(face, world.keys.payg));
    exchange.body = body;
    return {
      label: `${face} to ${model.id}: ${what}`,
      face,
      exchange,
      bodyFields: ["body"],
      notJson: true,
      upstreamFails: model.failing,
    };
  },

  credentials(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world, false);
    const { keys } = world;
    const variants: Array<[string, Record<string, string | string[]>, string, number[]]> = [
      ["no credential", {}, "", [401]],
      ["wrong key", credentials(face, "sk-wrong-key"), "", [401]],
      ["empty bearer", { authorization: "Bearer " }, "", [401]],
      [
        "basic auth",
        { authorization: `Basic ${Buffer.from(`u:${keys.payg}`).toString("base64")}` },
        "",
        [401],
      ],
      ["bearer without a space", { authorization: `Bearer${keys.payg}` }, "", [401]],
      ["key with Latin-1 bytes", credentials(face, "sk-é\u00ff"), "", [401]],
      ["huge key", credentials(face, `sk-${"k".repeat(8000)}`), "", [401]],
      ["out-of-credit key", credentials(face, keys.broke), "", [402]],
      ["subscription key", credentials(face, keys.sub), "", [200]],
      ["lowercase bearer", { authorization: `bearer ${keys.payg}` }, "", [200]],
    ];
    if (face === "messages") {
      variants.push(
        ["x-api-key", { "x-api-key": keys.payg }, "", [200]],
        ["empty x-api-key", { "x-api-key": "" }, "", [401]],
        ["x-api-key twice", { "x-api-key": [keys.payg, "sk-wrong"] }, "", [200, 400, 401]],
        [
          "wrong x-api-key beside a good bearer",
          { "x-api-key": "sk-wrong", authorization: `Bearer ${keys.payg}` },
          "",
          [401],
        ],
      );
    }
    if (face === "gemini") {
      variants.push(
        ["x-goog-api-key", { "x-goog-api-key": keys.payg }, "", [200]],
        ["?key=", {}, `key=${encodeURIComponent(keys.payg)}`, [200]],
        ["empty ?key=", {}, "key=", [401]],
        ["?key= twice", {}, `key=sk-wrong&key=${keys.payg}`, [200, 400, 401]],
        ["wrong ?key= beside a good header", { "x-goog-api-key": keys.payg }, "key=sk-wrong", [200]],
        ["x-vendorb-api-key", { "x-vendorb-api-key": keys.payg }, "", [200]],
      );
    }
    if (face === "chat" || face === "responses")
      variants.push(["x-api-key on chat", { "x-api-key": keys.payg }, "", [401]]);
    const [label, headers, query, expect] = rng.pick(variants);
    const exchange = inference(face, model, template(rng, face, model, true), headers, query);
    return {
      label: `${face} to ${model.id}: ${label}`,
      face,
      exchange,
      expectStatus: expect.length > 0 ? expect : undefined,
    };
  },

  headers(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world);
    const exchange = inference(face, model, template(rng, face, model), credentials(face, world.keys.payg));
    const changes: string[] = [];
    for (let n = rng.range(1, 3); n > 0; n--) {
      const [name, value] = rng.pick(HEADER_CHANGES);
      const v = typeof value === "function" ? value(rng) : value;
      if (v === undefined) delete exchange.headers[name];
      else exchange.headers[name] = v;
      changes.push(`${name}: ${JSON.stringify(v)?.slice(0, 40)}`);
    }
    return {
      label: `${face} to ${model.id}: ${changes.join("; ")}`,
      face,
      exchange,
      upstreamFails: model.failing,
    };
  },

  paths(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world, false);
    const exchange = inference(
      face,
      model,
      template(rng, face, model, true),
      credentials(face, world.keys.payg),
    );
    const base = exchange.path.split("?")[0];
    const variant = rng.pick(PATH_VARIANTS(face, base, model.id));
    exchange.path = variant.path;
    if (variant.method) exchange.method = variant.method;
    return {
      label: `${exchange.method} ${short(exchange.path)}`,
      face: faceOfPath(exchange.path, exchange.headers),
      exchange,
    };
  },

  listing(rng, world) {
    const served = world.models.map((m) => m.id);
    const id = rng.chance(0.7)
      ? rng.pick(served)
      : rng.pick(["nope/none", "local", "local/", "", "%FF%FE", "..", "%2e%2e"]);
    const enc = rng.chance(0.3) ? encodeURIComponent(id) : id;
    const query = rng.chance(0.6) ? `?${rng.pick(LISTING_QUERIES)}` : "";
    const path = rng.pick([
      `/v1/models${query}`,
      `/v1/models/${enc}${query}`,
      `/v1beta/models${query}`,
      `/v1beta/models/${enc}${query}`,
      `/v1beta/models/models/${enc}`,
      `/v1beta/models/../models`,
      `/v1beta/models/${enc}/extra`,
      `/v1/models/${enc}/`,
      `/v1beta/models/${id.split("/")[1] ?? id}`,
    ]);
    const headers: Record<string, string> = {};
    if (rng.chance(0.4)) headers["anthropic-version"] = rng.pick(["2023-06-01", "2026-10-21", "", "x"]);
    if (rng.chance(0.2)) headers["x-goog-api-key"] = rng.pick([world.keys.payg, "wrong"]);
    if (rng.chance(0.2)) headers.authorization = rng.pick([`Bearer ${world.keys.payg}`, "Bearer wrong"]);
    const method = rng.chance(0.85) ? "GET" : rng.pick(["HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"]);
    return {
      label: `${method} ${short(path)} ${JSON.stringify(headers)}`,
      face: faceOfPath(path, headers),
      exchange: { kind: "http", method, path, headers },
    };
  },

  lookup(rng, world) {
    const base = rng.pick(["/api/v1/management/generation", "/api/v1/generation"]);
    const id = rng.pick([
      "{GEN_ID}",
      "{GEN_ID}",
      "gen-00000000000000000000",
      "",
      "%FF%FE",
      "gen-%00",
      encodeURIComponent(rng.pick(STRINGS).toWellFormed()),
      "x".repeat(5000),
    ]);
    const query = rng.pick([
      `?id=${id}`,
      `?generate_id=${id}`,
      `?id=${id}&id=gen-x`,
      `?id[]=${id}`,
      `?id[a]=${id}`,
      "",
      "?",
      `?id=${id}&${"a=1&".repeat(500)}`,
    ]);
    const key = rng.pick([world.keys.payg, world.keys.sub, world.keys.other, "sk-wrong", undefined]);
    const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
    const method = rng.chance(0.9) ? "GET" : rng.pick(["POST", "DELETE", "HEAD"]);
    return {
      label: `${method} ${short(base + query)} key=${key?.slice(0, 12)}`,
      face: "chat",
      exchange: { kind: "http", method, path: base + query, headers },
    };
  },

  // The admin API with a valid admin key: its filters, path ids and bodies (a NUL there once reached
  // PostgreSQL and came back a 500). Only made-up accounts and key ids are written to or revoked, so
  // the run's own keys and credit stay as they are.
  admin(rng, world) {
    const value = () =>
      rng.chance(0.5) ? encodeURIComponent(rng.pick(STRINGS).toWellFormed()) : rng.pick(ADMIN_VALUES);
    const params = () =>
      Array.from({ length: rng.range(0, 3) }, () => `${rng.pick(ADMIN_PARAMS)}=${value()}`).join("&");
    const made = `fuzz-${rng.range(0, 1_000_000)}`;
    const [method, path, body] = rng.pick<[string, string, unknown]>([
      ["GET", `/generations?${params()}`, undefined],
      ["GET", `/generations/${value()}`, undefined],
      ["GET", `/usage?${params()}`, undefined],
      ["GET", `/overview?${params()}`, undefined],
      ["GET", `/keys?${params()}`, undefined],
      ["GET", `/accounts/${value()}`, undefined],
      ["GET", "/accounts", undefined],
      ["GET", "/models", undefined],
      ["GET", "/providers", undefined],
      ["DELETE", `/keys/${value()}`, undefined],
      ["POST", "/keys", newKeyBody(rng, made)],
      ["POST", `/accounts/${made}/credit`, { amount: rng.chance(0.5) ? rng.pick(NUMBERS) : oddValue(rng) }],
    ]);
    const headers: Record<string, string> = { authorization: `Bearer ${world.keys.admin}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    return {
      label: `admin ${method} ${short(path)}`,
      face: "chat",
      exchange: {
        kind: "http",
        method,
        path: `/api/v1/admin${path}`,
        headers,
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      },
    };
  },

  /** The Responses API's memory: stored responses, background runs and conversations. */
  memory(rng, world) {
    const id = () =>
      rng.chance(0.4) ? encodeURIComponent(rng.pick(STRINGS).toWellFormed()) : rng.pick(MEMORY_IDS);
    const query = () =>
      Array.from(
        { length: rng.range(0, 3) },
        () => `${rng.pick(["after", "limit", "order", "stream", "starting_after", "include"])}=${id()}`,
      ).join("&");
    const items = () =>
      rng.chance(0.5)
        ? oddValue(rng)
        : [rng.chance(0.5) ? oddValue(rng) : { type: "message", role: "user", content: oddValue(rng) }];
    // A compaction item: ours in shape (a `swc1.` prefix), never in content.
    const compaction = () => ({
      type: "compaction",
      encrypted_content: rng.chance(0.5) ? `swc1.${rng.pick(STRINGS)}` : oddValue(rng),
    });
    const continuation = () => ({
      model: "local/echo-1",
      input: rng.chance(0.6)
        ? "hi"
        : [
            rng.chance(0.5)
              ? { type: "item_reference", id: rng.chance(0.5) ? id() : oddValue(rng) }
              : compaction(),
          ],
      ...rng.pick([
        { previous_response_id: rng.chance(0.5) ? rng.pick(STRINGS) : oddValue(rng) },
        { conversation: rng.chance(0.5) ? { id: oddValue(rng) } : oddValue(rng) },
        { background: oddValue(rng), store: oddValue(rng) },
        { truncation: oddValue(rng) },
      ]),
    });
    const compact = () =>
      rng.chance(0.1)
        ? oddValue(rng)
        : {
            model: rng.chance(0.8) ? "local/echo-1" : oddValue(rng),
            input: rng.pick(["hi", oddValue(rng), [compaction()], undefined]),
            ...(rng.chance(0.3) ? { previous_response_id: rng.chance(0.5) ? id() : oddValue(rng) } : {}),
            ...(rng.chance(0.2) ? { instructions: oddValue(rng) } : {}),
          };
    const [method, path, body] = rng.pick<[string, string, unknown]>([
      ["POST", "/v1/responses", continuation()],
      ["POST", "/v1/responses/compact", compact()],
      ["GET", `/v1/responses/${id()}?${query()}`, undefined],
      ["DELETE", `/v1/responses/${id()}`, undefined],
      ["POST", `/v1/responses/${id()}/cancel`, undefined],
      ["GET", `/v1/responses/${id()}/input_items?${query()}`, undefined],
      [
        "POST",
        "/v1/conversations",
        rng.chance(0.8) ? { items: items(), metadata: oddValue(rng) } : oddValue(rng),
      ],
      ["GET", `/v1/conversations/${id()}`, undefined],
      ["POST", `/v1/conversations/${id()}`, { metadata: oddValue(rng) }],
      ["DELETE", `/v1/conversations/${id()}`, undefined],
      ["GET", `/v1/conversations/${id()}/items?${query()}`, undefined],
      ["POST", `/v1/conversations/${id()}/items`, { items: items() }],
      ["GET", `/v1/conversations/${id()}/items/${id()}`, undefined],
      ["DELETE", `/v1/conversations/${id()}/items/${id()}`, undefined],
    ]);
    const key = rng.pick([world.keys.payg, world.keys.payg, world.keys.other, "sk-wrong"]);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    return {
      label: `memory ${method} ${short(path)}`,
      face: "chat",
      exchange: {
        kind: "http",
        method,
        path,
        headers,
        body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
      },
    };
  },

  misc(rng) {
    const path = rng.pick([
      "/",
      "/healthz",
      "/readyz",
      "/metrics",
      "/?x=1",
      "/healthz?verbose=%FF",
      "/metrics?name[]=x",
      "/nope",
      "/v2/chat/completions",
      "/v1/chat/completions/extra",
      "/v1/messages/count_tokens",
      "/v1/messagesx",
      "/v1/completions",
      "/v1/embeddings",
      "/api/v1/admin/keys",
      "/dashboard",
      "//",
      "/%00",
      "/%FF%FE",
      "/..%2f..%2fetc%2fpasswd",
      `/${"a".repeat(6000)}`,
      `/${INJECTION_MARKER}%0d%0ax-${INJECTION_MARKER}:%201`,
    ]);
    const method = rng.pick(["GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"]);
    const body =
      method === "GET" || method === "HEAD" || rng.chance(0.5) ? undefined : Buffer.from('{"a":1}');
    return {
      label: `${method} ${short(path)}`,
      face: faceOfPath(path),
      exchange: {
        kind: "http",
        method,
        path,
        headers: body ? { "content-type": "application/json" } : ({} as Record<string, string>),
        body,
      },
    };
  },

  raw(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world, false);
    const exchange = inference(
      face,
      model,
      template(rng, face, model, true),
      credentials(face, world.keys.payg),
    );
    const [label, steps, requests] = rng.pick(RAW_SCRIPTS)(exchange, rng);
    return { label: `raw ${face}: ${label}`, face, exchange: { kind: "raw", steps, requests } };
  },

  huge(rng, world) {
    const face = pickFace(rng);
    const model = pickModel(rng, world, false);
    const body = template(rng, face, model, true);
    const size = rng.pick([300_000, 1_000_000, 2_500_000, 4_500_000]);
    const what = rng.pick(["string", "array", "deep", "keys"]);
    if (what === "string") setPrompt(body, face, longString(rng, size));
    else if (what === "array") {
      if (face === "responses") body.input = [{ role: "user", content: "Hello" }];
      const list = (
        face === "gemini" ? body.contents : face === "responses" ? body.input : body.messages
      ) as unknown[];
      const item = list[0];
      for (let i = Math.floor(size / 40); i > 0; i--) list.push(item);
    } else if (what === "keys") for (let i = 0; i < size / 30; i++) body[`unknown_${i}_🚀`] = i;
    const exchange = inference(face, model, body, credentials(face, world.keys.payg));
    // Built as text: the test's own JSON.stringify would overflow its stack on it.
    if (what === "deep")
      exchange.body = Buffer.from(
        `${JSON.stringify(body).slice(0, -1)},"metadata":${"[".repeat(size / 2)}${"]".repeat(size / 2)}}`,
      );
    return {
      label: `${face} to ${model.id}: huge ${what} of ${size} characters`,
      face,
      exchange,
      bodyFields: ["body"],
    };
  },
};

function pickFace(rng: Rng): Face {
  return rng.pick(["chat", "messages", "gemini", "responses"] as const);
}

/** A served model; `failing` lets in the models whose upstream fails on purpose. */
function pickModel(rng: Rng, world: CaseWorld, failing = true): FuzzModel {
  return rng.pick(world.models.filter((m) => failing || !m.failing));
}

/** A valid request for the face: the smallest one (`simple`), or one of the templates. */
function template(rng: Rng, face: Face, model: FuzzModel, simple = false): Record<string, unknown> {
  if (simple) {
    if (face === "gemini") return { contents: [{ role: "user", parts: [{ text: "Hello" }] }] };
    if (face === "responses") return { model: model.id, max_output_tokens: 16, input: "Hello" };
    return { model: model.id, max_tokens: 16, messages: [{ role: "user", content: "Hello" }] };
  }
  if (face === "chat") return chatRequest(rng, model.id);
  if (face === "responses") return responsesRequest(rng, model.id);
  if (face === "messages") return messagesRequest(rng, model.id);
  return geminiRequest(rng, model.reasoning);
}

function setPrompt(body: Record<string, unknown>, face: Face, text: string): void {
  if (face === "gemini") body.contents = [{ role: "user", parts: [{ text }] }];
  else if (face === "responses") body.input = text;
  else body.messages = [{ role: "user", content: text }];
}

/** The credential each face takes by default. */
function credentials(face: Face, key: string): Record<string, string> {
  if (face === "messages") return { "x-api-key": key, "anthropic-version": "2023-06-01" };
  if (face === "gemini") return { "x-goog-api-key": key };
  return { authorization: `Bearer ${key}` };
}

/** A POST to the face's inference endpoint (a gemini body's stream flag picks the method). */
function inference(
  face: Face,
  model: FuzzModel,
  body: Record<string, unknown>,
  headers: Record<string, string | string[]>,
  query = "",
): HttpExchange {
  let path: string;
  if (face === "chat") path = "/v1/chat/completions";
  else if (face === "responses") path = "/v1/responses";
  else if (face === "messages") {
    path = "/v1/messages";
    // Claude Code posts to /v1/messages?beta=true: half of the cases do too.
    if (JSON.stringify(body).length % 2 === 1) query = [query, "beta=true"].filter(Boolean).join("&");
  } else {
    const stream = (model.id.length + JSON.stringify(body).length) % 2 === 0;
    path = `/v1beta/models/${model.id}:${stream ? "streamGenerateContent" : "generateContent"}`;
    query = [stream ? "alt=sse" : "", query].filter(Boolean).join("&");
  }
  if (face === "messages" && headers["anthropic-version"] === undefined)
    headers = { ...headers, "anthropic-version": "2023-06-01" };
  return {
    kind: "http",
    method: "POST",
    path: query ? `${path}?${query}` : path,
    headers: { "content-type": "application/json", ...headers },
    body: Buffer.from(JSON.stringify(body)),
  };
}

/** The error shape a path's answers are in: Gemini's under /v1beta/, messages' under /v1/messages. */
/**
 * The protocol an error to a path is written in (docs/operations.md): Gemini's under `/v1beta/`,
 * for a path ending in a `:method`, and for `/v1/models…` asked with a Gemini credential; messages'
 * under `/v1/messages`; the chat shape (which the Responses API shares) for the rest.
 */
export function faceOfPath(url: string, headers: Record<string, string | string[]> = {}): Face {
  const [path, query = ""] = url.split("?", 2);
  if (path.startsWith("/v1beta/") || /(?::|%3a)[a-z]+$/i.test(path)) return "gemini";
  if (path.startsWith("/v1/messages")) return "messages";
  const geminiCaller = headers["x-goog-api-key"] !== undefined || new URLSearchParams(query).has("key");
  if ((path === "/v1/models" || path.startsWith("/v1/models/")) && geminiCaller) return "gemini";
  return "chat";
}

function short(text: string): string {
  return text.length > 120 ? `${text.slice(0, 100)}… (${text.length} chars)` : text;
}

const HEADER_CHANGES: Array<[string, string | string[] | undefined | ((rng: Rng) => string | undefined)]> = [
  ["anthropic-version", undefined],
  ["anthropic-version", "2026-10-21"],
  ["anthropic-version", "garbage"],
  ["anthropic-version", ""],
  ["anthropic-version", ["2023-06-01", "2023-06-01"]],
  ["vendora-version", "2023-06-01"],
  ["anthropic-beta", "code-execution-2025-08-25"],
  ["anthropic-beta", "interleaved-thinking-2025-05-14,context-management-2025-06-27"],
  ["anthropic-beta", ",,, ,"],
  ["anthropic-beta", (rng) => Array.from({ length: 200 }, (_, i) => `beta-${i}-${rng.int(9)}`).join(",")],
  ["content-type", "text/plain"],
  ["content-type", "application/x-www-form-urlencoded"],
  ["content-type", "multipart/form-data; boundary=x"],
  ["content-type", "application/json; charset=latin1"],
  ["content-type", undefined],
  ["content-encoding", "gzip"],
  ["accept", "text/event-stream"],
  ["accept-encoding", "br, gzip, deflate"],
  ["expect", "100-continue"],
  ["x-forwarded-for", "1.2.3.4, ::1, ;;"],
  ["x-long", (rng) => "v".repeat(rng.pick([1000, 12_000]))],
  ["x-latin1", "caf\u00e9 \u00ff"],
  ["x-goog-api-key", ""],
  ["user-agent", "claude-cli/2.0.0 (external, cli)"],
  ["transfer-encoding", "chunked"],
];

function PATH_VARIANTS(face: Face, base: string, model: string): Array<{ path: string; method?: string }> {
  const verb = base.includes(":") ? base.slice(base.lastIndexOf(":")) : "";
  const list: Array<{ path: string; method?: string }> = [
    { path: `${base}/` },
    { path: `${base}?${"q=1&".repeat(300)}` },
    { path: `${base}?%FF=%FE&a=%00` },
    { path: `${base}?beta=true` },
    { path: `${base}?beta=true&beta=false` },
    { path: `${base}?stream=true` },
    { path: `${base}?a[b][c]=d` },
    { path: base, method: "GET" },
    { path: base, method: "PUT" },
    { path: base, method: "OPTIONS" },
    { path: base, method: "HEAD" },
    { path: `/${base}` },
    { path: base.toUpperCase() },
    { path: `${base}%00` },
  ];
  if (face === "gemini") {
    const bare = model.split("/")[1] ?? model;
    for (const m of [
      "%FF%FE",
      "%00",
      "..",
      "../../v1/models",
      `models/${model}`,
      bare,
      encodeURIComponent(model),
      `${model}%`,
      `${model}%G1`,
      "",
      `${"x".repeat(5000)}`,
      `${model}/`,
      `${model}:generateContent`,
      `${model}${verb}`,
    ])
      list.push({ path: `/v1beta/models/${m}${verb}` });
    list.push(
      { path: `/v1beta/models/${model}:countTokens` },
      { path: `/v1beta/models/${model}:embedContent` },
      { path: `/v1beta/models/${model}` },
      { path: `/v1beta/models/${model}:` },
      { path: `/v1beta/models/${model}::generateContent` },
      { path: `/v1beta/models/${model}:streamGenerateContent?alt=json` },
      { path: `/v1beta/models/${model}:streamGenerateContent` },
      { path: `/v1beta/models/${model}:generateContent?alt=sse` },
      { path: `/v1/models/${model}:generateContent` },
    );
  }
  if (face === "messages") list.push({ path: "/v1/messages?beta=true" }, { path: "/v1/messages/batches" });
  return list;
}

const LISTING_QUERIES = [
  "limit=1",
  "limit=0",
  "limit=-1",
  "limit=1000",
  "limit=1001",
  "limit=1e9",
  "limit=abc",
  "limit=",
  "limit=1.5",
  "limit=1&limit=2",
  "after_id=local/echo-1",
  "after_id=nope/none",
  "before_id=local/think-1",
  "after_id=local/echo-1&before_id=local/think-1",
  "after_id=%FF",
  "pageSize=1",
  "pageSize=0",
  "pageSize=-5",
  "pageSize=1001",
  "pageSize=1e21",
  "pageSize=x",
  "pageToken=garbage",
  "pageToken=%FF%FE",
  "pageToken=bG9jYWwvZWNoby0x",
  "pageSize=1&pageToken=",
  "key=wrong",
];

type RawScript = (exchange: HttpExchange, rng: Rng) => [string, RawStep[], number];

function head(exchange: HttpExchange, extra = "", opts: { length?: number; close?: boolean } = {}): string {
  let text = `${exchange.method} ${exchange.path} HTTP/1.1\r\nHost: fuzz\r\n`;
  for (const [name, value] of Object.entries(exchange.headers))
    for (const v of Array.isArray(value) ? value : [value]) text += `${name}: ${v}\r\n`;
  text += extra;
  if (opts.length !== undefined) text += `Content-Length: ${opts.length}\r\n`;
  if (opts.close !== false) text += "Connection: close\r\n";
  return `${text}\r\n`;
}

const w = (text: string | Buffer): RawStep => ({
  write: Buffer.isBuffer(text) ? text : Buffer.from(text, "latin1"),
});

const RAW_SCRIPTS: RawScript[] = [
  (x) => {
    const body = x.body ?? Buffer.alloc(0);
    return [
      "body shorter than its Content-Length, then a close",
      [w(head(x, "", { length: body.length + 500 })), w(body), { waitMs: 30 }, { end: true }],
      1,
    ];
  },
  (x) => [
    "Content-Length not a number",
    [
      w(head(x, "", { length: undefined }).replace("\r\n\r\n", "\r\nContent-Length: 12abc\r\n\r\n")),
      w(x.body ?? ""),
    ],
    1,
  ],
  (x) => ["negative Content-Length", [w(head(x, "Content-Length: -1\r\n")), w(x.body ?? "")], 1],
  (x) => [
    "two different Content-Lengths",
    [w(head(x, `Content-Length: 5\r\nContent-Length: ${x.body?.length}\r\n`)), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "huge Content-Length",
    [w(head(x, "Content-Length: 99999999999999999999\r\n")), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "Content-Length and chunked together",
    [w(head(x, `Content-Length: ${x.body?.length}\r\nTransfer-Encoding: chunked\r\n`)), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "chunk size not hex",
    [w(head(x, "Transfer-Encoding: chunked\r\n")), w("zz\r\nabc\r\n0\r\n\r\n")],
    1,
  ],
  (x) => [
    "chunk longer than its size",
    [w(head(x, "Transfer-Encoding: chunked\r\n")), w(`2\r\n${x.body}\r\n0\r\n\r\n`)],
    1,
  ],
  (x) => [
    "chunked body never finished, then a close",
    [
      w(head(x, "Transfer-Encoding: chunked\r\n")),
      w(`${(x.body?.length ?? 0).toString(16)}\r\n`),
      w(x.body ?? ""),
      { waitMs: 30 },
      { end: true },
    ],
    1,
  ],
  (x) => [
    "valid chunked body in small pieces",
    [w(head(x, "Transfer-Encoding: chunked\r\n")), ...chunked(x.body ?? Buffer.alloc(0))],
    1,
  ],
  (x) => [
    "chunk extension and trailer",
    [
      w(head(x, "Transfer-Encoding: chunked\r\n")),
      w(`${(x.body?.length ?? 0).toString(16)};ext=1\r\n`),
      w(x.body ?? ""),
      w("\r\n0\r\nx-trailer: 1\r\n\r\n"),
    ],
    1,
  ],
  (x) => [
    "header value with a bare LF",
    [w(head(x, `x-a: b\nx-${INJECTION_MARKER}: 1\r\n`, { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "header value with a bare CR",
    [w(head(x, `x-a: b\rx-${INJECTION_MARKER}: 1\r\n`, { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "header value with NUL",
    [w(head(x, "x-a: b\u0000c\r\n", { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "NUL in the credential",
    [
      w(
        head(
          {
            ...x,
            headers: {
              ...x.headers,
              authorization: "Bearer sk-\u0000x",
              "x-api-key": "sk\u0000",
              "x-goog-api-key": "sk\u0000",
            },
          },
          "",
          { length: x.body?.length },
        ),
      ),
      w(x.body ?? ""),
    ],
    1,
  ],
  (x) => [
    "obsolete line folding",
    [w(head(x, "x-a: b\r\n folded\r\n", { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "header without a colon",
    [w(head(x, "no-colon-here\r\n", { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "space before the colon",
    [w(head(x, "x-a : b\r\n", { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "non-ASCII header name",
    [w(head(x, "x-ключ: 1\r\n", { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "UTF-8 bytes in a header value",
    [
      w(
        Buffer.concat([
          Buffer.from(head(x, "", { length: x.body?.length }).replace("\r\n\r\n", "\r\n")),
          Buffer.from("x-u: 键🚀\r\n\r\n"),
          x.body ?? Buffer.alloc(0),
        ]),
      ),
    ],
    1,
  ],
  (x) => [
    "UTF-8 bytes and a CR/LF escape in the path",
    [
      w(
        Buffer.concat([
          Buffer.from(
            head(x, "", { length: x.body?.length }).replace(" HTTP/1.1", "?q=键%0D%0Ax-a:1 HTTP/1.1"),
          ),
          x.body ?? Buffer.alloc(0),
        ]),
      ),
    ],
    1,
  ],
  (x) => [
    "HTTP/1.0 without Host",
    [
      w(head(x, "", { length: x.body?.length }).replace("HTTP/1.1\r\nHost: fuzz", "HTTP/1.0")),
      w(x.body ?? ""),
    ],
    1,
  ],
  (x) => [
    "HTTP/2.0 in the request line",
    [w(head(x, "", { length: x.body?.length }).replace("HTTP/1.1", "HTTP/2.0")), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "absolute-form target",
    [
      w(head(x, "", { length: x.body?.length }).replace(` ${x.path} `, ` http://fuzz${x.path} `)),
      w(x.body ?? ""),
    ],
    1,
  ],
  (x) => [
    "lowercase method",
    [w(head(x, "", { length: x.body?.length }).replace(/^POST/, "post")), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "unknown method",
    [w(head(x, "", { length: x.body?.length }).replace(/^POST/, "FUZZ")), w(x.body ?? "")],
    1,
  ],
  () => [
    "garbage instead of a request",
    [w("\u0016\u0003\u0001\u0002\u0000\u0001\u0000\u0001\u00fc\u0003\u0003"), { waitMs: 20 }, { end: true }],
    1,
  ],
  (x) => [
    "head cut short, then a close",
    [w(head(x, "", { length: x.body?.length }).slice(0, 30)), { waitMs: 150 }, { end: true }],
    1,
  ],
  (x) => [
    "slow head: a byte at a time for a while, then a close",
    [
      ...Array.from(head(x).slice(0, 40), (c) => [w(c), { waitMs: 5 }]).flat(),
      { waitMs: 100 },
      { end: true },
    ],
    1,
  ],
  (x, rng) => {
    const n = rng.range(2, 5);
    const one = Buffer.concat([
      Buffer.from(head(x, "", { length: x.body?.length, close: false })),
      x.body ?? Buffer.alloc(0),
    ]);
    const last = Buffer.concat([Buffer.from(head({ ...x, method: "GET", path: "/healthz", headers: {} }))]);
    return [
      `${n} pipelined requests, then a health check`,
      [w(Buffer.concat([...Array(n).fill(one), last]))],
      n + 1,
    ];
  },
  (x) => {
    const one = Buffer.concat([
      Buffer.from(head(x, "", { length: x.body?.length, close: false })),
      x.body ?? Buffer.alloc(0),
    ]);
    return [
      "pipelined request after a broken one",
      [w(Buffer.concat([Buffer.from(head(x, "Content-Length: zz\r\n", { close: false })), one]))],
      2,
    ];
  },
  (x) => [
    "too many headers",
    [
      w(
        head(x, Array.from({ length: 2000 }, (_, i) => `x-h${i}: v\r\n`).join(""), {
          length: x.body?.length,
        }),
      ),
      w(x.body ?? ""),
    ],
    1,
  ],
  (x) => [
    "one header over the size limit",
    [w(head(x, `x-big: ${"a".repeat(20_000)}\r\n`, { length: x.body?.length })), w(x.body ?? "")],
    1,
  ],
  (x) => [
    "reset in the middle of the body",
    [w(head(x, "", { length: (x.body?.length ?? 0) * 2 })), w(x.body ?? ""), { waitMs: 20 }, { reset: true }],
    1,
  ],
];

function chunked(body: Buffer): RawStep[] {
  const steps: RawStep[] = [];
  for (let at = 0; at < body.length; at += 7) {
    const piece = body.subarray(at, at + 7);
    steps.push(w(`${piece.length.toString(16)}\r\n`), w(piece), w("\r\n"));
  }
  steps.push(w("0\r\n\r\n"));
  return steps;
}

const ADMIN_PARAMS = [
  "from",
  "to",
  "cursor",
  "account",
  "key",
  "model",
  "provider",
  "status",
  "limit",
  "group",
];
const MEMORY_IDS = ["{GEN_ID}", "{GEN_ID}", "", "%00", "gen-%00", "conv_x", "msg_1", "%FF", "x".repeat(300)];
const ADMIN_VALUES = ["", "%00", "gen-%00", "acme", "0", "-1", "1e999", "2026-13-45", "%FF", "x".repeat(300)];

/** A new key's body for a made-up account, some of its members odd. */
function newKeyBody(rng: Rng, account: string): unknown {
  const body: Record<string, unknown> = { account };
  for (const member of ["name", "kind", "credits", "limits", "budget"])
    if (rng.chance(0.4)) body[member] = rng.chance(0.5) ? rng.pick(STRINGS).toWellFormed() : oddValue(rng);
  if (rng.chance(0.1)) body.account = oddValue(rng);
  return body;
}

// The inference endpoints on plain node:http, ahead of fastify: they take the raw body and answer on
// the raw socket anyway, and skipping the framework's per-request objects, routing and hooks is a
// measurable share of a relay's CPU (see BENCHMARKS.md). Everything else stays on fastify.

import type { IncomingMessage, ServerResponse } from "node:http";
import { StringDecoder } from "node:string_decoder";
import { writeError } from "../gateway/error-answer.ts";
import { bodyTooLarge } from "../gateway/front-step.ts";
import type { InferenceInput, InferencePipeline } from "../gateway/inference.ts";
import type { Logger } from "../gateway/logger.ts";
import type { TokenCounter } from "../gateway/token-count.ts";
import { GatewayError } from "../ir/errors.ts";
import { protocols } from "../protocols/index.ts";
import type { ProtocolName } from "../protocols/types.ts";
import { decodePathSegment, endsInMethod, protocolOfPath, servedPath } from "./paths.ts";
import { HttpResponder } from "./responder.ts";

export interface InferenceRoute {
  face: ProtocolName;
  pathModel?: string;
  pathStream?: boolean;
  /** A token-counting endpoint (src/gateway/token-count.ts), not an inference. */
  count?: boolean;
  /** An embedding endpoint (src/gateway/embeddings.ts); `single`: Gemini's `:embedContent`. */
  embed?: { single: boolean };
  /** `POST /v1/responses/compact`: a generation answered as the compacted window. */
  compact?: true;
  /** A content-generation path with an unknown method: answered 404 in that protocol. */
  error?: GatewayError;
}

/** The inference endpoints at fixed paths (their protocol is the path's: protocolOfPath). */
const FIXED_PATHS = new Map<string, "infer" | "count" | "embed" | "compact">([
  ["/v1/chat/completions", "infer"],
  ["/v1/embeddings", "embed"],
  ["/v1/messages", "infer"],
  ["/v1/responses", "infer"],
  ["/v1/responses/compact", "compact"],
  ["/v1/messages/count_tokens", "count"],
  ["/v1/responses/input_tokens", "count"],
]);

/** The inference route a request is for, or undefined when fastify should take it. */
export function inferenceRoute(
  method: string | undefined,
  url: string | undefined,
): InferenceRoute | undefined {
  if (method !== "POST" || !url) return undefined;
  const q = url.indexOf("?");
  const path = servedPath(q < 0 ? url : url.slice(0, q));
  const fixed = FIXED_PATHS.get(path);
  if (fixed) {
    const face = protocolOfPath(path);
    if (fixed === "count") return { face, count: true };
    if (fixed === "compact") return { face, compact: true };
    return fixed === "embed" ? { face, embed: { single: false } } : { face };
  }
  const prefix = contentGenerationPrefix(path);
  if (!prefix) return undefined;
  let target: string;
  try {
    target = decodePathSegment(path.slice(prefix.length), "model");
  } catch (error) {
    return { face: "gemini", error: error as GatewayError };
  }
  const at = target.lastIndexOf(":");
  const verb = at < 0 ? "" : target.slice(at + 1);
  if (verb === "generateContent" || verb === "streamGenerateContent")
    return { face: "gemini", pathModel: target.slice(0, at), pathStream: verb === "streamGenerateContent" };
  if (verb === "countTokens") return { face: "gemini", pathModel: target.slice(0, at), count: true };
  if (verb === "embedContent" || verb === "batchEmbedContents")
    return { face: "gemini", pathModel: target.slice(0, at), embed: { single: verb === "embedContent" } };
  return {
    face: "gemini",
    error: new GatewayError(
      "not_found",
      `Unknown method '${verb}'; use :generateContent, :streamGenerateContent, :countTokens, :embedContent or :batchEmbedContents.`,
    ),
  };
}

/**
 * The part of a content-generation path before the model: `/v1beta/models/`, and `/v1/models/`
 * (`@google/genai` 3.x calls API version `v1` by default). Google clients given a `provider/model`
 * id treat it as a resource path and leave `models/` out (the AI SDK's `google("local/echo-1")`
 * calls `/v1beta/local/echo-1:generateContent`), so `/v1beta/` and `/v1/` alone lead a model too.
 * Only a path ending in a `:method` is taken under `/v1/`: the rest there (`/v1/models/…` without
 * one, `/v1/chat/completions`) is other protocols', and fastify's to answer.
 */
function contentGenerationPrefix(path: string): string | undefined {
  if (path.startsWith("/v1beta/models/")) return "/v1beta/models/";
  if (!endsInMethod(path)) return undefined;
  if (path.startsWith("/v1/models/")) return "/v1/models/";
  if (path.startsWith("/v1beta/")) return "/v1beta/";
  if (path.startsWith("/v1/")) return "/v1/";
  return undefined;
}

export interface InferenceServer {
  pipeline: InferencePipeline;
  counter: TokenCounter;
  bodyLimitBytes: number;
  log: Logger;
}

export function serveInference(
  route: InferenceRoute,
  req: IncomingMessage,
  res: ServerResponse,
  server: InferenceServer,
): void {
  if (route.error) {
    req.resume();
    sendError(req, res, route.face, route.error);
    return;
  }
  readBody(req, server.bodyLimitBytes)
    .then(
      (body) => {
        const input: InferenceInput = {
          body,
          headers: req.headers,
          query: queryOf(req.url ?? ""),
          pathModel: route.pathModel,
          pathStream: route.pathStream,
        };
        if (route.embed) input.embed = route.embed;
        if (route.compact) input.compact = true;
        const out = new HttpResponder(req, res);
        if (route.count) return server.counter.handle(route.face, input, out);
        return server.pipeline.handle(route.face, input, out);
      },
      (error: GatewayError) => {
        // A client that went away mid-upload has no one left to answer.
        if (req.destroyed || res.destroyed) return;
        // Answered once the client has sent what it meant to (read and dropped), so that it is
        // reading when the answer comes rather than writing into a closed connection; and on a
        // connection that then closes, since no other request can follow a body left unread.
        afterTheUpload(req, () => sendError(req, res, route.face, error, { connection: "close" }));
      },
    )
    .catch((error: unknown) => lastResort(req, res, route.face, error, server.log));
}

/**
 * An error nothing else caught (a bug): logged, and this one request answered with a 500 in its
 * protocol (or its connection closed, when an answer had begun). Never thrown on, so it cannot end
 * the process and every other request with it.
 */
function lastResort(
  req: IncomingMessage,
  res: ServerResponse,
  face: ProtocolName,
  error: unknown,
  log: InferenceServer["log"],
): void {
  try {
    log.error(
      { err: error, url: req.url, generationId: res.getHeader("x-generation-id") },
      "unexpected error",
    );
    if (res.headersSent) res.destroy();
    else sendError(req, res, face, new GatewayError("api_error", "Internal error in the gateway."));
  } catch {
    res.destroy();
  }
}

/** An error at the edge (before the pipeline), in the caller's protocol. */
function sendError(
  req: IncomingMessage,
  res: ServerResponse,
  face: ProtocolName,
  error: GatewayError,
  headers: Record<string, string> = {},
): void {
  writeError(new HttpResponder(req, res), protocols[face], error, headers);
}

/** How long a refused upload is read (and dropped) before it is answered anyway. */
const DISCARD_MS = 2_000;

/**
 * Reads and drops the rest of a refused body, then runs `answer`; at the latest after DISCARD_MS, so
 * a client that sends forever holds nothing for long. Nothing is answered to a client that left.
 */
export function afterTheUpload(req: IncomingMessage, answer: () => void): void {
  if (req.complete) {
    answer();
    return;
  }
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    if (!req.destroyed || req.complete) answer();
  };
  const timer = setTimeout(once, DISCARD_MS);
  req.removeAllListeners("data");
  req.once("end", once);
  req.once("close", () => {
    done = true;
    clearTimeout(timer);
  });
  req.resume();
}

/**
 * The whole request body, as text. Rejects with a GatewayError in every case: a 413 once it passes
 * the limit, a 400 when the client stops sending before the body is complete (a reset, a close, a
 * broken chunk). Each read is decoded as it arrives (a character cut between two reads is kept whole
 * by the decoder): a body of many megabytes is then never copied into one buffer and decoded in one
 * go while every other request waits (about 25 ms of a 30 MiB body). Its listeners leave the request
 * once the body is whole: a stream holds its request for minutes, and they would hold the body's
 * chunks (and their closures) with it.
 */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const tooLarge = () => bodyTooLarge(limit);
  const declared = Number(req.headers["content-length"]);
  if (declared > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    // Most bodies come in one read: decoded once at the end, with no decoder made for them.
    let first: Buffer | undefined;
    let utf8: StringDecoder | undefined;
    let text = "";
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        reject(tooLarge());
        return;
      }
      if (size === chunk.length) {
        first = chunk;
        return;
      }
      if (!utf8) {
        utf8 = new StringDecoder("utf8");
        if (first) text = utf8.write(first);
        first = undefined;
      }
      text += utf8.write(chunk);
    };
    const onEnd = () => {
      req.off("data", onData);
      req.off("error", incomplete);
      req.off("close", incomplete);
      resolve(utf8 ? text + utf8.end() : (first?.toString("utf8") ?? ""));
    };
    // Every request that ends has these listeners removed first: the error (and its stack trace) is
    // built only when the body was cut short, not on the hot path.
    const incomplete = (err?: Error) =>
      reject(
        new GatewayError(
          "invalid_request",
          `body: the request body was not received whole (${err?.message ?? "connection closed"}).`,
          { param: "body" },
        ),
      );
    req.on("data", onData);
    req.once("end", onEnd);
    req.on("error", incomplete);
    req.on("close", incomplete);
  });
}

function queryOf(url: string): Record<string, string> {
  const q = url.indexOf("?");
  return q < 0 ? {} : Object.fromEntries(new URLSearchParams(url.slice(q + 1)));
}

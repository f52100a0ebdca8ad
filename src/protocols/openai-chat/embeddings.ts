// OpenAI's embeddings API (`POST /v1/embeddings`), both faces: the client face decodes its body and
// writes its answer; the upstream face calls any OpenAI-compatible `{base_url}/embeddings` (OpenAI,
// Mistral, Together, vLLM, Ollama…). Errors are the chat protocol's (errors.ts).

import type { EmbeddingInput, EmbeddingRequest, EmbeddingResponse } from "../../ir/embeddings.ts";
import { invalid } from "../../ir/errors.ts";
import { Unsent } from "../shared/dropped-fields.ts";
import { float32Base64, fromFloat32Base64 } from "../shared/float32-base64.ts";
import { editJson, topLevelMembers } from "../shared/json-edit.ts";
import {
  expectArray,
  expectNumber,
  expectObject,
  expectString,
  isObject,
  optionalString,
} from "../shared/validate.ts";
import type { DecodeContext, EmbeddingRelay, Embeddings } from "../types.ts";
import { decodeRouting } from "./decode-routing.ts";

/** OpenAI's limit on the inputs of one call ("any array must be 2048 dimensions or less"). */
const BATCH_LIMIT = 2048;

/** The members read; the gateway's routing fields (`provider`, `model_routing_config`) are the chat face's. */
const READ = new Set([
  "model",
  "input",
  "dimensions",
  "encoding_format",
  "user",
  "provider",
  "model_routing_config",
]);

function decodeEmbedRequest(body: unknown, _ctx: DecodeContext): EmbeddingRequest {
  const root = expectObject(body, "body");
  const model = expectString(root.model, "model");
  if (model === "") throw invalid("model", "must name a model");
  const request: EmbeddingRequest = {
    model,
    inputs: decodeInput(root.input),
    encoding: decodeEncoding(root.encoding_format),
    single: false,
    fields: { input: "input", dimensions: "dimensions" },
    ignored: Object.keys(root).filter((key) => !READ.has(key) && root[key] !== null),
  };
  if (root.dimensions !== undefined && root.dimensions !== null)
    request.dimensions = expectNumber(root.dimensions, "dimensions", { integer: true, min: 1 });
  const user = optionalString(root.user, "user");
  if (user !== undefined) request.user = user;
  const routing = decodeRouting(root);
  if (routing) request.routing = routing;
  return request;
}

/** A string, an array of strings, an array of token ids, or an array of token-id arrays. */
function decodeInput(value: unknown): EmbeddingInput[] {
  if (typeof value === "string") return [textInput(value, "input")];
  if (value === undefined || value === null) throw invalid("input", "is required");
  const items = expectArray(value, "input");
  if (items.length === 0) throw invalid("input", "must not be empty");
  if (items.length > BATCH_LIMIT) throw invalid("input", `must hold at most ${BATCH_LIMIT} items`);
  if (typeof items[0] === "number") return [{ kind: "tokens", tokens: tokenIds(items, "input") }];
  return items.map((item, i) => {
    const at = `input[${i}]`;
    if (typeof item === "string") return textInput(item, at);
    if (Array.isArray(item)) {
      if (item.length === 0) throw invalid(at, "must not be empty");
      return { kind: "tokens", tokens: tokenIds(item, at) };
    }
    throw invalid(at, "must be a string or an array of token ids");
  });
}

function textInput(text: string, at: string): EmbeddingInput {
  if (text === "") throw invalid(at, "must not be an empty string");
  return { kind: "text", text };
}

function tokenIds(items: unknown[], at: string): number[] {
  return items.map((id, i) => expectNumber(id, `${at}[${i}]`, { integer: true, min: 0 }));
}

function decodeEncoding(value: unknown): "float" | "base64" {
  if (value === undefined || value === null) return "float";
  if (value === "float" || value === "base64") return value;
  throw invalid("encoding_format", "must be 'float' or 'base64'");
}

function encodeEmbedResponse(
  response: { vectors: number[][]; promptTokens: number },
  request: EmbeddingRequest,
  model: string,
): unknown {
  const base64 = request.encoding === "base64";
  return {
    object: "list",
    data: response.vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: base64 ? float32Base64(vector) : vector,
    })),
    model,
    usage: { prompt_tokens: response.promptTokens, total_tokens: response.promptTokens },
  };
}

const encodeEmbedRequest: Embeddings["encodeEmbedRequest"] = (
  request,
  inputs,
  target,
  unsent = new Unsent(),
) => {
  const body: Record<string, unknown> = {
    model: target.model,
    input: inputs.map((input) => (input.kind === "text" ? input.text : input.tokens)),
    encoding_format: "float",
  };
  if (request.dimensions !== undefined) body.dimensions = request.dimensions;
  if (request.user !== undefined) body.user = request.user;
  // OpenAI's embeddings take neither a task type nor a title.
  for (const input of inputs) {
    unsent.add("taskType", input.taskType !== undefined);
    unsent.add("title", input.title !== undefined);
  }
  return { path: "/embeddings", body };
};

/** `data[].embedding` by `index` (floats, or base64 from a server that writes it unasked). */
function decodeEmbedResponse(body: unknown): EmbeddingResponse {
  const root = expectObject(body, "embeddings answer");
  const data = expectArray(root.data, "data");
  const vectors: number[][] = new Array(data.length);
  data.forEach((item, i) => {
    const entry = expectObject(item, `data[${i}]`);
    const index = typeof entry.index === "number" ? entry.index : i;
    if (!Number.isInteger(index) || index < 0 || index >= data.length)
      throw invalid(`data[${i}].index`, "out of range");
    vectors[index] =
      typeof entry.embedding === "string"
        ? fromFloat32Base64(entry.embedding)
        : (expectArray(entry.embedding, `data[${i}].embedding`) as number[]);
  });
  if (vectors.some((v) => v === undefined)) throw invalid("data", "misses an index");
  const usage = isObject(root.usage) ? root.usage : undefined;
  const promptTokens = typeof usage?.prompt_tokens === "number" ? usage.prompt_tokens : undefined;
  return promptTokens === undefined ? { vectors } : { vectors, promptTokens };
}

/** The gateway's routing members: an upstream would refuse them. */
const GATEWAY_ONLY = ["provider", "model_routing_config"];

/**
 * A `/v1/embeddings` client to an OpenAI-compatible upstream: its body and the answer relayed with
 * `model` edited, so the vectors (and a base64 answer's bytes) are never parsed and written again.
 */
const relay: EmbeddingRelay = {
  request(raw, request, target) {
    const remove = [...GATEWAY_ONLY, ...request.ignored];
    return {
      path: "/embeddings",
      body: editJson(raw, { set: { model: JSON.stringify(target.model) }, remove }),
    };
  },
  // (The model's JSON spelled as its UTF-8 bytes, one per character, as the answer is.)
  response: (text, model) =>
    editJson(text, { set: { model: Buffer.from(JSON.stringify(model)).toString("latin1") } }),
  promptTokens(text) {
    const usage = topLevelMembers(text, ["usage"]).get("usage");
    if (!usage) return undefined;
    const value: unknown = JSON.parse(text.slice(usage.valueStart, usage.end));
    const tokens = isObject(value) ? value.prompt_tokens : undefined;
    return typeof tokens === "number" ? tokens : undefined;
  },
};

export const embeddings: Embeddings = {
  decodeEmbedRequest,
  encodeEmbedResponse,
  batchLimit: BATCH_LIMIT,
  takesTokenIds: true,
  encodeEmbedRequest,
  decodeEmbedResponse,
  relay,
};

// Gemini's embedding methods, both faces: the client face decodes `:embedContent` (one content) and
// `:batchEmbedContents` (`requests[]`) and writes `embedding.values` / `embeddings[].values`; the
// upstream face calls `:batchEmbedContents`, which takes every setting per content. Gemini's API
// reports no token counts for embeddings: the gateway counts them (src/gateway/embeddings.ts).

import type { EmbeddingInput, EmbeddingRequest, EmbeddingResponse } from "../../ir/embeddings.ts";
import { invalid } from "../../ir/errors.ts";
import { Unsent } from "../shared/dropped-fields.ts";
import { expectArray, expectNumber, expectObject, expectString, type Json } from "../shared/validate.ts";
import type { DecodeContext, Embeddings } from "../types.ts";
import { camelName, field } from "./read-field.ts";

/** Gemini's limit on the requests of one `:batchEmbedContents` call. */
const BATCH_LIMIT = 100;

const TASK_TYPES = new Set([
  "TASK_TYPE_UNSPECIFIED",
  "RETRIEVAL_QUERY",
  "RETRIEVAL_DOCUMENT",
  "SEMANTIC_SIMILARITY",
  "CLASSIFICATION",
  "CLUSTERING",
  "QUESTION_ANSWERING",
  "FACT_VERIFICATION",
  "CODE_RETRIEVAL_QUERY",
]);

/** The members of one embed request (`:embedContent`'s body, or an item of `requests`). */
const READ = new Set(["model", "content", "taskType", "title", "outputDimensionality"]);

function decodeEmbedRequest(body: unknown, ctx: DecodeContext & { single?: boolean }): EmbeddingRequest {
  const root = expectObject(body, "body");
  if (ctx.pathModel === undefined || ctx.pathModel === "")
    throw invalid("model", "the path must name a model");
  const ignored = new Set<string>();
  const request: EmbeddingRequest = {
    model: ctx.pathModel,
    inputs: [],
    encoding: "float",
    single: ctx.single === true,
    fields: { input: ctx.single ? "content" : "requests", dimensions: "outputDimensionality" },
    ignored: [],
  };
  if (ctx.single) {
    request.inputs.push(decodeOne(root, "", request, ignored));
  } else {
    for (const key of Object.keys(root)) if (camelName(key) !== "requests") ignored.add(camelName(key));
    const items = expectArray(field(root, "requests"), "requests");
    if (items.length === 0) throw invalid("requests", "must not be empty");
    // Gemini's own limit, as the OpenAI face holds `input` to OpenAI's: a batch is fanned out to the
    // upstream in calls sent together (a Titan upstream takes one text a call), so it is bounded here.
    if (items.length > BATCH_LIMIT) throw invalid("requests", `must hold at most ${BATCH_LIMIT} requests`);
    items.forEach((item, i) => {
      request.inputs.push(
        decodeOne(expectObject(item, `requests[${i}]`), `requests[${i}].`, request, ignored),
      );
    });
  }
  request.ignored = [...ignored];
  return request;
}

/**
 * One content and its settings. The vector length is the request's (one batch is one length): a
 * batch whose requests ask for different lengths is a 400 naming the one that differs.
 */
function decodeOne(item: Json, at: string, request: EmbeddingRequest, ignored: Set<string>): EmbeddingInput {
  for (const key of Object.keys(item))
    if (!READ.has(camelName(key)) && item[key] !== null) ignored.add(`${at}${camelName(key)}`);
  const input: EmbeddingInput = { kind: "text", text: contentText(field(item, "content"), `${at}content`) };
  const taskType = field(item, "taskType");
  if (taskType !== undefined && taskType !== null) {
    const name = expectString(taskType, `${at}taskType`);
    if (!TASK_TYPES.has(name)) throw invalid(`${at}taskType`, `must be one of ${[...TASK_TYPES].join(", ")}`);
    if (name !== "TASK_TYPE_UNSPECIFIED") input.taskType = name;
  }
  const title = field(item, "title");
  if (title !== undefined && title !== null) input.title = expectString(title, `${at}title`);
  const dims = field(item, "outputDimensionality");
  if (dims !== undefined && dims !== null) {
    const dimensions = expectNumber(dims, `${at}outputDimensionality`, { integer: true, min: 1 });
    if (request.inputs.length > 0 && request.dimensions !== dimensions)
      throw invalid(`${at}outputDimensionality`, "must be the same for every request of a batch");
    request.dimensions = dimensions;
  } else if (request.dimensions !== undefined)
    throw invalid(`${at}outputDimensionality`, "must be the same for every request of a batch");
  return input;
}

/** A content's text: its text parts joined (an embedding model reads a content as one text). */
function contentText(value: unknown, at: string): string {
  const content = expectObject(value, at);
  const parts = expectArray(field(content, "parts"), `${at}.parts`);
  if (parts.length === 0) throw invalid(`${at}.parts`, "must not be empty");
  const texts = parts.map((item, i) => {
    const part = expectObject(item, `${at}.parts[${i}]`);
    return expectString(part.text, `${at}.parts[${i}].text`);
  });
  const text = texts.join("\n");
  if (text === "") throw invalid(`${at}.parts`, "must hold some text");
  return text;
}

function encodeEmbedResponse(response: { vectors: number[][] }, request: EmbeddingRequest): unknown {
  if (request.single) return { embedding: { values: response.vectors[0] } };
  return { embeddings: response.vectors.map((values) => ({ values })) };
}

const encodeEmbedRequest: Embeddings["encodeEmbedRequest"] = (
  request,
  inputs,
  target,
  unsent = new Unsent(),
) => {
  unsent.add("user", request.user !== undefined);
  const requests = inputs.map((input) => {
    if (input.kind !== "text")
      throw invalid(
        request.fields.input,
        "token ids are embedded only by an OpenAI-compatible upstream; send text",
      );
    const one: Json = { model: `models/${target.model}`, content: { parts: [{ text: input.text }] } };
    if (input.taskType !== undefined) one.taskType = input.taskType;
    if (input.title !== undefined) one.title = input.title;
    if (request.dimensions !== undefined) one.outputDimensionality = request.dimensions;
    return one;
  });
  return { path: `/v1beta/models/${target.model}:batchEmbedContents`, body: { requests } };
};

function decodeEmbedResponse(body: unknown): EmbeddingResponse {
  const root = expectObject(body, "embeddings answer");
  const items = expectArray(root.embeddings, "embeddings");
  return {
    vectors: items.map(
      (item, i) =>
        expectArray(expectObject(item, `embeddings[${i}]`).values, `embeddings[${i}].values`) as number[],
    ),
  };
}

export const embeddings: Embeddings = {
  decodeEmbedRequest,
  encodeEmbedResponse,
  batchLimit: BATCH_LIMIT,
  takesTokenIds: false,
  encodeEmbedRequest,
  decodeEmbedResponse,
};

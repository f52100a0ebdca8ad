// The fakes' embedding endpoints, in each provider's exact wire format: OpenAI's `POST /v1/embeddings`
// and Gemini's `models/{m}:batchEmbedContents` (and `:embedContent`). Each vector is a function of
// its text and length alone (`fakeVector`), so a test can say which vector the client must get for
// which input, in which order, and of what length.

import type { DirectAnswer, FakeOptions, RecordedRequest } from "./dialect.ts";

/** A fake model's vector length when the request asks for none. */
export const FAKE_DIMENSIONS = 8;

/** The vector the fakes answer for `input` (a text, or token ids), float32 values (exact in base64). */
export function fakeVector(input: string | number[], dimensions = FAKE_DIMENSIONS): number[] {
  const text = typeof input === "string" ? input : input.join(",");
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
  return Array.from({ length: dimensions }, (_, i) =>
    Math.fround((((hash >>> (i % 24)) + i * 7919) % 2001) / 1000 - 1),
  );
}

/** The fakes' token count of one input: a token per 4 bytes of text (as fakeTokenCount), or its ids. */
export function fakeInputTokens(input: string | number[]): number {
  return typeof input === "string" ? Math.ceil(Buffer.byteLength(input) / 4) : input.length;
}

type Json = Record<string, any>;
type ErrorBody = (status: number, message: string, param?: string) => unknown;

/** OpenAI's `POST /v1/embeddings`: its limits and its errors (`Unrecognized request argument supplied`). */
export function openaiEmbeddings(
  request: RecordedRequest,
  options: FakeOptions,
  error: ErrorBody,
): DirectAnswer | undefined {
  if (request.method !== "POST" || request.pathname !== "/v1/embeddings") return undefined;
  const reject = (status: number, message: string, param?: string) => ({
    status,
    body: error(status, message, param),
  });
  const auth = request.headers.authorization;
  const key = typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  if (!key || (options.apiKey !== undefined && key !== options.apiKey))
    return reject(401, "Incorrect API key provided.");
  const body: Json = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return reject(400, "We could not parse the JSON body of your request.");
  const known = new Set(["model", "input", "dimensions", "encoding_format", "user"]);
  const unknown = Object.keys(body).find((k) => !known.has(k));
  if (unknown) return reject(400, `Unrecognized request argument supplied: ${unknown}`);
  if (typeof body.model !== "string" || !body.model) return reject(400, "you must provide a model parameter");
  const inputs = openaiInputs(body.input);
  if (!inputs) return reject(400, "'$.input' is invalid. Please check the API reference.", "input");
  if (inputs.length > 2048) return reject(400, "'$.input' is invalid: at most 2048 inputs.", "input");
  if (
    body.encoding_format !== undefined &&
    body.encoding_format !== "float" &&
    body.encoding_format !== "base64"
  )
    return reject(400, "Invalid value for 'encoding_format'.", "encoding_format");
  const dims = body.dimensions ?? FAKE_DIMENSIONS;
  if (!Number.isInteger(dims) || dims < 1)
    return reject(400, "Invalid value for 'dimensions'.", "dimensions");
  const tokens = inputs.reduce((sum, input) => sum + fakeInputTokens(input), 0);
  return {
    status: 200,
    body: {
      object: "list",
      data: inputs.map((input, index) => {
        const vector = fakeVector(input, dims);
        return {
          object: "embedding",
          index,
          embedding: body.encoding_format === "base64" ? base64(vector) : vector,
        };
      }),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}

function openaiInputs(input: unknown): Array<string | number[]> | undefined {
  if (typeof input === "string") return input ? [input] : undefined;
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((x) => Number.isInteger(x))) return [input as number[]];
  if (input.every((x) => typeof x === "string" && x !== "")) return input as string[];
  if (input.every((x) => Array.isArray(x) && x.length > 0 && x.every((t) => Number.isInteger(t))))
    return input as number[][];
  return undefined;
}

function base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, x] of vector.entries()) bytes.writeFloatLE(x, i * 4);
  return bytes.toString("base64");
}

const GEMINI_ROUTE = /^\/v1beta\/models\/([^/:]+):(embedContent|batchEmbedContents)$/;
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

/** Gemini's `:embedContent` and `:batchEmbedContents` (at most 100 requests, each naming the path's model). */
export function geminiEmbeddings(
  request: RecordedRequest,
  options: FakeOptions,
  error: ErrorBody,
): DirectAnswer | undefined {
  const route = GEMINI_ROUTE.exec(request.pathname);
  if (request.method !== "POST" || !route) return undefined;
  const [, model, method] = route;
  const reject = (status: number, message: string) => ({ status, body: error(status, message) });
  const key = request.headers["x-goog-api-key"];
  if (typeof key !== "string" || !key) return reject(403, "Method doesn't allow unregistered callers.");
  if (options.apiKey !== undefined && key !== options.apiKey)
    return reject(400, "API key not valid. Please pass a valid API key.");
  const body: Json = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return reject(400, "Invalid JSON payload received.");
  if (method === "embedContent") {
    const one = geminiOne(body, model, "");
    return typeof one === "string" ? reject(400, one) : { status: 200, body: { embedding: { values: one } } };
  }
  for (const field of Object.keys(body))
    if (field !== "requests")
      return reject(400, `Invalid JSON payload received. Unknown name "${field}": Cannot find field.`);
  if (!Array.isArray(body.requests) || body.requests.length === 0)
    return reject(400, "* BatchEmbedContentsRequest.requests: contents is not specified");
  if (body.requests.length > 100)
    return reject(400, "* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch");
  const embeddings: Array<{ values: number[] }> = [];
  for (const [i, item] of body.requests.entries()) {
    if (item?.model !== `models/${model}`)
      return reject(400, `* BatchEmbedContentsRequest.requests[${i}].model: model must be models/${model}`);
    const one = geminiOne(item, model, `requests[${i}].`);
    if (typeof one === "string") return reject(400, one);
    embeddings.push({ values: one });
  }
  return { status: 200, body: { embeddings } };
}

/** One embed request's vector, or the message of Gemini's 400 for it. */
function geminiOne(item: Json, model: string, at: string): number[] | string {
  const known = new Set(["model", "content", "taskType", "title", "outputDimensionality"]);
  const unknown = Object.keys(item).find((k) => !known.has(k));
  if (unknown)
    return `Invalid JSON payload received. Unknown name "${unknown}" at '${at}': Cannot find field.`;
  if (item.model !== undefined && item.model !== `models/${model}`)
    return `${at}model: must be models/${model}`;
  const parts = item.content?.parts;
  if (!Array.isArray(parts) || parts.length === 0) return `* ${at}content: contents is not specified`;
  if (parts.some((p: Json) => typeof p?.text !== "string"))
    return `* ${at}content.parts: only text is embedded`;
  if (item.taskType !== undefined && !TASK_TYPES.has(item.taskType))
    return `Invalid value at '${at}task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${item.taskType}"`;
  const dims = item.outputDimensionality ?? FAKE_DIMENSIONS;
  if (!Number.isInteger(dims) || dims < 1) return `* ${at}output_dimensionality: must be positive`;
  return fakeVector(parts.map((p: Json) => p.text).join("\n"), dims);
}

// ── The clouds' own embedding APIs ───────────────────────────────────────────────────────────────

/** A cloud embedding API's answer, or its refusal as a status and a message. */
export type CloudEmbeddingAnswer =
  | { body: Json; headers?: Record<string, string> }
  | { status: number; message: string };

const refuse = (message: string): CloudEmbeddingAnswer => ({ status: 400, message });

/** Bedrock refuses a member its model's schema does not name, as its JSON-schema validator words it. */
function extraneous(body: Json, known: string[]): CloudEmbeddingAnswer | undefined {
  const extra = Object.keys(body).find((key) => !known.includes(key));
  return extra === undefined
    ? undefined
    : refuse(
        `Malformed input request: #: extraneous key [${extra}] is not permitted, please reformat your input and try again.`,
      );
}

/**
 * Bedrock's InvokeModel for an embedding model, with the bodies AWS's model parameters pages give:
 * Amazon Titan Text Embeddings v2 (`{inputText, dimensions: 256 | 512 | 1024, normalize,
 * embeddingTypes}` → `{embedding, inputTextTokenCount, embeddingsByType}`) and Cohere Embed v3
 * (`{texts (≤ 96), input_type, truncate, embedding_types}` → `{embeddings, id, response_type, texts}`).
 * Undefined for any other model (the caller answers it).
 */
export function bedrockEmbeddings(modelId: string, body: Json): CloudEmbeddingAnswer | undefined {
  if (modelId.includes("amazon.titan-embed-text-v2")) {
    const extra = extraneous(body, ["inputText", "dimensions", "normalize", "embeddingTypes"]);
    if (extra) return extra;
    if (typeof body.inputText !== "string" || body.inputText === "")
      return refuse(
        "Malformed input request: #/inputText: expected minLength: 1, please reformat your input and try again.",
      );
    if (body.dimensions !== undefined && ![256, 512, 1024].includes(body.dimensions))
      return refuse("Malformed input request: #/dimensions: 1024, 512, 256 are the only supported values.");
    const embedding = fakeVector(body.inputText, body.dimensions ?? 1024);
    return {
      body: {
        embedding,
        inputTextTokenCount: fakeInputTokens(body.inputText),
        embeddingsByType: { float: embedding },
      },
    };
  }
  if (modelId.includes("cohere.embed-")) {
    const extra = extraneous(body, ["texts", "images", "input_type", "truncate", "embedding_types"]);
    if (extra) return extra;
    const texts: unknown = body.texts;
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string"))
      return refuse("Malformed input request: #/texts: expected type: JSONArray of strings.");
    if (texts.length > 96)
      return refuse(
        `Malformed input request: #/texts: expected maximum item count: 96, found: ${texts.length}`,
      );
    if (!["search_document", "search_query", "classification", "clustering"].includes(body.input_type))
      return refuse(
        "Malformed input request: #/input_type: search_document, search_query, classification, clustering are the only values.",
      );
    const tokens = texts.reduce((sum: number, t: string) => sum + fakeInputTokens(t), 0);
    return {
      body: {
        id: `emb-${tokens}-${texts.length}`,
        response_type: "embeddings_floats",
        texts,
        embeddings: texts.map((t: string) => fakeVector(t, 1024)),
      },
      headers: { "x-amzn-bedrock-input-token-count": String(tokens) },
    };
  }
  return undefined;
}

/**
 * Vertex AI's `:predict` for its embedding models: `{instances: [{content, task_type, title}],
 * parameters: {outputDimensionality, autoTruncate}}` → `{predictions: [{embeddings: {values,
 * statistics: {token_count, truncated}}}], metadata: {billableCharacterCount}}`. gemini-embedding-001
 * takes one instance a request, the text-embedding models 250.
 */
export function vertexPredict(model: string, body: Json): CloudEmbeddingAnswer {
  const gemini = model.startsWith("gemini-embedding");
  const instances: unknown = body?.instances;
  if (!Array.isArray(instances) || instances.length === 0)
    return refuse("Invalid JSON payload: instances must be a non-empty list.");
  if (instances.length > (gemini ? 1 : 250))
    return refuse(
      gemini
        ? "Only one instance is allowed per request for this model."
        : "Too many instances: at most 250.",
    );
  const texts: string[] = [];
  for (const instance of instances) {
    if (typeof instance?.content !== "string") return refuse("Invalid instance: content must be a string.");
    const known = ["content", "task_type", "title"];
    const extra = Object.keys(instance).find((key) => !known.includes(key));
    if (extra) return refuse(`Invalid JSON payload received. Unknown name "${extra}" at 'instances[0]'.`);
    texts.push(instance.content);
  }
  const dimensions = body.parameters?.outputDimensionality ?? (gemini ? 3072 : 768);
  return {
    body: {
      predictions: texts.map((text) => ({
        embeddings: {
          values: fakeVector(text, dimensions),
          statistics: { token_count: fakeInputTokens(text), truncated: false },
        },
      })),
      metadata: { billableCharacterCount: texts.reduce((sum, t) => sum + t.length, 0) },
    },
  };
}

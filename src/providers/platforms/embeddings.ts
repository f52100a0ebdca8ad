// The clouds' own embedding calls (docs/embeddings.md, "Cloud platforms"): Bedrock's InvokeModel with
// the model vendor's body (Amazon Titan Text Embeddings v2, Cohere Embed v3) and Vertex AI's `:predict`
// (text-embedding-005, gemini-embedding-001). Each is the upstream face of an embedding codec, which
// the platform's HTTP transport sends like any protocol's (batches cut to its limit, joined in order),
// over the platform's paths and authorization.

import type { EmbeddingInput, EmbeddingRequest, EmbeddingResponse } from "../../ir/embeddings.ts";
import { invalid } from "../../ir/errors.ts";
import { Unsent } from "../../protocols/shared/dropped-fields.ts";
import { expectArray, expectNumber, expectObject, type Json } from "../../protocols/shared/validate.ts";
import type { UpstreamCall, UpstreamEmbeddings } from "../../protocols/types.ts";

/** The texts of a batch; token ids are a 400 naming the client's field: these APIs take text only. */
function textsOf(request: EmbeddingRequest, inputs: readonly EmbeddingInput[], model: string): string[] {
  return inputs.map((input) => {
    if (input.kind === "text") return input.text;
    throw invalid(request.fields.input, `token ids are not embedded by ${model}; send text`);
  });
}

function numbers(value: unknown, at: string): number[] {
  return expectArray(value, at).map((n, i) => expectNumber(n, `${at}[${i}]`));
}

// ── Bedrock: InvokeModel, `POST /model/{id}/invoke` ─────────────────────────────────────────────

function invokePath(model: string): string {
  return `/model/${encodeURIComponent(model)}/invoke`;
}

/** The vector lengths Titan Text Embeddings v2 makes. */
const TITAN_DIMENSIONS = [256, 512, 1024];

/**
 * Amazon Titan Text Embeddings v2: one text a call, `{inputText, dimensions, normalize}` answered
 * `{embedding, inputTextTokenCount}`. Its vectors are normalized unless asked otherwise, as OpenAI's are.
 */
const titan: UpstreamEmbeddings = {
  batchLimit: 1,
  takesTokenIds: false,
  encodeEmbedRequest(request, inputs, target, unsent = new Unsent()): UpstreamCall {
    const [text] = textsOf(request, inputs, target.model);
    unsent.add("user", request.user !== undefined);
    unsent.add(
      "taskType",
      inputs.some((input) => input.taskType !== undefined),
    );
    unsent.add(
      "title",
      inputs.some((input) => input.title !== undefined),
    );
    const body: Json = { inputText: text, normalize: true };
    if (request.dimensions !== undefined) {
      if (!TITAN_DIMENSIONS.includes(request.dimensions))
        throw invalid(request.fields.dimensions, `must be 256, 512 or 1024 for ${target.model}`);
      body.dimensions = request.dimensions;
    }
    return { path: invokePath(target.model), body };
  },
  decodeEmbedResponse(body): EmbeddingResponse {
    const root = expectObject(body, "embedding answer");
    return {
      vectors: [numbers(root.embedding, "embedding")],
      promptTokens: expectNumber(root.inputTextTokenCount, "inputTextTokenCount"),
    };
  },
};

/** Gemini's task types as Cohere's `input_type` (which Cohere requires; a document when none is said). */
const COHERE_INPUT_TYPE: Record<string, string> = {
  RETRIEVAL_QUERY: "search_query",
  QUESTION_ANSWERING: "search_query",
  FACT_VERIFICATION: "search_query",
  CODE_RETRIEVAL_QUERY: "search_query",
  RETRIEVAL_DOCUMENT: "search_document",
  CLASSIFICATION: "classification",
  CLUSTERING: "clustering",
};

/**
 * Cohere Embed v3 on Bedrock: up to 96 texts a call, `{texts, input_type}` answered `{embeddings}`
 * (floats, one per text); its vectors have one length, so `dimensions` is refused, and the token
 * count is left to the gateway (the body reports none).
 */
const cohere: UpstreamEmbeddings = {
  batchLimit: 96,
  takesTokenIds: false,
  encodeEmbedRequest(request, inputs, target, unsent = new Unsent()): UpstreamCall {
    const texts = textsOf(request, inputs, target.model);
    if (request.dimensions !== undefined)
      throw invalid(
        request.fields.dimensions,
        `is not supported by ${target.model}, whose vectors have one length`,
      );
    unsent.add("user", request.user !== undefined);
    unsent.add(
      "title",
      inputs.some((input) => input.title !== undefined),
    );
    const taskType = inputs.find((input) => input.taskType !== undefined)?.taskType;
    const inputType = taskType === undefined ? undefined : COHERE_INPUT_TYPE[taskType];
    unsent.add("taskType", taskType !== undefined && inputType === undefined);
    return { path: invokePath(target.model), body: { texts, input_type: inputType ?? "search_document" } };
  },
  decodeEmbedResponse(body): EmbeddingResponse {
    const embeddings = expectArray(expectObject(body, "embedding answer").embeddings, "embeddings");
    return { vectors: embeddings.map((vector, i) => numbers(vector, `embeddings[${i}]`)) };
  },
};

/** A model's embedding API on a platform: its codec, and a name for the transport that sends it. */
export interface PlatformEmbeddings {
  name: string;
  codec: UpstreamEmbeddings;
}

/** The embedding API of a Bedrock model, or undefined when the model embeds nothing Switchyard knows. */
export function bedrockEmbeddings(model: string): PlatformEmbeddings | undefined {
  if (model.includes("amazon.titan-embed-text-v2")) return { name: "embed-titan", codec: titan };
  if (model.includes("cohere.embed-")) return { name: "embed-cohere", codec: cohere };
  return undefined;
}

// ── Vertex AI: `POST …/publishers/google/models/{m}:predict` ────────────────────────────────────

/**
 * `{instances: [{content, task_type, title}], parameters: {outputDimensionality}}` answered
 * `{predictions: [{embeddings: {values, statistics: {token_count}}}]}`. The path is the Gemini
 * family's (`/v1beta/models/{m}:predict`), which the Vertex transport turns into the publisher's.
 */
function vertexPredict(batchLimit: number): UpstreamEmbeddings {
  return {
    batchLimit,
    takesTokenIds: false,
    encodeEmbedRequest(request, inputs, target, unsent = new Unsent()): UpstreamCall {
      const texts = textsOf(request, inputs, target.model);
      unsent.add("user", request.user !== undefined);
      const instances = inputs.map((input, i) => {
        const instance: Json = { content: texts[i] };
        if (input.taskType !== undefined) instance.task_type = input.taskType;
        if (input.title !== undefined) instance.title = input.title;
        return instance;
      });
      const body: Json = { instances };
      if (request.dimensions !== undefined) body.parameters = { outputDimensionality: request.dimensions };
      return { path: `/v1beta/models/${target.model}:predict`, body };
    },
    decodeEmbedResponse(body): EmbeddingResponse {
      const predictions = expectArray(expectObject(body, "embedding answer").predictions, "predictions");
      const counts: unknown[] = [];
      const vectors = predictions.map((item, i) => {
        const embeddings = expectObject(expectObject(item, `predictions[${i}]`).embeddings, "embeddings");
        counts.push((embeddings.statistics as Json | undefined)?.token_count);
        return numbers(embeddings.values, `predictions[${i}].embeddings.values`);
      });
      // Counted by the gateway instead when a prediction reports no count.
      if (!counts.every((n) => typeof n === "number")) return { vectors };
      return { vectors, promptTokens: (counts as number[]).reduce((sum, n) => sum + n, 0) };
    },
  };
}

/** gemini-embedding-001 takes one instance a request on Vertex; the text-embedding models 250. */
const vertexGeminiEmbedding = vertexPredict(1);
const vertexTextEmbedding = vertexPredict(250);

export function vertexEmbeddings(model: string): PlatformEmbeddings {
  return model.startsWith("gemini-embedding")
    ? { name: "embed-gemini", codec: vertexGeminiEmbedding }
    : { name: "embed-text", codec: vertexTextEmbedding };
}

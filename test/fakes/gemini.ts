// The Gemini API wire format, rendered by hand: `POST /v1beta/models/{model}:generateContent` and
// `:streamGenerateContent?alt=sse` with `x-goog-api-key`; a GenerateContentResponse, or one
// GenerateContentResponse per `data:` frame (no `[DONE]`: the last chunk carries `finishReason` and
// `usageMetadata`; every chunk carries `responseId` and `modelVersion`). Thinking is a part with
// `thought: true`; signatures are `thoughtSignature` on the part (also on `functionCall` parts).
// Frames end in CRLF CRLF, as Google's servers send them. Usage semantics: see reply.ts.

import {
  type Dialect,
  type DirectAnswer,
  type Exchange,
  type FakeOptions,
  fakeTokenCount,
  type RecordedRequest,
  type StreamPlan,
  type Verdict,
} from "./dialect.ts";
import { geminiEmbeddings } from "./embeddings.ts";
import {
  argumentsObject,
  blocksOf,
  DEFAULT_CHUNKS,
  type Finish,
  finishOf,
  type Reply,
  randomId,
  splitPieces,
  usageOf,
  withExtra,
} from "./reply.ts";

type Json = Record<string, unknown>;

const FINISH_REASON: Record<Finish, string> = {
  stop: "STOP",
  length: "MAX_TOKENS",
  tool_calls: "STOP",
  stop_sequence: "STOP",
  content_filter: "SAFETY",
};

const ERRORS: Record<number, { status: string; message: string }> = {
  400: { status: "INVALID_ARGUMENT", message: "Request contains an invalid argument." },
  401: { status: "UNAUTHENTICATED", message: "Request had invalid authentication credentials." },
  403: { status: "PERMISSION_DENIED", message: "The caller does not have permission" },
  404: { status: "NOT_FOUND", message: "Requested entity was not found." },
  429: { status: "RESOURCE_EXHAUSTED", message: "Resource has been exhausted (e.g. check quota)." },
  500: {
    status: "INTERNAL",
    message:
      "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
  },
  503: { status: "UNAVAILABLE", message: "The model is overloaded. Please try again later." },
  504: { status: "DEADLINE_EXCEEDED", message: "The request timed out. Please try again." },
};

function error(status: number, message?: string): Json {
  const known = ERRORS[status] ?? {
    status: status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT",
    message: `Request failed with status ${status}.`,
  };
  return { error: { code: status, message: message ?? known.message, status: known.status } };
}

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const COUNT_ROUTE = /^\/v1beta\/models\/([^/:]+):countTokens$/;

/**
 * `models/{m}:countTokens`: `contents`, or a whole `generateContentRequest` (which must name its
 * model, and is how system instructions and tools are counted), never both.
 */
function countTokens(request: RecordedRequest, options: FakeOptions): DirectAnswer | undefined {
  const route = COUNT_ROUTE.exec(request.pathname);
  if (request.method !== "POST" || !route) return undefined;
  const reject = (status: number, message: string): DirectAnswer => ({
    status,
    body: error(status, message),
  });
  const key = request.headers["x-goog-api-key"];
  if (typeof key !== "string" || !key) return reject(403, "Method doesn't allow unregistered callers.");
  if (options.apiKey !== undefined && key !== options.apiKey)
    return reject(400, "API key not valid. Please pass a valid API key.");
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return reject(400, "Invalid JSON payload received.");
  const whole = body.generateContentRequest;
  if (whole !== undefined && body.contents !== undefined)
    return reject(400, "contents and generateContentRequest are mutually exclusive.");
  for (const field of Object.keys(body))
    if (field !== "contents" && field !== "generateContentRequest")
      return reject(400, `Invalid JSON payload received. Unknown name "${field}": Cannot find field.`);
  if (whole !== undefined && (typeof whole?.model !== "string" || !whole.model.startsWith("models/")))
    return reject(400, "generateContentRequest.model is required, as models/{model}.");
  return { status: 200, body: { totalTokens: fakeTokenCount(request) } };
}

function check(request: RecordedRequest, options: FakeOptions): Verdict {
  const reject = (status: number, message: string): Verdict => ({
    ok: false,
    status,
    body: error(status, message),
  });
  const route = ROUTE.exec(request.pathname);
  if (request.method !== "POST" || !route) return reject(404, `Method not found: ${request.pathname}`);
  const key = request.headers["x-goog-api-key"];
  if (typeof key !== "string" || !key) {
    return reject(
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  }
  if (options.apiKey !== undefined && key !== options.apiKey) {
    return reject(400, "API key not valid. Please pass a valid API key.");
  }
  const stream = route[2] === "streamGenerateContent";
  // The JSON-array framing Gemini uses without alt=sse is not served by this fake.
  if (stream && request.query.get("alt") !== "sse") {
    return reject(400, "This fake serves streamGenerateContent with alt=sse only.");
  }
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return reject(400, "Invalid JSON payload received.");
  }
  if (!Array.isArray(body.contents) || body.contents.length === 0) {
    return reject(400, "* GenerateContentRequest.contents: contents is not specified\n");
  }
  // Gemini takes up to 5 stop sequences; its answer to more is the generic one.
  const stops = body.generationConfig?.stopSequences;
  if (Array.isArray(stops) && stops.length > 5) return reject(400, ERRORS[400]!.message);
  const model = decodeURIComponent(route[1]!);
  const refused = refusedSetting(body.generationConfig, options.modelRefuses?.[model]);
  if (refused) return reject(400, `${refused} is not enabled for models/${model}`);
  const count = body.generationConfig?.candidateCount;
  // Gemini 2.5 answers at most 8 candidates; past that, a 400 (the fake would otherwise try to
  // build as many as asked, 1e15 say, and die on it).
  if (typeof count === "number" && count > MAX_CANDIDATES)
    return reject(
      400,
      `Unable to submit request because it has a candidateCount value of ${count} but the supported range is from 1 (inclusive) to ${MAX_CANDIDATES + 1} (exclusive).`,
    );
  return {
    ok: true,
    exchange: {
      model,
      ...(typeof count === "number" && count > 1 && !stream ? { candidates: count } : {}),
      stream,
      includeUsage: false,
      responseId: randomId("", 22),
      created: Math.floor(Date.now() / 1000),
    },
  };
}

/**
 * The setting a model refuses (FakeOptions.modelRefuses, by generationConfig member) that the config
 * holds, named as Gemini's error names it: a penalty other than 0 ("Penalty"), log probabilities
 * ("Logprobs"), a thinking config to a model that does not think ("Thinking").
 */
function refusedSetting(config: unknown, refuses: string[] | undefined): string | undefined {
  if (!refuses || config === null || typeof config !== "object") return undefined;
  const held = config as Json;
  for (const member of refuses) {
    const value = held[member];
    if (/Penalty$/.test(member) && typeof value === "number" && value !== 0) return "Penalty";
    if (/^(responseLogprobs|logprobs)$/.test(member) && value !== undefined && value !== false)
      return "Logprobs";
    if (member === "thinkingConfig" && value !== undefined) return "Thinking";
  }
  return undefined;
}

function usageMetadata(reply: Reply): Json {
  const u = usageOf(reply);
  const prompt = u.input + u.cacheRead;
  const meta: Json = {
    promptTokenCount: prompt,
    candidatesTokenCount: u.output,
    totalTokenCount: prompt + u.output + u.reasoning,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: prompt }],
  };
  if (u.cacheRead > 0) {
    meta.cachedContentTokenCount = u.cacheRead;
    meta.cacheTokensDetails = [{ modality: "TEXT", tokenCount: u.cacheRead }];
  }
  if (u.reasoning > 0) meta.thoughtsTokenCount = u.reasoning;
  return meta;
}

/** The usageMetadata of a stream chunk `share` of the way through: the prompt whole, the output so far. */
function runningUsage(reply: Reply, share: number): Json {
  const u = usageOf(reply);
  const output = Math.floor(u.output * share);
  const reasoning = Math.floor(u.reasoning * share);
  return usageMetadata({ ...reply, usage: { ...u, output, reasoning } });
}

/** Parts of the whole answer, one per block (redacted thinking has no Gemini form). */
function parts(reply: Reply): Json[] {
  return blocksOf(reply).flatMap((b): Json[] => {
    switch (b.type) {
      case "text":
        return [{ text: b.text }];
      case "thinking":
        return [{ text: b.text, thought: true, ...(b.signature ? { thoughtSignature: b.signature } : {}) }];
      case "tool_call":
        return [functionCallPart(b)];
      case "image":
        return [{ inlineData: { mimeType: b.mediaType, data: b.data } }];
      default:
        return [];
    }
  });
}

function functionCallPart(b: { id?: string; name: string; args: object | string; signature?: string }): Json {
  const call: Json = { name: b.name, args: argumentsObject(b.args) };
  if (b.id !== undefined) call.id = b.id;
  return { functionCall: call, ...(b.signature ? { thoughtSignature: b.signature } : {}) };
}

function candidate(partList: Json[], finishReason?: string): Json {
  return { content: { parts: partList, role: "model" }, ...(finishReason ? { finishReason } : {}), index: 0 };
}

/**
 * What a candidate says beside its content: `logprobsResult` (one chosen candidate and the top
 * alternatives per decoding step) with `avgLogprobs`, and `groundingMetadata` when the answer was
 * grounded with Google Search (queries, the pages as `groundingChunks`, and `groundingSupports`
 * tying a segment of the text, by UTF-8 byte offsets, to the chunks that support it).
 */
function candidateMetadata(reply: Reply): Json {
  const meta: Json = {};
  if (reply.finishMessage) meta.finishMessage = reply.finishMessage;
  if (reply.logprobs) {
    const step = (t: { token: string; logprob: number }) => ({ token: t.token, logProbability: t.logprob });
    meta.logprobsResult = {
      topCandidates: reply.logprobs.map((l) => ({ candidates: (l.top ?? []).map(step) })),
      chosenCandidates: reply.logprobs.map(step),
    };
    const sum = reply.logprobs.reduce((s, l) => s + l.logprob, 0);
    meta.avgLogprobs = reply.logprobs.length > 0 ? sum / reply.logprobs.length : 0;
  }
  if (reply.search) {
    const text = blocksOf(reply)
      .map((b) => (b.type === "text" ? b.text : ""))
      .join("");
    meta.groundingMetadata = {
      webSearchQueries: reply.search.queries,
      searchEntryPoint: { renderedContent: '<div class="container">search</div>' },
      groundingChunks: reply.search.results.map((r) => ({
        web: { uri: r.url, title: r.title, domain: new URL(r.url).hostname },
      })),
      groundingSupports: reply.search.results.map((r, i) => {
        const at = text.indexOf(r.cited);
        const startIndex = Buffer.byteLength(text.slice(0, Math.max(0, at)));
        const endIndex = startIndex + Buffer.byteLength(r.cited);
        return { segment: { startIndex, endIndex, text: r.cited }, groundingChunkIndices: [i] };
      }),
    };
  }
  return meta;
}

const MAX_CANDIDATES = 8;

function response(reply: Reply, x: Exchange): object {
  return withExtra(
    {
      candidates: Array.from({ length: x.candidates ?? 1 }, (_, index) => ({
        ...candidate(parts(reply), FINISH_REASON[finishOf(reply)]),
        ...candidateMetadata(reply),
        index,
      })),
      usageMetadata: usageMetadata(reply),
      modelVersion: x.model,
      responseId: x.responseId,
    },
    reply,
  );
}

function stream(reply: Reply, x: Exchange, _options: FakeOptions): StreamPlan {
  const count = reply.chunks ?? DEFAULT_CHUNKS;
  const pieces: Json[] = [];
  for (const b of blocksOf(reply)) {
    if (b.type === "text") {
      for (const text of splitPieces(b.text, count)) pieces.push({ text });
    } else if (b.type === "thinking") {
      const texts = splitPieces(b.text, count);
      if (texts.length === 0 && b.signature) texts.push("");
      texts.forEach((text, i) => {
        const last = i === texts.length - 1;
        pieces.push({
          text,
          thought: true,
          ...(last && b.signature ? { thoughtSignature: b.signature } : {}),
        });
      });
    } else if (b.type === "tool_call") {
      // Gemini sends a function call whole, in one part.
      pieces.push(functionCallPart(b));
    } else if (b.type === "image") {
      pieces.push({ inlineData: { mimeType: b.mediaType, data: b.data } });
    }
  }
  if (pieces.length === 0) pieces.push({ text: "" });
  const frames = pieces.map((part, i) => {
    const last = i === pieces.length - 1;
    // The last chunk carries the candidate's metadata for the whole answer.
    const metadata = last ? candidateMetadata(reply) : {};
    const data: Json = {
      candidates: [{ ...candidate([part], last ? FINISH_REASON[finishOf(reply)] : undefined), ...metadata }],
      ...(last
        ? { usageMetadata: usageMetadata(reply) }
        : reply.runningUsage
          ? { usageMetadata: runningUsage(reply, (i + 1) / pieces.length) }
          : {}),
      modelVersion: x.model,
      responseId: x.responseId,
    };
    return `data: ${JSON.stringify(withExtra(data, reply))}\r\n\r\n`;
  });
  return { frames, terminal: 1 };
}

export const geminiDialect: Dialect = {
  protocol: "gemini",
  basePath: "",
  check,
  countTokens,
  embeddings: (request, options) => geminiEmbeddings(request, options, error),
  response,
  stream,
  error,
  overloadedStatus: 503,
  streamError: () => `data: ${JSON.stringify(error(503))}\r\n\r\n`,
  malformedFrame: () => 'data: {"candidates": [{"content": {"parts": [{"text": \r\n\r\n',
  headers: (stream) => ({
    "content-type": stream ? "text/event-stream" : "application/json; charset=UTF-8",
    ...(stream ? { "cache-control": "no-cache" } : {}),
  }),
};

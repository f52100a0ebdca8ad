// The OpenAI Chat Completions wire format, rendered by hand: `POST /v1/chat/completions`, a
// `chat.completion` object, or `chat.completion.chunk` SSE frames (role delta first, tool calls by
// `index` with id/type/name on the first piece only, a finish chunk, the usage chunk with
// `choices: []` when `stream_options.include_usage`, then `data: [DONE]`).
// Reasoning follows the OpenAI-compatible vendors: plain text in `reasoning` (or `reasoning_content`),
// and for a signed thinking block OpenRouter-style `reasoning_details` pieces whose last carries the
// signature. A tool call's signature rides as `extra_content.google.thought_signature` (Gemini's
// OpenAI-compatible endpoint).

import type { Dialect, Exchange, FakeOptions, RecordedRequest, StreamPlan, Verdict } from "./dialect.ts";
import { openaiEmbeddings } from "./embeddings.ts";
import { openaiRefusal, refusedMember } from "./model-refusals.ts";
import {
  argumentsText,
  blocksOf,
  DEFAULT_CHUNKS,
  type Finish,
  finishOf,
  type Reply,
  type ReplyBlock,
  randomId,
  splitPieces,
  usageOf,
  withExtra,
} from "./reply.ts";

type Json = Record<string, unknown>;
type ToolCallBlock = Extract<ReplyBlock, { type: "tool_call" }>;

const SYSTEM_FINGERPRINT = "fp_fake0openai";

const FINISH: Record<Finish, string> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool_calls",
  stop_sequence: "stop",
  content_filter: "content_filter",
};

const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: null, message: "Invalid request." },
  401: {
    type: "invalid_request_error",
    code: "invalid_api_key",
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
  },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory", message: "Forbidden." },
  404: {
    type: "invalid_request_error",
    code: "model_not_found",
    message: "The model does not exist or you do not have access to it.",
  },
  429: {
    type: "requests",
    code: "rate_limit_exceeded",
    message: "Rate limit reached for requests per min (RPM). Please try again in 1s.",
  },
  500: {
    type: "server_error",
    code: null,
    message: "The server had an error while processing your request. Sorry about that!",
  },
  503: {
    type: "server_error",
    code: null,
    message: "The engine is currently overloaded, please try again later.",
  },
};

function error(status: number, message?: string, code?: string | null, param: string | null = null): Json {
  const known = ERRORS[status] ?? {
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
    message: `Request failed with status ${status}.`,
  };
  return {
    error: { message: message ?? known.message, type: known.type, param, code: code ?? known.code },
  };
}

function check(request: RecordedRequest, options: FakeOptions): Verdict {
  const reject = (status: number, body: unknown): Verdict => ({ ok: false, status, body });
  if (request.method !== "POST" || request.pathname !== "/v1/chat/completions") {
    return reject(404, error(404, `Invalid URL (${request.method} ${request.pathname})`, null));
  }
  const auth = request.headers.authorization;
  const key = typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  if (!key) {
    return reject(
      401,
      error(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        null,
      ),
    );
  }
  if (options.apiKey !== undefined && key !== options.apiKey) return reject(401, error(401));
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return reject(400, error(400, "We could not parse the JSON body of your request.", null));
  }
  if (typeof body.model !== "string" || !body.model) {
    return reject(400, error(400, "you must provide a model parameter", null));
  }
  if (options.vendor === "mistral") {
    const refused = mistralRefuses(body);
    if (refused) return reject(422, mistralRefusal(refused));
    const badId = mistralBadToolCallId(body);
    if (badId !== undefined)
      return reject(
        400,
        error(400, `Tool call id was ${badId} but must be a-z, A-Z, 0-9, with a length of 9.`, null),
      );
  }
  const badName = Array.isArray(body.tools)
    ? body.tools.findIndex((tool: { function?: { name?: unknown } }) => {
        const name = tool?.function?.name;
        return typeof name === "string" && !/^[a-zA-Z0-9_-]+$/.test(name);
      })
    : -1;
  if (badName >= 0)
    return reject(
      400,
      error(
        400,
        `Invalid 'tools[${badName}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        "invalid_value",
        `tools[${badName}].function.name`,
      ),
    );
  const outputLimit = options.outputLimits?.[body.model];
  for (const field of ["max_completion_tokens", "max_tokens"]) {
    const asked = body[field];
    if (outputLimit !== undefined && typeof asked === "number" && asked > outputLimit)
      return reject(
        400,
        error(
          400,
          `${field} is too large: ${asked}. This model supports at most ${outputLimit} completion tokens, whereas you provided ${asked}.`,
          "invalid_value",
          field,
        ),
      );
  }
  if (Array.isArray(body.stop) && body.stop.length > 4)
    return reject(
      400,
      error(
        400,
        `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${body.stop.length} instead.`,
        "array_above_max_length",
        "stop",
      ),
    );
  const refusedSampling = options.reasoningModels?.includes(body.model) ? reasoningRefusal(body) : undefined;
  if (refusedSampling) return reject(400, refusedSampling);
  const refused = refusedMember(body, options.modelRefuses);
  if (refused !== undefined)
    return reject(
      400,
      options.vendor === "xai"
        ? {
            code: "invalid-argument",
            error: `Model ${body.model} does not support parameter ${camelCase(refused.member)}.`,
          }
        : openaiRefusal(refused),
    );
  if (options.vendor === "deepseek") {
    const at = deepseekMissingReasoning(body);
    if (at !== undefined)
      return reject(
        400,
        error(
          400,
          `Missing \`reasoning_content\` field in the assistant message at message index ${at}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
          "invalid_request_error",
        ),
      );
  }
  if (options.vendor === "groq") {
    const refused = groqRefuses(body);
    if (refused)
      return reject(400, error(400, `\`${refused}\` is not supported with this model`, null, refused));
  }
  if (!Array.isArray(body.messages)) {
    return reject(
      400,
      error(400, "Missing required parameter: 'messages'.", "missing_required_parameter", "messages"),
    );
  }
  return {
    ok: true,
    exchange: {
      model: body.model,
      stream: body.stream === true,
      includeUsage: body.stream_options?.include_usage === true,
      responseId: randomId("chatcmpl-", 29),
      created: Math.floor(Date.now() / 1000),
    },
  };
}

/**
 * The members of Mistral's chat completion request (its API reference; the SDKs' ChatCompletionRequest,
 * 2026). It refuses any other, OpenAI's `stream_options`, `max_completion_tokens`, `seed` (its name
 * is `random_seed`), `user`, `logprobs` and `verbosity` among them. Written here from Mistral's
 * reference, not imported from the gateway's own list (request-fields.ts): the fake is the oracle.
 */
const MISTRAL_TAKES = new Set([
  "model",
  "messages",
  "temperature",
  "top_p",
  "max_tokens",
  "stream",
  "stop",
  "random_seed",
  "metadata",
  "response_format",
  "tools",
  "tool_choice",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "prediction",
  "parallel_tool_calls",
  "reasoning_effort",
  "prompt_mode",
  "guardrails",
  "prompt_cache_key",
  "safe_prompt",
]);

/** The members of each role's message in Mistral's request (a role it does not know is refused too). */
const MISTRAL_MESSAGE_TAKES: Record<string, Set<string>> = {
  system: new Set(["role", "content"]),
  user: new Set(["role", "content"]),
  assistant: new Set(["role", "content", "tool_calls", "prefix"]),
  tool: new Set(["role", "content", "tool_call_id", "name"]),
};

/** The first member Mistral's validator would refuse, where it is (`loc`) and its value; or none. */
function mistralRefuses(body: Json): { loc: (string | number)[]; input: unknown; type?: string } | undefined {
  const field = Object.keys(body).find((key) => !MISTRAL_TAKES.has(key));
  if (field) return { loc: ["body", field], input: body[field] };
  if (!Array.isArray(body.messages)) return undefined;
  for (const [i, message] of (body.messages as Json[]).entries()) {
    const role = String(message?.role);
    const takes = Object.hasOwn(MISTRAL_MESSAGE_TAKES, role) ? MISTRAL_MESSAGE_TAKES[role] : undefined;
    if (!takes) return { loc: ["body", "messages", i], input: message?.role, type: "union_tag_invalid" };
    const member = Object.keys(message).find((key) => !takes.has(key));
    if (member) return { loc: ["body", "messages", i, role, member], input: message[member] };
  }
  return undefined;
}

/** `presence_penalty` as xAI names it: `presencePenalty`. */
function camelCase(member: string): string {
  return member.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** OpenAI's answer to a sampling member a reasoning model does not take while it reasons, if any. */
function reasoningRefusal(body: Json): Json | undefined {
  if (body.reasoning_effort === "none") return undefined;
  for (const member of ["temperature", "top_p"])
    if (body[member] !== undefined && body[member] !== 1)
      return error(
        400,
        `Unsupported value: '${member}' does not support ${body[member]} with this model. Only the default (1) value is supported.`,
        "unsupported_value",
        member,
      );
  for (const member of ["presence_penalty", "frequency_penalty", "logprobs", "top_logprobs"])
    if (body[member] !== undefined && body[member] !== 0 && body[member] !== false)
      return error(
        400,
        `Unsupported parameter: '${member}' is not supported with this model.`,
        "unsupported_parameter",
        member,
      );
  return undefined;
}

/**
 * DeepSeek's thinking mode (on by default) wants the reasoning of an assistant turn that called tools
 * passed back as `reasoning_content`: the index of the first such turn without it.
 */
function deepseekMissingReasoning(body: Json): number | undefined {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const at = messages.findIndex(
    (m) =>
      m?.role === "assistant" &&
      Array.isArray(m.tool_calls) &&
      m.tool_calls.length > 0 &&
      typeof m.reasoning_content !== "string",
  );
  return at < 0 ? undefined : at;
}

/** Groq's compatibility page: these "will result in a 400 error if they are supplied". */
const GROQ_REFUSES = ["logprobs", "top_logprobs", "logit_bias"];

function groqRefuses(body: Json): string | undefined {
  const field = GROQ_REFUSES.find((key) => key in body);
  if (field) return field;
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  return messages.some((m) => m && typeof m === "object" && "name" in m) ? "messages[].name" : undefined;
}

/** A tool call's id (a call's, or a result's) that Mistral refuses: it takes nine letters and digits. */
function mistralBadToolCallId(body: Json): string | undefined {
  const ids: unknown[] = [];
  for (const message of Array.isArray(body.messages) ? (body.messages as Json[]) : []) {
    if (message.tool_call_id !== undefined) ids.push(message.tool_call_id);
    for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as Json[]) : [])
      ids.push(call?.id);
  }
  return ids.find((id) => typeof id !== "string" || !/^[a-zA-Z0-9]{9}$/.test(id)) as string | undefined;
}

/** Mistral's answer to a member (or role) it does not know: a 422 with its validator's detail. */
function mistralRefusal({
  loc,
  input,
  type = "extra_forbidden",
}: {
  loc: (string | number)[];
  input: unknown;
  type?: string;
}): Json {
  const msg = type === "extra_forbidden" ? "Extra inputs are not permitted" : "Input tag does not match";
  return {
    object: "error",
    message: { detail: [{ type, loc, msg, input }] },
    type: "invalid_request_error",
    param: null,
    code: null,
  };
}

function usage(reply: Reply): Json {
  const u = usageOf(reply);
  const writes = u.cacheWrite5m + u.cacheWrite1h;
  const prompt = u.input + u.cacheRead + writes;
  const completion = u.output + u.reasoning;
  const promptDetails: Json = { cached_tokens: u.cacheRead, audio_tokens: 0 };
  if (writes > 0) promptDetails.cache_write_tokens = writes;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: promptDetails,
    completion_tokens_details: {
      reasoning_tokens: u.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** Tool-call ids, fixed once per reply so the streamed and whole renderings agree (Mistral's: nine alphanumerics). */
function toolCallIds(reply: Reply, options: FakeOptions): Map<ToolCallBlock, string> {
  const ids = new Map<ToolCallBlock, string>();
  const fresh = () => (options.vendor === "mistral" ? randomId("", 9) : randomId("call_", 24));
  for (const b of blocksOf(reply)) if (b.type === "tool_call") ids.set(b, b.id ?? fresh());
  return ids;
}

function extraContent(block: ToolCallBlock): Json {
  return block.signature ? { extra_content: { google: { thought_signature: block.signature } } } : {};
}

/** `choices[].logprobs` as OpenAI writes it: `{content: [{token, logprob, bytes, top_logprobs}], refusal}`. */
function chatLogprobs(reply: Reply): Json | null {
  if (!reply.logprobs) return null;
  const item = (t: { token: string; logprob: number }) => ({
    token: t.token,
    logprob: t.logprob,
    bytes: [...Buffer.from(t.token, "utf8")],
  });
  return {
    content: reply.logprobs.map((l) => ({ ...item(l), top_logprobs: (l.top ?? []).map(item) })),
    refusal: null,
  };
}

/** A search model's `url_citation` annotations (UTF-16 offsets into the message content). */
function annotations(reply: Reply, text: string): Json[] {
  return (reply.search?.results ?? [])
    .filter((r) => text.includes(r.cited))
    .map((r) => {
      const start = text.indexOf(r.cited);
      return {
        type: "url_citation",
        url_citation: { start_index: start, end_index: start + r.cited.length, url: r.url, title: r.title },
      };
    });
}

/** vLLM / SGLang: the matched stop sequence beside `finish_reason: "stop"` (null when none matched). */
function matched(reply: Reply, options: FakeOptions): Json {
  if (!options.stopField) return {};
  const sequence = finishOf(reply) === "stop_sequence" ? (reply.stopSequence ?? null) : null;
  return { [options.stopField]: sequence };
}

function response(reply: Reply, x: Exchange, options: FakeOptions): object {
  const blocks = blocksOf(reply);
  const ids = toolCallIds(reply, options);
  const field = options.reasoningField ?? (options.vendor === "deepseek" ? "reasoning_content" : "reasoning");
  const texts = blocks.flatMap((b) => (b.type === "text" ? [b.text] : []));
  const thinking = blocks.flatMap((b) => (b.type === "thinking" ? [b] : []));
  const calls = blocks.flatMap((b) => (b.type === "tool_call" ? [b] : []));
  const message: Json = {
    role: "assistant",
    content: texts.length > 0 ? texts.join("") : null,
    refusal: null,
    annotations: annotations(reply, texts.join("")),
  };
  if (thinking.length > 0) message[field] = thinking.map((b) => b.text).join("");
  const details = thinking.flatMap((b, index) =>
    b.signature
      ? [{ type: "reasoning.text", text: b.text, signature: b.signature, format: "unknown", index }]
      : [],
  );
  if (details.length > 0) message.reasoning_details = details;
  if (calls.length > 0) {
    message.tool_calls = calls.map((c) =>
      c.custom
        ? { id: ids.get(c), type: "custom", custom: { name: c.name, input: argumentsText(c.args) } }
        : {
            id: ids.get(c),
            type: "function",
            function: { name: c.name, arguments: argumentsText(c.args) },
            ...extraContent(c),
          },
    );
  }
  return withExtra(
    {
      id: x.responseId,
      object: "chat.completion",
      created: x.created,
      model: x.model,
      choices: [
        {
          index: 0,
          message,
          logprobs: chatLogprobs(reply),
          finish_reason: FINISH[finishOf(reply)],
          ...matched(reply, options),
        },
      ],
      usage: usage(reply),
      service_tier: "default",
      system_fingerprint: SYSTEM_FINGERPRINT,
    },
    reply,
  );
}

function stream(reply: Reply, x: Exchange, options: FakeOptions): StreamPlan {
  const field = options.reasoningField ?? (options.vendor === "deepseek" ? "reasoning_content" : "reasoning");
  const count = reply.chunks ?? DEFAULT_CHUNKS;
  const blocks = blocksOf(reply);
  const ids = toolCallIds(reply, options);
  const frame = (data: Json) => `data: ${JSON.stringify(withExtra(data, reply))}\n\n`;
  const chunk = (delta: Json, finishReason: string | null = null, extra: Json = {}, top: Json = {}) =>
    frame({
      id: x.responseId,
      object: "chat.completion.chunk",
      created: x.created,
      model: x.model,
      service_tier: "default",
      system_fingerprint: SYSTEM_FINGERPRINT,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...extra }],
      // With include_usage, every chunk but the last carries `usage: null`, as OpenAI sends it.
      ...(x.includeUsage ? { usage: null } : {}),
      ...top,
    });

  const frames: string[] = [];
  const opensWithToolCall = blocks[0]?.type === "tool_call";
  frames.push(chunk({ role: "assistant", content: opensWithToolCall ? null : "", refusal: null }));
  let thinkingIndex = 0;
  let toolIndex = 0;
  for (const block of blocks) {
    if (block.type === "text") {
      // The whole text's logprobs and citations ride on its last piece.
      const pieces = splitPieces(block.text, count);
      pieces.forEach((piece, i) => {
        const last = i === pieces.length - 1;
        const cited = last ? annotations(reply, block.text) : [];
        const delta: Json = { content: piece, ...(cited.length > 0 ? { annotations: cited } : {}) };
        const logprobs = last ? chatLogprobs(reply) : null;
        frames.push(chunk(delta, null, logprobs ? { logprobs } : {}));
      });
    } else if (block.type === "thinking") {
      const segment = thinkingIndex++;
      const pieces = splitPieces(block.text, count);
      // A signed block with empty text still sends its signature (one empty-text piece).
      if (pieces.length === 0 && block.signature) pieces.push("");
      pieces.forEach((piece, i) => {
        const delta: Json = { [field]: piece };
        if (block.signature) {
          const detail: Json = { type: "reasoning.text", text: piece, format: "unknown", index: segment };
          if (i === pieces.length - 1) detail.signature = block.signature;
          delta.reasoning_details = [detail];
        }
        frames.push(chunk(delta));
      });
    } else if (block.type === "tool_call" && block.custom) {
      // A custom call streams its input in `custom.input` pieces (OpenAI's chunk schema has no
      // form for it yet; this is the shape reported from the live API).
      const index = toolIndex++;
      const opening = { index, id: ids.get(block), type: "custom", custom: { name: block.name, input: "" } };
      frames.push(chunk({ tool_calls: [opening] }));
      for (const piece of splitPieces(argumentsText(block.args), count))
        frames.push(chunk({ tool_calls: [{ index, custom: { input: piece } }] }));
    } else if (block.type === "tool_call") {
      const index = toolIndex++;
      frames.push(
        chunk({
          tool_calls: [
            {
              index,
              id: ids.get(block),
              type: "function",
              function: { name: block.name, arguments: "" },
              ...extraContent(block),
            },
          ],
        }),
      );
      for (const piece of splitPieces(argumentsText(block.args), count)) {
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
      }
    }
    // redacted_thinking has no chat-completions form: left out.
  }
  // Mistral puts the usage on this last chunk, unasked.
  const lastUsage = options.vendor === "mistral" ? { usage: usage(reply) } : {};
  frames.push(chunk({}, FINISH[finishOf(reply)], matched(reply, options), lastUsage));
  let terminal = 2;
  if (x.includeUsage) {
    frames.push(
      frame({
        id: x.responseId,
        object: "chat.completion.chunk",
        created: x.created,
        model: x.model,
        service_tier: "default",
        system_fingerprint: SYSTEM_FINGERPRINT,
        choices: [],
        usage: usage(reply),
      }),
    );
    terminal++;
  }
  frames.push("data: [DONE]\n\n");
  return { frames, terminal };
}

export const openaiDialect: Dialect = {
  protocol: "openai",
  basePath: "/v1",
  check,
  embeddings: (request, options) =>
    openaiEmbeddings(request, options, (status, message, param) =>
      error(status, message, null, param ?? null),
    ),
  response,
  stream,
  error: (status, message) => error(status, message),
  overloadedStatus: 503,
  streamError: (x) =>
    `data: ${JSON.stringify({
      id: x.responseId,
      object: "chat.completion.chunk",
      created: x.created,
      model: x.model,
      choices: [],
      error: {
        message: "The server had an error while processing your request. Sorry about that!",
        type: "server_error",
        param: null,
        code: "server_error",
      },
    })}\n\ndata: [DONE]\n\n`,
  malformedFrame: () =>
    'data: {"id":"chatcmpl-broken","object":"chat.completion.chunk","choices":[{"delta":\n\n',
  headers: (stream) => ({
    "content-type": stream ? "text/event-stream; charset=utf-8" : "application/json",
    "x-request-id": randomId("req_", 32),
    "openai-processing-ms": "7",
    ...(stream ? { "cache-control": "no-cache" } : {}),
  }),
};

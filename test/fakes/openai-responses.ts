// The OpenAI Responses API wire format, rendered by hand: `POST /v1/responses`, a `response` object,
// or its typed SSE events, each with an `event:` line and a `sequence_number` from 0:
//   response.created, response.in_progress (the response object, status in_progress, no output);
//   per text block a message item: response.output_item.added, response.content_part.added,
//     response.output_text.delta…, response.output_text.done, response.content_part.done,
//     response.output_item.done;
//   per thinking block a reasoning item: response.output_item.added, then, when the request asked
//     for `reasoning.summary`, response.reasoning_summary_part.added, response.reasoning_summary_text.delta…,
//     response.reasoning_summary_text.done, response.reasoning_summary_part.done; then
//     response.output_item.done, whose item carries `encrypted_content` (the block's signature) only
//     when the request's `include` asked for `reasoning.encrypted_content`, as OpenAI does;
//   per tool call a function_call item: response.output_item.added (arguments ""),
//     response.function_call_arguments.delta…, response.function_call_arguments.done,
//     response.output_item.done;
//   last response.completed, or response.incomplete (length, content filter), with usage.
// Usage: input_tokens includes cached tokens, output_tokens includes reasoning (test/fakes/reply.ts).

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
import { openaiRefusal, refusedMember } from "./model-refusals.ts";
import {
  argumentsText,
  blocksOf,
  DEFAULT_CHUNKS,
  finishOf,
  type Reply,
  type ReplyBlock,
  randomId,
  splitPieces,
  usageOf,
  withExtra,
} from "./reply.ts";

type Json = Record<string, unknown>;

const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: "invalid_request_error", code: null, message: "Invalid request." },
  401: {
    type: "invalid_request_error",
    code: "invalid_api_key",
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
  },
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

/** What the request asked of reasoning output, which OpenAI honours. */
interface Asked {
  summary: boolean;
  encrypted: boolean;
}

/** The exchange, with what the request asked for kept per response id. */
const asked = new Map<string, Asked>();

/** The parameters POST /v1/responses/input_tokens takes; any other is refused, as the real API does. */
const COUNT_PARAMETERS = new Set([
  "conversation",
  "input",
  "instructions",
  "model",
  "parallel_tool_calls",
  "previous_response_id",
  "reasoning",
  "text",
  "tool_choice",
  "tools",
  "truncation",
]);

function countTokens(request: RecordedRequest, options: FakeOptions): DirectAnswer | undefined {
  if (request.method !== "POST" || request.pathname !== "/v1/responses/input_tokens") return undefined;
  const auth = request.headers.authorization;
  const key = typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7).trim() : "";
  if (!key || (options.apiKey !== undefined && key !== options.apiKey))
    return { status: 401, body: error(401) };
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return { status: 400, body: error(400, "We could not parse the JSON body of your request.", null) };
  for (const field of Object.keys(body))
    if (!COUNT_PARAMETERS.has(field))
      return {
        status: 400,
        body: error(400, `Unknown parameter: '${field}'.`, "unknown_parameter", field),
      };
  return { status: 200, body: { object: "response.input_tokens", input_tokens: fakeTokenCount(request) } };
}

function check(request: RecordedRequest, options: FakeOptions): Verdict {
  const reject = (status: number, body: unknown): Verdict => ({ ok: false, status, body });
  if (request.method !== "POST" || request.pathname !== "/v1/responses") {
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
    return reject(
      400,
      error(400, "Missing required parameter: 'model'.", "missing_required_parameter", "model"),
    );
  }
  if (typeof body.input !== "string" && !Array.isArray(body.input)) {
    return reject(
      400,
      error(400, "Missing required parameter: 'input'.", "missing_required_parameter", "input"),
    );
  }
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    return reject(
      400,
      error(
        400,
        `Previous response with id '${body.previous_response_id}' not found.`,
        "previous_response_not_found",
        "previous_response_id",
      ),
    );
  }
  const refused = refusedMember(body, options.modelRefuses);
  if (refused !== undefined) return reject(400, openaiRefusal(refused));
  const responseId = randomId("resp_", 48);
  const summary = body.reasoning?.summary ?? body.reasoning?.generate_summary;
  asked.set(responseId, {
    summary: typeof summary === "string",
    encrypted: Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content"),
  });
  return {
    ok: true,
    exchange: {
      model: body.model,
      stream: body.stream === true,
      includeUsage: false,
      responseId,
      created: Math.floor(Date.now() / 1000),
    },
  };
}

function usage(reply: Reply): Json {
  const u = usageOf(reply);
  const writes = u.cacheWrite5m + u.cacheWrite1h;
  const input = u.input + u.cacheRead + writes;
  const output = u.output + u.reasoning;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: u.cacheRead, cache_write_tokens: writes },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: u.reasoning },
    total_tokens: input + output,
  };
}

/** Item ids and call ids, fixed once per reply so the streamed and whole renderings agree. */
function itemIds(reply: Reply): Map<ReplyBlock, { id: string; callId?: string }> {
  const ids = new Map<ReplyBlock, { id: string; callId?: string }>();
  for (const b of blocksOf(reply)) {
    if (b.type === "text") ids.set(b, { id: randomId("msg_", 48) });
    else if (b.type === "thinking") ids.set(b, { id: randomId("rs_", 48) });
    else if (b.type === "tool_call")
      ids.set(b, { id: randomId(b.custom ? "ctc_" : "fc_", 48), callId: b.id ?? randomId("call_", 24) });
  }
  return ids;
}

/** The output items of a reply, whole (redacted thinking has no Responses form: left out). */
function outputItems(reply: Reply, x: Exchange): Json[] {
  const ids = itemIds(reply);
  const want = asked.get(x.responseId) ?? { summary: false, encrypted: false };
  const status = finishOf(reply) === "length" ? "incomplete" : "completed";
  return [
    ...searchItems(reply),
    ...blocksOf(reply).flatMap((b): Json[] => {
      const id = ids.get(b);
      if (!id) return [];
      if (b.type === "text") return [messageItem(id.id, status, b.text, textLogprobs(reply))];
      if (b.type === "thinking") return [reasoningItem(id.id, b, want)];
      if (b.type === "tool_call")
        return [functionCallItem(id.id, id.callId ?? "", b, "completed", argumentsText(b.args))];
      return [];
    }),
  ];
}

/**
 * The hosted web search's calls, before the answer: one `web_search_call` per query, its
 * `action` `{type: "search", query, sources}` (the pages, on the first).
 */
function searchItems(reply: Reply): Json[] {
  const search = reply.search;
  if (!search) return [];
  return search.queries.map((query, i) => ({
    id: `ws_${String(i).padStart(48, "0")}`,
    type: "web_search_call",
    status: "completed",
    action: {
      type: "search",
      query,
      sources: i === 0 ? search.results.map((r) => ({ type: "url", url: r.url })) : [],
    },
  }));
}

function outputText(text: string, logprobs: Json[] = []): Json {
  return { type: "output_text", annotations: [], logprobs, text };
}

/** `output_text.logprobs`: `[{token, logprob, bytes, top_logprobs: [{token, logprob, bytes}]}]`. */
function textLogprobs(reply: Reply): Json[] {
  const item = (t: { token: string; logprob: number }) => ({
    token: t.token,
    logprob: t.logprob,
    bytes: [...Buffer.from(t.token, "utf8")],
  });
  return (reply.logprobs ?? []).map((l) => ({ ...item(l), top_logprobs: (l.top ?? []).map(item) }));
}

function messageItem(id: string, status: string, text: string | undefined, logprobs: Json[] = []): Json {
  return {
    id,
    type: "message",
    status,
    content: text === undefined ? [] : [outputText(text, logprobs)],
    role: "assistant",
  };
}

function reasoningItem(id: string, b: Extract<ReplyBlock, { type: "thinking" }>, want: Asked): Json {
  const item: Json = { id, type: "reasoning" };
  if (want.encrypted && b.signature) item.encrypted_content = b.signature;
  item.summary = want.summary && b.text ? [{ type: "summary_text", text: b.text }] : [];
  return item;
}

function functionCallItem(
  id: string,
  callId: string,
  b: Extract<ReplyBlock, { type: "tool_call" }>,
  status: string,
  args: string,
): Json {
  if (b.custom) return { id, type: "custom_tool_call", status, call_id: callId, name: b.name, input: args };
  return { id, type: "function_call", status, arguments: args, call_id: callId, name: b.name };
}

/** The response object around an output (`usage` null while in progress). */
function responseObject(reply: Reply, x: Exchange, status: string, output: Json[], withUsage: boolean): Json {
  const finish = finishOf(reply);
  const incomplete =
    status === "incomplete" ? { reason: finish === "length" ? "max_output_tokens" : "content_filter" } : null;
  return withExtra(
    {
      id: x.responseId,
      object: "response",
      created_at: x.created,
      status,
      background: false,
      // OpenAI's answers carry every member of its Response type, null or default when not asked.
      completed_at: status === "completed" ? x.created : null,
      error: null,
      frequency_penalty: 0,
      incomplete_details: incomplete,
      instructions: null,
      max_output_tokens: null,
      max_tool_calls: null,
      model: x.model,
      output,
      parallel_tool_calls: true,
      presence_penalty: 0,
      previous_response_id: null,
      prompt_cache_key: null,
      reasoning: { effort: null, summary: null },
      safety_identifier: null,
      service_tier: "default",
      store: false,
      temperature: 1,
      text: { format: { type: "text" }, verbosity: "medium" },
      tool_choice: "auto",
      tools: [],
      top_logprobs: 0,
      top_p: 1,
      truncation: "disabled",
      usage: withUsage ? usage(reply) : null,
      user: null,
      metadata: {},
    },
    reply,
  );
}

function endStatus(reply: Reply): string {
  const finish = finishOf(reply);
  return finish === "length" || finish === "content_filter" ? "incomplete" : "completed";
}

function response(reply: Reply, x: Exchange): object {
  return responseObject(reply, x, endStatus(reply), outputItems(reply, x), true);
}

function stream(reply: Reply, x: Exchange): StreamPlan {
  const count = reply.chunks ?? DEFAULT_CHUNKS;
  const ids = itemIds(reply);
  const want = asked.get(x.responseId) ?? { summary: false, encrypted: false };
  const frames: string[] = [];
  let sequence = 0;
  const event = (type: string, fields: Json) => {
    const data = withExtra({ type, sequence_number: sequence++, ...fields }, reply);
    frames.push(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const output: Json[] = [];
  event("response.created", { response: responseObject(reply, x, "in_progress", [], false) });
  event("response.in_progress", { response: responseObject(reply, x, "in_progress", [], false) });
  for (const item of searchItems(reply)) {
    const output_index = output.length;
    event("response.output_item.added", { output_index, item: { ...item, status: "in_progress" } });
    for (const phase of ["in_progress", "searching", "completed"])
      event(`response.web_search_call.${phase}`, { output_index, item_id: item.id });
    event("response.output_item.done", { output_index, item });
    output.push(item);
  }
  for (const b of blocksOf(reply)) {
    const id = ids.get(b);
    if (!id) continue;
    const output_index = output.length;
    if (b.type === "text") {
      event("response.output_item.added", {
        output_index,
        item: messageItem(id.id, "in_progress", undefined),
      });
      const at = { item_id: id.id, output_index, content_index: 0 };
      event("response.content_part.added", { ...at, part: outputText("") });
      // The whole text's logprobs ride on its last delta.
      const logprobs = textLogprobs(reply);
      const deltas = splitPieces(b.text, count);
      deltas.forEach((delta, i) => {
        const own = i === deltas.length - 1 ? logprobs : [];
        event("response.output_text.delta", { ...at, delta, logprobs: own, obfuscation: "fk" });
      });
      event("response.output_text.done", { ...at, text: b.text, logprobs });
      event("response.content_part.done", { ...at, part: outputText(b.text, logprobs) });
      const item = messageItem(id.id, endStatus(reply), b.text, logprobs);
      event("response.output_item.done", { output_index, item });
      output.push(item);
    } else if (b.type === "thinking") {
      event("response.output_item.added", {
        output_index,
        item: { id: id.id, type: "reasoning", summary: [] },
      });
      if (want.summary && b.text) {
        const at = { item_id: id.id, output_index, summary_index: 0 };
        event("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } });
        for (const delta of splitPieces(b.text, count))
          event("response.reasoning_summary_text.delta", { ...at, delta, obfuscation: "fk" });
        event("response.reasoning_summary_text.done", { ...at, text: b.text });
        event("response.reasoning_summary_part.done", {
          ...at,
          part: { type: "summary_text", text: b.text },
        });
      }
      const item = reasoningItem(id.id, b, want);
      event("response.output_item.done", { output_index, item });
      output.push(item);
    } else if (b.type === "tool_call") {
      const args = argumentsText(b.args);
      event("response.output_item.added", {
        output_index,
        item: functionCallItem(id.id, id.callId ?? "", b, "in_progress", ""),
      });
      const at = { item_id: id.id, output_index };
      if (b.custom) {
        for (const delta of splitPieces(args, count))
          event("response.custom_tool_call_input.delta", { ...at, delta, obfuscation: "fk" });
        event("response.custom_tool_call_input.done", { ...at, input: args });
      } else {
        for (const delta of splitPieces(args, count))
          event("response.function_call_arguments.delta", { ...at, delta, obfuscation: "fk" });
        event("response.function_call_arguments.done", { ...at, arguments: args });
      }
      const item = functionCallItem(id.id, id.callId ?? "", b, "completed", args);
      event("response.output_item.done", { output_index, item });
      output.push(item);
    }
  }
  const status = endStatus(reply);
  event(status === "incomplete" ? "response.incomplete" : "response.completed", {
    response: responseObject(reply, x, status, output, true),
  });
  return { frames, terminal: 1 };
}

export const openaiResponsesDialect: Dialect = {
  protocol: "openai-responses",
  basePath: "/v1",
  check,
  countTokens,
  response,
  stream,
  error: (status, message) => error(status, message),
  overloadedStatus: 503,
  streamError: () =>
    `event: error\ndata: ${JSON.stringify({
      type: "error",
      sequence_number: 99,
      code: "server_error",
      message: "The server had an error while processing your request. Sorry about that!",
      param: null,
    })}\n\n`,
  malformedFrame: () => 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",\n\n',
  headers: (stream) => ({
    "content-type": stream ? "text/event-stream; charset=utf-8" : "application/json",
    "x-request-id": randomId("req_", 32),
    "openai-processing-ms": "9",
    ...(stream ? { "cache-control": "no-cache" } : {}),
  }),
};

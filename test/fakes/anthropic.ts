// The Anthropic Messages wire format, rendered by hand: `POST /v1/messages` with `x-api-key` and
// `anthropic-version`, a `message` object, or the named SSE events (`message_start`, `ping`,
// `content_block_start` / `_delta` (text_delta, thinking_delta, signature_delta, input_json_delta) /
// `_stop`, `message_delta`, `message_stop`; `error` in mid-stream). Usage semantics: see reply.ts.

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
import {
  argumentsObject,
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

const STOP_REASON: Record<Finish, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  stop_sequence: "stop_sequence",
  content_filter: "refusal",
};

const ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: "invalid_request_error", message: "Invalid request." },
  401: { type: "authentication_error", message: "invalid x-api-key" },
  403: {
    type: "permission_error",
    message: "Your API key does not have permission to use the specified resource.",
  },
  404: { type: "not_found_error", message: "Not found." },
  413: { type: "request_too_large", message: "Request exceeds the maximum allowed number of bytes." },
  429: { type: "rate_limit_error", message: "Number of requests has exceeded your per-minute rate limit." },
  500: { type: "api_error", message: "Internal server error" },
  529: { type: "overloaded_error", message: "Overloaded" },
};

function error(status: number, message?: string): Json {
  const known = ERRORS[status] ?? {
    type: status >= 500 ? "api_error" : "invalid_request_error",
    message: `Request failed with status ${status}.`,
  };
  return {
    type: "error",
    error: { type: known.type, message: message ?? known.message },
    request_id: randomId("req_011C", 20),
  };
}

/** The fields POST /v1/messages/count_tokens takes; anything else is refused, as the real API does. */
const COUNT_FIELDS = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "mcp_servers",
  "output_config",
  "output_format",
  "context_management",
]);

function countTokens(request: RecordedRequest, options: FakeOptions): DirectAnswer | undefined {
  if (request.method !== "POST" || request.pathname !== "/v1/messages/count_tokens") return undefined;
  const reject = (status: number, message: string): DirectAnswer => ({
    status,
    body: error(status, message),
  });
  const key = request.headers["x-api-key"];
  if (typeof key !== "string" || !key) return reject(401, "x-api-key header is required");
  if (options.apiKey !== undefined && key !== options.apiKey) return reject(401, "invalid x-api-key");
  if (!request.headers["anthropic-version"]) return reject(400, "anthropic-version: header is required");
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    return reject(400, "There was an issue with your request body: the body is not valid JSON.");
  for (const field of Object.keys(body))
    if (!COUNT_FIELDS.has(field)) return reject(400, `${field}: Extra inputs are not permitted`);
  if (typeof body.model !== "string" || !body.model) return reject(400, "model: Field required");
  if (!Array.isArray(body.messages)) return reject(400, "messages: Field required");
  return { status: 200, body: { input_tokens: fakeTokenCount(request) } };
}

function check(request: RecordedRequest, options: FakeOptions): Verdict {
  const reject = (status: number, message: string): Verdict => ({
    ok: false,
    status,
    body: error(status, message),
  });
  if (request.method !== "POST" || request.pathname !== "/v1/messages") return reject(404, "Not Found");
  const key = request.headers["x-api-key"];
  if (typeof key !== "string" || !key) return reject(401, "x-api-key header is required");
  if (options.apiKey !== undefined && key !== options.apiKey) return reject(401, "invalid x-api-key");
  if (!request.headers["anthropic-version"]) return reject(400, "anthropic-version: header is required");
  const body = request.body;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return reject(400, "There was an issue with your request body: the body is not valid JSON.");
  }
  if (typeof body.model !== "string" || !body.model) return reject(400, "model: Field required");
  if (!Array.isArray(body.messages)) return reject(400, "messages: Field required");
  if (typeof body.max_tokens !== "number") return reject(400, "max_tokens: Field required");
  const badName = Array.isArray(body.tools)
    ? body.tools.findIndex((tool: Json) => typeof tool?.name === "string" && !TOOL_NAME.test(tool.name))
    : -1;
  if (badName >= 0)
    return reject(400, `tools.${badName}.custom.name: String should match pattern '${TOOL_NAME.source}'`);
  const outputLimit = options.outputLimits?.[body.model];
  if (outputLimit !== undefined && body.max_tokens > outputLimit)
    return reject(
      400,
      `max_tokens: ${body.max_tokens} > ${outputLimit}, which is the maximum allowed number of output tokens for ${body.model}`,
    );
  if (refusesBothSampling(body, options.modelRefuses))
    return reject(
      400,
      "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
    );
  const unthought = toolTurnWithoutThinking(body);
  if (unthought) return reject(400, unthought);
  return {
    ok: true,
    exchange: {
      model: body.model,
      stream: body.stream === true,
      includeUsage: false,
      responseId: randomId("msg_01", 22),
      created: Math.floor(Date.now() / 1000),
    },
  };
}

/**
 * With thinking enabled, the last assistant message, when it calls tools, must open with its
 * thinking (the API's 400, word for word); undefined when the request keeps that rule. Not under
 * `adaptive` thinking: there the model may skip thinking before a tool call, so a tool turn without
 * it is what the API itself produced (Claude Code sends such turns back in every tool loop).
 */
function toolTurnWithoutThinking(body: any): string | undefined {
  if (body.thinking?.type !== "enabled") return undefined;
  const at = body.messages.findLastIndex((m: Json) => m?.role === "assistant");
  const content = at < 0 ? undefined : body.messages[at].content;
  if (!Array.isArray(content) || !content.some((b: Json) => b?.type === "tool_use")) return undefined;
  const first = content[0]?.type;
  if (first === "thinking" || first === "redacted_thinking") return undefined;
  return (
    `messages.${at}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. ` +
    "When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding " +
    "the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks " +
    "from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation " +
    "at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
  );
}

/** The tool names Anthropic takes. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** The model takes `temperature` or `top_p`, not both (FakeOptions.modelRefuses: `temperature+top_p`). */
function refusesBothSampling(body: Json, refuses: Record<string, string[]> | undefined): boolean {
  const model = String(body.model);
  const entries = refuses && Object.hasOwn(refuses, model) ? refuses[model]! : [];
  return entries.includes("temperature+top_p") && body.temperature !== undefined && body.top_p !== undefined;
}

function startUsage(reply: Reply): Json {
  const u = usageOf(reply);
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite5m + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
    cache_creation: { ephemeral_5m_input_tokens: u.cacheWrite5m, ephemeral_1h_input_tokens: u.cacheWrite1h },
    output_tokens: u.output + u.reasoning,
    service_tier: "standard",
  };
}

/**
 * The blocks of a web search the API ran itself (`web_search_20250305`): per query a
 * `server_tool_use` and its `web_search_tool_result` (the pages, each with opaque
 * `encrypted_content`), all before the answer, as the live API places them.
 */
function searchBlocks(reply: Reply): Json[] {
  const search = reply.search;
  if (!search) return [];
  return search.queries.flatMap((query, i) => {
    const id = `srvtoolu_01${String(i).padStart(20, "0")}`;
    const results = i === 0 ? search.results : [];
    return [
      { type: "server_tool_use", id, name: "web_search", input: { query } },
      {
        type: "web_search_tool_result",
        tool_use_id: id,
        content: results.map((r) => ({
          type: "web_search_result",
          url: r.url,
          title: r.title,
          encrypted_content: `enc-${r.url}`,
          page_age: "April 30, 2025",
        })),
      },
    ];
  });
}

/** `web_search_result_location` citations of the pages whose cited text is in `text`. */
function textCitations(text: string, reply: Reply): Json[] {
  return (reply.search?.results ?? [])
    .filter((r) => text.includes(r.cited))
    .map((r) => ({
      type: "web_search_result_location",
      url: r.url,
      title: r.title,
      encrypted_index: `idx-${r.url}`,
      cited_text: r.cited,
    }));
}

function serverToolUse(reply: Reply): Json | undefined {
  return reply.search ? { web_search_requests: reply.search.queries.length } : undefined;
}

function stopSequence(reply: Reply): string | null {
  return finishOf(reply) === "stop_sequence" ? (reply.stopSequence ?? null) : null;
}

/** Tool-use ids, fixed once per reply. */
function toolIds(reply: Reply): Map<ReplyBlock, string> {
  const ids = new Map<ReplyBlock, string>();
  for (const b of blocksOf(reply)) if (b.type === "tool_call") ids.set(b, b.id ?? randomId("toolu_01", 22));
  return ids;
}

function response(reply: Reply, x: Exchange): object {
  const ids = toolIds(reply);
  const answer = blocksOf(reply).flatMap((b): Json[] => {
    switch (b.type) {
      case "text": {
        const citations = textCitations(b.text, reply);
        return [{ type: "text", text: b.text, ...(citations.length > 0 ? { citations } : {}) }];
      }
      case "image":
        return [];
      default:
        return [block(b)];
    }
  });
  const content = [...searchBlocks(reply), ...answer];
  function block(b: ReplyBlock): Json {
    switch (b.type) {
      case "thinking":
        return { type: "thinking", thinking: b.text, signature: b.signature ?? "" };
      case "redacted_thinking":
        return { type: "redacted_thinking", data: b.data };
      case "tool_call":
        return { type: "tool_use", id: ids.get(b), name: b.name, input: argumentsObject(b.args) };
      default:
        return {};
    }
  }
  const usage = startUsage(reply);
  const server = serverToolUse(reply);
  if (server) usage.server_tool_use = server;
  return withExtra(
    {
      id: x.responseId,
      type: "message",
      role: "assistant",
      model: x.model,
      content,
      stop_reason: STOP_REASON[finishOf(reply)],
      stop_sequence: stopSequence(reply),
      usage,
    },
    reply,
  );
}

function stream(reply: Reply, x: Exchange): StreamPlan {
  const count = reply.chunks ?? DEFAULT_CHUNKS;
  const ids = toolIds(reply);
  const u = usageOf(reply);
  const event = (data: Json) =>
    `event: ${String(data.type)}\ndata: ${JSON.stringify(withExtra(data, reply))}\n\n`;
  const frames: string[] = [];

  const opening = startUsage(reply);
  opening.output_tokens = Math.min(1, u.output + u.reasoning);
  frames.push(
    event({
      type: "message_start",
      message: {
        id: x.responseId,
        type: "message",
        role: "assistant",
        model: x.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: opening,
      },
    }),
  );
  frames.push(event({ type: "ping" }));

  const server = searchBlocks(reply);
  server.forEach((block, index) => {
    if (block.type === "server_tool_use") {
      frames.push(event({ type: "content_block_start", index, content_block: { ...block, input: {} } }));
      const partial_json = JSON.stringify(block.input);
      frames.push(
        event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } }),
      );
    } else frames.push(event({ type: "content_block_start", index, content_block: block }));
    frames.push(event({ type: "content_block_stop", index }));
  });
  blocksOf(reply)
    .filter((block) => block.type !== "image")
    .forEach((block, at) => {
      const index = at + server.length;
      const delta = (d: Json) => frames.push(event({ type: "content_block_delta", index, delta: d }));
      switch (block.type) {
        case "text":
          frames.push(
            event({ type: "content_block_start", index, content_block: { type: "text", text: "" } }),
          );
          for (const text of splitPieces(block.text, count)) delta({ type: "text_delta", text });
          for (const citation of textCitations(block.text, reply))
            delta({ type: "citations_delta", citation });
          break;
        case "thinking":
          frames.push(
            event({
              type: "content_block_start",
              index,
              content_block: { type: "thinking", thinking: "", signature: "" },
            }),
          );
          for (const thinking of splitPieces(block.text, count)) delta({ type: "thinking_delta", thinking });
          if (block.signature) delta({ type: "signature_delta", signature: block.signature });
          break;
        case "redacted_thinking":
          frames.push(
            event({
              type: "content_block_start",
              index,
              content_block: { type: "redacted_thinking", data: block.data },
            }),
          );
          break;
        case "tool_call": {
          frames.push(
            event({
              type: "content_block_start",
              index,
              content_block: { type: "tool_use", id: ids.get(block), name: block.name, input: {} },
            }),
          );
          // The live API opens every tool input with an empty piece; an argument-less call sends only that.
          delta({ type: "input_json_delta", partial_json: "" });
          const json = argumentsText(block.args);
          if (json !== "{}") {
            for (const partial_json of splitPieces(json, count))
              delta({ type: "input_json_delta", partial_json });
          }
          break;
        }
      }
      frames.push(event({ type: "content_block_stop", index }));
    });

  frames.push(
    event({
      type: "message_delta",
      delta: { stop_reason: STOP_REASON[finishOf(reply)], stop_sequence: stopSequence(reply) },
      usage: {
        input_tokens: u.input,
        cache_creation_input_tokens: u.cacheWrite5m + u.cacheWrite1h,
        cache_read_input_tokens: u.cacheRead,
        output_tokens: u.output + u.reasoning,
        ...(serverToolUse(reply) ? { server_tool_use: serverToolUse(reply) } : {}),
      },
    }),
  );
  frames.push(event({ type: "message_stop" }));
  return { frames, terminal: 2 };
}

export const anthropicDialect: Dialect = {
  protocol: "anthropic",
  basePath: "",
  check,
  countTokens,
  response,
  stream,
  error,
  overloadedStatus: 529,
  streamError: () =>
    `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`,
  malformedFrame: () =>
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":\n\n',
  headers: (stream) => ({
    "content-type": stream ? "text/event-stream; charset=utf-8" : "application/json",
    "request-id": randomId("req_011C", 20),
    ...(stream ? { "cache-control": "no-cache" } : {}),
  }),
};

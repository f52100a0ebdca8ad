// A fake Amazon Bedrock Runtime, speaking its exact wire (rendered by hand, independent of src/):
//
//   POST /model/{modelId}/converse                      Converse: JSON in, JSON out
//   POST /model/{modelId}/converse-stream               ConverseStream: JSON in, event-stream out
//   POST /model/{modelId}/invoke                        InvokeModel with an Anthropic messages body
//   POST /model/{modelId}/invoke-with-response-stream   … streamed: `chunk` events, {"bytes": base64}
//   POST /model/{modelId}/count-tokens                  CountTokens: {"input": {converse | invokeModel}}
//
// The model id is one URL-encoded path segment (an ARN's `:` and `/` arrive as %3A and %2F) and is
// recorded decoded. Streams are `application/vnd.amazon.eventstream` frames made with the AWS SDK's
// own codec (@smithy/eventstream-codec); each event's JSON carries Bedrock's `p` padding member. Error
// answers are Bedrock's: `{"message": …}` with the exception named in `x-amzn-errortype`; in a stream,
// an exception frame (`:message-type: exception`). Every request is recorded with its headers
// (`authorization`, `x-amz-date`, `x-amz-security-token`, `x-amz-content-sha256`) and body bytes, so
// tests can check a signature; `authorize` refuses a request as Bedrock refuses bad credentials
// (bedrock-auth.ts: a SigV4 check with the SDK's own signer, or a Bedrock API key).
// Replies are scripted with the protocol-neutral `Reply` of reply.ts (usage semantics there; of
// its faults, `hang`, `answerDelayMs` and `midstream-error`, whose exception the reply's
// `x-amzn-errortype` header may name):
// Converse reports `inputTokens` without cache reads and writes, `cacheReadInputTokens`,
// `cacheWriteInputTokens` (split by TTL in `cacheDetails` when 1h writes exist), `outputTokens` with
// reasoning, and `totalTokens` the sum of all.
//
//   const bedrock = await startFakeBedrock();
//   bedrock.script({ blocks: [{ type: "text", text: "hi" }] });
//   … point a client at bedrock.url …; bedrock.requests[0].modelId; await bedrock.close();

import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { bedrockEmbeddings } from "./embeddings.ts";
import {
  argumentsObject,
  argumentsText,
  blocksOf,
  DEFAULT_CHUNKS,
  DEFAULT_REPLY,
  type Finish,
  finishOf,
  type Reply,
  type ReplyBlock,
  randomId,
  splitPieces,
  usageOf,
} from "./reply.ts";

type Json = Record<string, unknown>;

export type BedrockOperation =
  | "converse"
  | "converse-stream"
  | "invoke"
  | "invoke-with-response-stream"
  | "count-tokens";

export interface BedrockRequest {
  method: string;
  /** The request target as sent (model id still encoded). */
  path: string;
  /** The model id, URL-decoded (`us.anthropic.claude-…`, `arn:aws:bedrock:…`). */
  modelId: string;
  operation: BedrockOperation | undefined;
  headers: IncomingHttpHeaders;
  /** The body's bytes exactly as received (what a SigV4 signature covers). */
  rawBody: Buffer;
  /** The body parsed as JSON, or undefined. */
  body: any;
}

export interface FakeBedrockOptions {
  /**
   * Checks a request's credentials (a SigV4 signature, a Bedrock API key): a message refuses it with
   * a 403 as Bedrock refuses a bad signature (`x-amzn-errortype` `exceptionName`, default
   * `UnrecognizedClientException`), undefined accepts it. Default: every request is accepted.
   */
  authorize?(
    request: BedrockRequest,
  ):
    | { exceptionName?: string; message: string }
    | undefined
    | Promise<{ exceptionName?: string; message: string } | undefined>;
}

export interface FakeBedrock {
  /** The endpoint: `http://127.0.0.1:PORT` (a client's `endpoint`, or a provider's `base_url`). */
  readonly url: string;
  readonly requests: BedrockRequest[];
  /** Queues replies for the next requests; an empty queue answers DEFAULT_REPLY. */
  script(...replies: Reply[]): void;
  reset(): void;
  close(): Promise<void>;
}

const OPERATIONS = new Set<string>([
  "converse",
  "converse-stream",
  "invoke",
  "invoke-with-response-stream",
  "count-tokens",
]);

/** Bedrock's exception for an HTTP status, as its API reference lists them. */
const EXCEPTIONS: Record<number, { name: string; message: string }> = {
  400: { name: "ValidationException", message: "The provided request is not valid" },
  403: {
    name: "AccessDeniedException",
    message: "You don't have access to the model with the specified model ID.",
  },
  404: { name: "ResourceNotFoundException", message: "The specified model could not be found." },
  408: { name: "ModelTimeoutException", message: "Model has timed out in processing the request." },
  424: { name: "ModelErrorException", message: "The model failed to process the request." },
  429: { name: "ThrottlingException", message: "Too many requests, please wait before trying again." },
  500: { name: "InternalServerException", message: "An internal server error occurred. Retry your request." },
  503: { name: "ServiceUnavailableException", message: "Bedrock is unable to process your request." },
};

const CONVERSE_STOP: Record<Finish, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  stop_sequence: "stop_sequence",
  content_filter: "content_filtered",
};

const MESSAGES_STOP: Record<Finish, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  stop_sequence: "stop_sequence",
  content_filter: "refusal",
};

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const requests: BedrockRequest[] = [];
  const queue: Reply[] = [];
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const rawBody = Buffer.concat(parts);
    const target = req.url ?? "/";
    const match = /^\/model\/([^/?]+)\/([a-z-]+)(?:\?.*)?$/.exec(target);
    const request: BedrockRequest = {
      method: req.method ?? "GET",
      path: target,
      modelId: match ? decodeURIComponent(match[1]) : "",
      operation: match && OPERATIONS.has(match[2]) ? (match[2] as BedrockOperation) : undefined,
      headers: req.headers,
      rawBody,
      body: parseJson(rawBody),
    };
    requests.push(request);
    if (request.method !== "POST" || request.operation === undefined)
      return sendError(res, 404, "UnknownOperationException", "Unknown operation");
    const refusal = await options.authorize?.(request);
    if (refusal)
      return sendError(res, 403, refusal.exceptionName ?? "UnrecognizedClientException", refusal.message);
    if (request.operation === "invoke") {
      const embedded = bedrockEmbeddings(request.modelId, request.body ?? {});
      if (embedded && "status" in embedded)
        return sendError(res, embedded.status, "ValidationException", embedded.message);
      if (embedded) return sendJson(res, 200, embedded.body, embedded.headers);
    }
    const invalid = validate(request);
    if (invalid) return sendError(res, 400, "ValidationException", invalid);
    if (request.operation === "count-tokens")
      return sendJson(res, 200, { inputTokens: countOf(request.body) });

    const reply = queue.shift() ?? DEFAULT_REPLY;
    if (reply.fault === "hang") return;
    if (reply.answerDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.answerDelayMs));
    if (reply.status !== undefined && reply.status >= 400) {
      const known = EXCEPTIONS[reply.status] ?? { name: "InternalServerException", message: "Error" };
      const name = reply.headers?.["x-amzn-errortype"] ?? known.name;
      return sendJson(res, reply.status, reply.errorBody ?? { message: known.message }, {
        ...reply.headers,
        "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
      });
    }
    switch (request.operation) {
      case "converse":
        return sendJson(res, 200, converseAnswer(reply));
      case "invoke":
        return sendJson(res, 200, messageAnswer(reply, request.modelId), {
          "x-amzn-bedrock-input-token-count": String(usageOf(reply).input),
          "x-amzn-bedrock-output-token-count": String(usageOf(reply).output + usageOf(reply).reasoning),
        });
      case "converse-stream":
        return sendFrames(res, reply, converseFrames(reply));
      default:
        return sendFrames(res, reply, invokeFrames(reply, request.modelId));
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => {
      queue.push(...replies);
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What Bedrock refuses before any model sees the request (the checks its API reference states). */
function validate(request: BedrockRequest): string | undefined {
  const body = request.body;
  if (body === undefined || typeof body !== "object" || body === null)
    return "Malformed input request, please reformat your input and try again.";
  switch (request.operation) {
    case "converse":
    case "converse-stream":
      return validateConverse(body);
    case "invoke":
    case "invoke-with-response-stream":
      return validateMessagesBody(body);
    default:
      return validateCount(body);
  }
}

function validateConverse(body: Json): string | undefined {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
  if ("modelId" in body) return 'Unknown parameter in input: "modelId"';
  let toolBlocks = false;
  let unlinked: string | undefined;
  for (const [i, message] of messages.entries()) {
    if (i === 0 && message.role !== "user")
      return "A conversation must start with a user message. Try again with a conversation that starts with a user message.";
    if (i > 0 && messages[i - 1].role === message.role)
      return "A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.";
    for (const block of message.content ?? []) {
      if ("toolUse" in block || "toolResult" in block) toolBlocks = true;
      if (typeof block.text === "string" && block.text.trim() === "")
        return `The text field in the ContentBlock object at messages.${i}.content is blank. Add text to the text field, and try again.`;
      const media = mediaProblem(block);
      if (media) return `messages.${i}: ${media}`;
    }
    const stray = unlinkedResults(message, messages[i - 1]);
    unlinked ??= stray && `messages.${i}: ${stray}`;
  }
  if (toolBlocks && body.toolConfig === undefined)
    return "The toolConfig field must be defined when using toolUse and toolResult content blocks.";
  return unlinked;
}

/** The image formats Converse takes (ImageBlock.format). */
const CONVERSE_IMAGE_FORMATS = ["png", "jpeg", "gif", "webp"];

/** An S3Location.uri as the Converse reference's pattern has it. */
const S3_URI = /^s3:\/\/[a-z0-9][.\-a-z0-9]{1,61}[a-z0-9](\/.*)?$/;

/** An image or document block's format and source (a union: bytes or an S3 location), as Converse checks them. */
function mediaProblem(block: Json): string | undefined {
  const media = (block.image ?? block.document) as Json | undefined;
  if (!media) return undefined;
  if (block.image && !CONVERSE_IMAGE_FORMATS.includes(media.format as string))
    return `Value '${String(media.format)}' at 'image.format' failed to satisfy constraint: Member must satisfy enum value set: [png, jpeg, gif, webp]`;
  const source = (media.source ?? {}) as Json;
  const members = Object.keys(source);
  if (members.length !== 1 || !["bytes", "s3Location"].includes(members[0]!))
    return "The source must hold exactly one of bytes or s3Location.";
  const location = source.s3Location as Json | undefined;
  if (location && !(typeof location.uri === "string" && S3_URI.test(location.uri)))
    return "Value at 's3Location.uri' failed to satisfy constraint: Member must satisfy regular expression pattern.";
  return undefined;
}

/** A user turn's tool results must answer the toolUse blocks of the assistant turn before it, by id. */
function unlinkedResults(message: Json, previous: Json | undefined): string | undefined {
  const results = ((message.content as Json[]) ?? []).flatMap((b) =>
    b.toolResult ? [b.toolResult as Json] : [],
  );
  if (results.length === 0) return undefined;
  const calls = new Set(
    ((previous?.content as Json[] | undefined) ?? []).flatMap((b) =>
      b.toolUse ? [(b.toolUse as Json).toolUseId] : [],
    ),
  );
  if (results.length > calls.size)
    return "The number of toolResult blocks exceeds the number of toolUse blocks of previous turn.";
  const stray = results.find((r) => !calls.has(r.toolUseId));
  return stray
    ? `The toolUseId ${String(stray.toolUseId)} does not match any toolUse of the previous turn.`
    : undefined;
}

/** CountTokens: a Converse input, or an InvokeModel body (base64) that InvokeModel itself would take. */
function validateCount(body: Json): string | undefined {
  const input = body.input as Json | undefined;
  if (input?.converse !== undefined) return validateConverse(input.converse as Json);
  const invoke = (input?.invokeModel as Json | undefined)?.body;
  if (typeof invoke !== "string") return "The input field must hold either converse or invokeModel.";
  const parsed = parseJson(Buffer.from(invoke, "base64"));
  return parsed && typeof parsed === "object"
    ? validateMessagesBody(parsed)
    : "Malformed input request, please reformat your input and try again.";
}

/** An Anthropic body on InvokeModel: `anthropic_version` "bedrock-2023-05-31", no `model`. */
function validateMessagesBody(body: Json): string | undefined {
  if (body.anthropic_version !== "bedrock-2023-05-31")
    return "Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.";
  if ("model" in body)
    return "Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.";
  if ("stream" in body)
    return "Malformed input request: #: extraneous key [stream] is not permitted, please reformat your input and try again.";
  if (typeof body.max_tokens !== "number")
    return "Malformed input request: #: required key [max_tokens] not found, please reformat your input and try again.";
  if (!Array.isArray(body.messages))
    return "Malformed input request: #: required key [messages] not found, please reformat your input and try again.";
  return undefined;
}

/** One token per 4 bytes of the counted body (the fakes' counting rule, dialect.ts fakeTokenCount). */
function countOf(body: Json): number {
  const input = body.input as Json;
  const counted =
    input.converse !== undefined
      ? Buffer.from(JSON.stringify(input.converse))
      : Buffer.from((input.invokeModel as { body: string }).body, "base64");
  return Math.ceil(counted.length / 4);
}

function converseUsage(reply: Reply): Json {
  const u = usageOf(reply);
  const written = u.cacheWrite5m + u.cacheWrite1h;
  const usage: Json = {
    inputTokens: u.input,
    outputTokens: u.output + u.reasoning,
    totalTokens: u.input + u.cacheRead + written + u.output + u.reasoning,
  };
  if (u.cacheRead > 0 || written > 0) {
    usage.cacheReadInputTokens = u.cacheRead;
    usage.cacheWriteInputTokens = written;
  }
  if (u.cacheWrite1h > 0)
    usage.cacheDetails = [
      { ttl: "1h", inputTokens: u.cacheWrite1h },
      ...(u.cacheWrite5m > 0 ? [{ ttl: "5m", inputTokens: u.cacheWrite5m }] : []),
    ];
  return usage;
}

function converseBlock(block: ReplyBlock): Json | undefined {
  switch (block.type) {
    case "text":
      return { text: block.text };
    case "thinking":
      return {
        reasoningContent: {
          reasoningText: block.signature
            ? { text: block.text, signature: block.signature }
            : { text: block.text },
        },
      };
    case "redacted_thinking":
      return { reasoningContent: { redactedContent: block.data } };
    case "tool_call":
      return {
        toolUse: {
          toolUseId: block.id ?? randomId("tooluse_", 22),
          name: block.name,
          input: argumentsObject(block.args),
        },
      };
    default:
      return undefined;
  }
}

function converseAnswer(reply: Reply): Json {
  const content = blocksOf(reply).flatMap((block) => converseBlock(block) ?? []);
  const answer: Json = {
    output: { message: { role: "assistant", content } },
    stopReason: CONVERSE_STOP[finishOf(reply)],
    usage: converseUsage(reply),
    metrics: { latencyMs: 321 },
  };
  if (reply.stopSequence !== undefined)
    answer.additionalModelResponseFields = { stop_sequence: reply.stopSequence };
  return answer;
}

/** ConverseStream's events for a reply, in Bedrock's order; each `[eventType, payload]`. */
function converseFrames(reply: Reply): Array<[string, Json]> {
  const chunks = reply.chunks ?? DEFAULT_CHUNKS;
  const events: Array<[string, Json]> = [["messageStart", { role: "assistant" }]];
  blocksOf(reply).forEach((block, contentBlockIndex) => {
    const deltas: Json[] = [];
    if (block.type === "text") for (const text of splitPieces(block.text, chunks)) deltas.push({ text });
    else if (block.type === "thinking") {
      for (const text of splitPieces(block.text, chunks)) deltas.push({ reasoningContent: { text } });
      if (block.signature) deltas.push({ reasoningContent: { signature: block.signature } });
    } else if (block.type === "redacted_thinking")
      deltas.push({ reasoningContent: { redactedContent: block.data } });
    else if (block.type === "tool_call") {
      const toolUseId = block.id ?? randomId("tooluse_", 22);
      events.push([
        "contentBlockStart",
        { contentBlockIndex, start: { toolUse: { toolUseId, name: block.name } } },
      ]);
      for (const input of splitPieces(argumentsText(block.args), chunks)) deltas.push({ toolUse: { input } });
    } else return;
    for (const delta of deltas) events.push(["contentBlockDelta", { contentBlockIndex, delta }]);
    events.push(["contentBlockStop", { contentBlockIndex }]);
  });
  const stop: Json = { stopReason: CONVERSE_STOP[finishOf(reply)] };
  if (reply.stopSequence !== undefined)
    stop.additionalModelResponseFields = { stop_sequence: reply.stopSequence };
  events.push(["messageStop", stop]);
  events.push(["metadata", { usage: converseUsage(reply), metrics: { latencyMs: 321 } }]);
  return events;
}

function messagesUsage(reply: Reply): Json {
  const u = usageOf(reply);
  return {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheWrite5m + u.cacheWrite1h,
    cache_read_input_tokens: u.cacheRead,
    output_tokens: u.output + u.reasoning,
  };
}

function messageBlock(block: ReplyBlock): Json | undefined {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return { type: "thinking", thinking: block.text, signature: block.signature ?? "" };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: block.data };
    case "tool_call":
      return {
        type: "tool_use",
        id: block.id ?? randomId("toolu_bdrk_", 24),
        name: block.name,
        input: argumentsObject(block.args),
      };
    default:
      return undefined;
  }
}

/** InvokeModel's answer for a Claude model: a messages-protocol message (Bedrock's ids: `msg_bdrk_…`). */
function messageAnswer(reply: Reply, modelId: string): Json {
  return {
    id: randomId("msg_bdrk_", 24),
    type: "message",
    role: "assistant",
    model: claudeName(modelId),
    content: blocksOf(reply).flatMap((block) => messageBlock(block) ?? []),
    stop_reason: MESSAGES_STOP[finishOf(reply)],
    stop_sequence: reply.stopSequence ?? null,
    usage: messagesUsage(reply),
  };
}

/** The stream events of InvokeModelWithResponseStream for a Claude model, each in a `chunk`. */
function invokeFrames(reply: Reply, modelId: string): Array<[string, Json]> {
  const chunks = reply.chunks ?? DEFAULT_CHUNKS;
  const u = usageOf(reply);
  const message = { ...messageAnswer(reply, modelId), content: [], stop_reason: null, stop_sequence: null };
  const events: Json[] = [
    { type: "message_start", message: { ...message, usage: { ...messagesUsage(reply), output_tokens: 1 } } },
  ];
  blocksOf(reply).forEach((block, index) => {
    const whole = messageBlock(block);
    if (!whole) return;
    const deltas: Json[] = [];
    let start: Json = whole;
    if (block.type === "text") {
      start = { type: "text", text: "" };
      for (const text of splitPieces(block.text, chunks)) deltas.push({ type: "text_delta", text });
    } else if (block.type === "thinking") {
      start = { type: "thinking", thinking: "", signature: "" };
      for (const thinking of splitPieces(block.text, chunks))
        deltas.push({ type: "thinking_delta", thinking });
      if (block.signature) deltas.push({ type: "signature_delta", signature: block.signature });
    } else if (block.type === "tool_call") {
      start = { ...whole, input: {} };
      for (const partial_json of splitPieces(argumentsText(block.args), chunks))
        deltas.push({ type: "input_json_delta", partial_json });
    }
    events.push({ type: "content_block_start", index, content_block: start });
    for (const delta of deltas) events.push({ type: "content_block_delta", index, delta });
    events.push({ type: "content_block_stop", index });
  });
  events.push({
    type: "message_delta",
    delta: { stop_reason: MESSAGES_STOP[finishOf(reply)], stop_sequence: reply.stopSequence ?? null },
    usage: { output_tokens: u.output + u.reasoning },
  });
  events.push({
    type: "message_stop",
    "amazon-bedrock-invocationMetrics": {
      inputTokenCount: u.input,
      outputTokenCount: u.output + u.reasoning,
      invocationLatency: 321,
      firstByteLatency: 123,
    },
  });
  return events.map((event) => ["chunk", { bytes: Buffer.from(JSON.stringify(event)).toString("base64") }]);
}

/** `anthropic.claude-sonnet-4-5-20250929-v1:0` (or a profile / ARN of it) → `claude-sonnet-4-5-20250929`. */
function claudeName(modelId: string): string {
  const match = /anthropic\.(claude[^:/]*?)(?:-v\d+)?(?::\d+)?$/.exec(modelId);
  return match ? match[1] : modelId;
}

/** An event frame; Bedrock pads each event's JSON with a `p` member of random length. */
function eventFrame(eventType: string, payload: Json): Uint8Array {
  const padded = {
    ...payload,
    p: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".slice(
      0,
      1 + Math.floor(Math.random() * 40),
    ),
  };
  return codec.encode({
    headers: {
      ":event-type": { type: "string", value: eventType },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: fromUtf8(JSON.stringify(padded)),
  });
}

/** An exception frame within a stream, as Bedrock ends a stream the model broke off. */
export function exceptionFrame(exceptionType: string, payload: Json): Uint8Array {
  return codec.encode({
    headers: {
      ":exception-type": { type: "string", value: exceptionType },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "exception" },
    },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/**
 * The exception that breaks a `midstream-error` stream off: `modelStreamErrorException` unless the
 * reply's `x-amzn-errortype` header names another (`throttlingException`…), with `errorBody` as its payload.
 */
function midstreamException(reply: Reply): Uint8Array {
  const named = reply.headers?.["x-amzn-errortype"];
  const payload = (reply.errorBody as Json | undefined) ?? {
    message: "The model failed to process the request.",
    originalStatusCode: 500,
    originalMessage: "Internal error while generating.",
  };
  return exceptionFrame(named ?? "modelStreamErrorException", payload);
}

async function sendFrames(res: ServerResponse, reply: Reply, events: Array<[string, Json]>): Promise<void> {
  const { "x-amzn-errortype": _named, ...headers } = reply.headers ?? {};
  res.writeHead(200, {
    ...headers,
    "content-type": "application/vnd.amazon.eventstream",
    "x-amzn-requestid": randomUUID(),
    "x-amzn-bedrock-content-type": "application/json",
  });
  // A mid-stream fault: half the events, then the model's failure as an exception frame.
  const cut = reply.fault === "midstream-error" ? Math.max(1, Math.floor(events.length / 2)) : events.length;
  for (const [i, [type, payload]] of events.slice(0, cut).entries()) {
    if (i > 0 && reply.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, reply.chunkDelayMs));
    res.write(eventFrame(type, payload));
  }
  if (cut < events.length) res.write(midstreamException(reply));
  res.end();
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    "x-amzn-requestid": randomUUID(),
    ...headers,
  });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, name: string, message: string): void {
  sendJson(
    res,
    status,
    { message },
    { "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  );
}

function parseJson(bytes: Buffer): any {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

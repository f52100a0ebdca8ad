// AWS Bedrock. Anthropic's models (an `anthropic.` in the id: base ids, `us.`/`global.` inference
// profiles, their ARNs) go through InvokeModel / InvokeModelWithResponseStream with messages bodies,
// so a messages client gets a relay; every other model through Converse / ConverseStream
// (src/protocols/bedrock-converse/). The model id goes URL-encoded in the path (an ARN holds `:` and
// `/`). Streams arrive as AWS event-stream frames (src/providers/aws/event-stream.ts) and are handed
// on as the SSE events the family's stream decoder (or a relay) reads; Bedrock's error answers are
// read as Bedrock writes them (x-amzn-errortype), whichever the family.

import type { GatewayError } from "../../ir/errors.ts";
import { anthropic } from "../../protocols/anthropic/index.ts";
import { decodeError, streamException } from "../../protocols/bedrock-converse/errors.ts";
import type { SseEvent } from "../../protocols/types.ts";
import { BEDROCK_ANTHROPIC_VERSION, invokeModelCountCall } from "../aws/count-tokens.ts";
import type { EventStreamMessage } from "../aws/event-stream.ts";
import type { UpstreamBody } from "../http/exchange.ts";
import { platformBetas, platformMessagesCall } from "./anthropic-body.ts";
import { bodyModel, noPlatformEndpoint, type PlatformCall, type PlatformHooks } from "./types.ts";

export type BedrockFamily = "anthropic" | "converse";

export function bedrockFamily(model: string): BedrockFamily {
  return model.includes("anthropic.") ? "anthropic" : "converse";
}

export function bedrockHooks(providerId: string, family: BedrockFamily): PlatformHooks {
  if (family === "converse")
    return {
      shape: (call) => {
        if (!/^\/model\/[^/]+\/(converse|converse-stream|count-tokens)$/.test(call.path))
          throw noPlatformEndpoint(providerId, call.path);
        return call;
      },
      decodeError,
      answer: (call, body) =>
        call.stream ? sseOf(body, (message, { toSseEvent }) => [sseBytes(toSseEvent(message))]) : body,
    };
  return {
    shape: (call) => {
      if (call.path === "/v1/messages/count_tokens") return countCall(call);
      if (call.path !== "/v1/messages") throw noPlatformEndpoint(providerId, call.path);
      const model = encodeURIComponent(bodyModel(call.body) ?? "");
      const method = call.stream ? "invoke-with-response-stream" : "invoke";
      return { ...call, ...invokeBody(call), path: `/model/${model}/${method}` };
    },
    decodeError,
    answer: (call, body) => {
      if (call.stream) return sseOf(body, messagesSseBytes);
      return call.path === "/v1/messages/count_tokens" ? countAnswer(body) : body;
    },
  };
}

/** An embedding model's InvokeModel call (./embeddings.ts): sent as the codec made it, Bedrock's errors read as Bedrock's. */
export function bedrockEmbeddingHooks(providerId: string): PlatformHooks {
  return {
    shape: (call) => {
      if (!/^\/model\/[^/]+\/invoke$/.test(call.path)) throw noPlatformEndpoint(providerId, call.path);
      return call;
    },
    decodeError,
  };
}

/** InvokeModel refuses `stream` (the path says it) and `model` (the path names it). */
function invokeBody(call: PlatformCall): { body: string; headers: Record<string, string> } {
  return platformMessagesCall(call.body, call.headers, BEDROCK_ANTHROPIC_VERSION, ["model", "stream"]);
}

/** A messages token count as Bedrock's CountTokens of the InvokeModel body it would send (../aws/count-tokens.ts). */
function countCall(call: PlatformCall): PlatformCall {
  const { betas, headers } = platformBetas(call.headers);
  const { model, ...counted } = JSON.parse(call.body) as Record<string, unknown>;
  const count = invokeModelCountCall(String(model ?? ""), counted, betas);
  return { ...call, headers, path: count.path, body: JSON.stringify(count.body) };
}

/** CountTokens' `{"inputTokens": n}` as the messages count `{"input_tokens": n}`. */
function countAnswer(body: UpstreamBody): UpstreamBody {
  return {
    chunks: () => body.chunks(),
    text: async () => {
      const count = (JSON.parse(await body.text()) as { inputTokens?: unknown }).inputTokens;
      return JSON.stringify({ input_tokens: count });
    },
  };
}

type EventStreamModule = typeof import("../aws/event-stream.ts");

/**
 * An InvokeModelWithResponseStream frame as the messages event it carries; an exception frame
 * (`modelStreamErrorException`, `throttlingException`…) as the messages protocol's `error` event, so
 * that a relayed client and the translating decoder alike end the stream with an error.
 */
function messagesEvent(
  message: EventStreamMessage,
  { invokeChunkEvent, toSseEvent }: EventStreamModule,
): SseEvent {
  if (message.messageType === "event") return invokeChunkEvent(message);
  const raw = toSseEvent(message);
  return errorEvent(streamException(raw.event ?? "error", raw.data));
}

function errorEvent(error: GatewayError): SseEvent {
  return { event: "error", data: JSON.stringify(anthropic.encodeError(error).body) };
}

/** The event-stream reader and its codec, loaded with the first Bedrock stream: a gateway without Bedrock never loads them. */
let eventStreamModule: Promise<EventStreamModule> | undefined;

function eventStream(): Promise<EventStreamModule> {
  if (!eventStreamModule) eventStreamModule = import("../aws/event-stream.ts");
  return eventStreamModule;
}

/** An event-stream body read as SSE: one event per frame, as the stream decoders and relays read. */
function sseOf(
  body: UpstreamBody,
  toSse: (message: EventStreamMessage, module: EventStreamModule) => Buffer[],
): UpstreamBody {
  return {
    text: () => body.text(),
    async *chunks() {
      const module = await eventStream();
      const reader = new module.EventStreamReader();
      for await (const chunk of body.chunks()) {
        const frames = reader.push(chunk);
        if (frames.length > 0) yield Buffer.concat(frames.flatMap((frame) => toSse(frame, module)));
      }
      reader.end();
    },
  };
}

/**
 * An InvokeModelWithResponseStream frame as SSE: a `chunk` frame's event goes on as the bytes its
 * base64 decodes to, behind its `event:` line, never made a string (the relay then passes a content
 * event's bytes as they are, as from Anthropic itself); an event whose JSON spans lines, and every
 * other frame, as messagesEvent frames it.
 */
function messagesSseBytes(message: EventStreamMessage, module: EventStreamModule): Buffer[] {
  if (message.messageType !== "event" || message.eventType !== "chunk")
    return [sseBytes(messagesEvent(message, module))];
  const data = module.invokeChunkBytes(message);
  const type = module.messagesEventType(data);
  if (data.includes(LF)) return [sseBytes({ event: type, data: data.toString("utf8") })];
  return [eventOpening(type), data, BLANK_LINE];
}

const LF = 0x0a;
const BLANK_LINE = Buffer.from("\n\n");
const DATA_OPENING = Buffer.from("data: ");
/** The `event: name\ndata: ` openings made so far, by name: the messages protocol has a handful of names. */
const eventOpenings = new Map<string, Buffer>();
const MAX_EVENT_OPENINGS = 64;

function eventOpening(type: string | undefined): Buffer {
  if (type === undefined) return DATA_OPENING;
  let opening = eventOpenings.get(type);
  if (!opening) {
    opening = Buffer.from(`event: ${type}\ndata: `);
    if (eventOpenings.size < MAX_EVENT_OPENINGS) eventOpenings.set(type, opening);
  }
  return opening;
}

/** An event in SSE's framing; a line break in its data (JSON whitespace) continues the data on a line of its own. */
function sseBytes(event: SseEvent): Buffer {
  const name = event.event ? `event: ${event.event}\n` : "";
  return Buffer.from(`${name}data: ${event.data.replaceAll("\n", "\ndata: ")}\n\n`);
}

// AWS event-stream frames (`application/vnd.amazon.eventstream`, the framing of Bedrock's
// ConverseStream and InvokeModelWithResponseStream answers) read incrementally from a byte stream.
// Each frame is decoded by the AWS SDK's own codec (@smithy/eventstream-codec: prelude and message
// CRCs, typed headers); this file only cuts the byte stream where a frame's prelude says it ends,
// as the SDK's own reader does.
//
// Interface:
// - `EventStreamReader`: `push(bytes)` → the whole frames that bytes completed, as
//   `EventStreamMessage`s; `end()` throws when the stream stopped inside a frame.
// - `readEventStream(body)`: the same over an async iterable of chunks (an undici body).
// - `toSseEvent(message)`: a frame as the `SseEvent` a protocol's stream decoder reads: its name is
//   the `:event-type` (`contentBlockDelta`…), the `:exception-type` (`throttlingException`…) or the
//   `:error-code`, and its data the payload as text (an error frame's data: `{"message": …}`).
// - `invokeChunkEvent(message)`: an InvokeModelWithResponseStream `chunk` frame, whose payload
//   `{"bytes": base64}` carries one messages-protocol stream event, as that event (`message_start`…),
//   ready for the messages protocol's stream decoder; other frames as `toSseEvent` gives them.
// - `invokeChunkBytes(message)` and `messagesEventType(bytes)`: the same event as its JSON's bytes
//   and its name, for a reader that frames it as SSE bytes without a string in between.

import { EventStreamCodec, type Message } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { GatewayError, upstreamEventTooLarge, upstreamFrameNotJson } from "../../ir/errors.ts";
import { isObject } from "../../protocols/shared/validate.ts";
import type { SseEvent } from "../../protocols/types.ts";

/** The most one frame may hold: AWS caps an event-stream message at 16 MiB (its payload at 16 MiB less the headers). */
export const EVENT_STREAM_FRAME_MAX_BYTES = 16 * 1024 * 1024;

/** The prelude: total length (4 bytes), headers length (4), prelude CRC (4). The message CRC ends it. */
const PRELUDE_BYTES = 12;
const TRAILER_BYTES = 4;

export interface EventStreamMessage {
  /** `:message-type`: `event`, `exception` or `error`. */
  messageType: string;
  /** `:event-type` of an event (`messageStart`, `contentBlockDelta`, `chunk`…). */
  eventType?: string;
  /** `:exception-type` of an exception (`modelStreamErrorException`, `throttlingException`…). */
  exceptionType?: string;
  /** `:error-code` and `:error-message` of an error frame (the framing layer's own failures). */
  errorCode?: string;
  errorMessage?: string;
  /** `:content-type` of the payload (`application/json`). */
  contentType?: string;
  payload: Uint8Array;
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

export class EventStreamReader {
  private pending: Uint8Array = new Uint8Array(0);

  /** The frames completed by `bytes`, in order; a partial frame is kept for the next push. */
  push(bytes: Uint8Array): EventStreamMessage[] {
    this.pending = this.pending.length === 0 ? bytes : concat(this.pending, bytes);
    const messages: EventStreamMessage[] = [];
    let at = 0;
    while (this.pending.length - at >= PRELUDE_BYTES) {
      const length = frameLength(this.pending, at);
      if (length > EVENT_STREAM_FRAME_MAX_BYTES) throw upstreamEventTooLarge(EVENT_STREAM_FRAME_MAX_BYTES);
      if (length < PRELUDE_BYTES + TRAILER_BYTES) throw brokenFrame("a frame shorter than its prelude");
      if (this.pending.length - at < length) break;
      messages.push(decodeFrame(this.pending.subarray(at, at + length)));
      at += length;
    }
    this.pending = at === this.pending.length ? new Uint8Array(0) : this.pending.slice(at);
    return messages;
  }

  /** The stream ended: an unfinished frame is the upstream's fault. */
  end(): void {
    if (this.pending.length > 0) throw brokenFrame("the stream ended inside a frame");
  }
}

/** Every frame of a byte stream, read as the chunks arrive. */
export async function* readEventStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<EventStreamMessage, void, undefined> {
  const reader = new EventStreamReader();
  for await (const chunk of body) yield* reader.push(chunk);
  reader.end();
}

/** A frame as a named event with its payload as text (see the header). */
export function toSseEvent(message: EventStreamMessage): SseEvent {
  if (message.messageType === "error")
    return {
      event: message.errorCode ?? "error",
      data: JSON.stringify({ message: message.errorMessage ?? "" }),
    };
  const name = message.messageType === "exception" ? message.exceptionType : message.eventType;
  return { event: name ?? message.messageType, data: toUtf8(message.payload) };
}

/**
 * An InvokeModelWithResponseStream frame as the messages-protocol event its `chunk` carries
 * (`{"bytes": base64}` → the event's JSON, named by its `type`); other frames (exceptions) as they are.
 */
export function invokeChunkEvent(message: EventStreamMessage): SseEvent {
  if (message.messageType !== "event" || message.eventType !== "chunk") return toSseEvent(message);
  const event = invokeChunkBytes(message);
  const data = event.toString("utf8");
  const type = messagesEventType(event);
  return type === undefined ? { data } : { event: type, data };
}

/**
 * The messages event a `chunk` frame carries, as its JSON's bytes: the payload's `bytes` member
 * decoded from base64. A payload that opens `{"bytes":"` (as Bedrock writes it) is read without
 * making it a string or parsing it; any other layout is parsed as JSON.
 */
export function invokeChunkBytes(message: EventStreamMessage): Buffer {
  const payload = message.payload;
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  const base64 = leadingStringMember(bytes, BYTES_OPENING) ?? parsedBytesMember(bytes);
  return Buffer.from(base64, "base64");
}

/**
 * A messages event's `type`, from its JSON's bytes: read where the event opens `{"type":"name"`
 * (every event Anthropic writes does), else parsed; undefined when the JSON has no string `type`.
 * Only a parse that is needed is made: a relay passes a content event's bytes on unparsed, as it
 * does a plain Anthropic upstream's.
 */
export function messagesEventType(event: Buffer): string | undefined {
  const name = leadingStringMember(event, TYPE_OPENING);
  if (name !== undefined && /^[a-z_]+$/.test(name)) return name;
  let type: unknown;
  try {
    type = (JSON.parse(event.toString("utf8")) as { type?: unknown }).type;
  } catch {
    throw upstreamFrameNotJson();
  }
  return typeof type === "string" ? type : undefined;
}

const BYTES_OPENING = Buffer.from('{"bytes":"');
const TYPE_OPENING = Buffer.from('{"type":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first member's string value when `json` opens with `opening` (`{"name":"`) and the string
 * has no escape (base64 and event names never need one); undefined for any other layout.
 */
function leadingStringMember(json: Buffer, opening: Buffer): string | undefined {
  if (json.length <= opening.length || json.compare(opening, 0, opening.length, 0, opening.length) !== 0)
    return undefined;
  const end = json.indexOf(QUOTE, opening.length);
  if (end < 0) return undefined;
  const backslash = json.indexOf(BACKSLASH, opening.length);
  if (backslash >= 0 && backslash < end) return undefined;
  return json.toString("latin1", opening.length, end);
}

function parsedBytesMember(payload: Buffer): string {
  let chunk: unknown;
  try {
    chunk = JSON.parse(payload.toString("utf8"));
  } catch {
    throw upstreamFrameNotJson();
  }
  if (!isObject(chunk) || typeof chunk.bytes !== "string") throw brokenFrame("a chunk without bytes");
  return chunk.bytes;
}

function decodeFrame(frame: Uint8Array): EventStreamMessage {
  let message: Message;
  try {
    message = codec.decode(frame);
  } catch (error) {
    throw brokenFrame(error instanceof Error ? error.message : String(error));
  }
  const decoded: EventStreamMessage = {
    messageType: stringHeader(message, ":message-type") ?? "event",
    payload: message.body,
  };
  for (const [field, name] of HEADER_FIELDS) {
    const value = stringHeader(message, name);
    if (value !== undefined) decoded[field] = value;
  }
  return decoded;
}

/** The optional string fields of a message, by the header that gives each. */
const HEADER_FIELDS: ReadonlyArray<[Exclude<keyof EventStreamMessage, "messageType" | "payload">, string]> = [
  ["eventType", ":event-type"],
  ["exceptionType", ":exception-type"],
  ["errorCode", ":error-code"],
  ["errorMessage", ":error-message"],
  ["contentType", ":content-type"],
];

function stringHeader(message: Message, name: string): string | undefined {
  const value = message.headers[name];
  return value?.type === "string" ? value.value : undefined;
}

/** A frame's total length, the prelude's first 4 bytes (big-endian), read without a DataView per frame. */
function frameLength(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

/** A frame the codec cannot read (a bad CRC, a cut-off stream): the upstream broke its framing, a 502. */
function brokenFrame(why: string): GatewayError {
  return new GatewayError("api_error", `upstream sent a broken event-stream frame: ${why}`, { status: 502 });
}

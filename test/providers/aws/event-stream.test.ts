// The event-stream reader: frames cut anywhere in the byte stream come out whole and in order, a
// corrupted or cut-off frame is a 502, and the streams of the Bedrock fake (whose wire the official
// AWS SDK reads, test/fakes/bedrock.test.ts) decode to IR events through the Converse and messages
// stream decoders.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { request } from "undici";
import type { GatewayError } from "../../../src/ir/errors.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { bedrockConverse } from "../../../src/protocols/bedrock-converse/index.ts";
import {
  EventStreamReader,
  invokeChunkBytes,
  invokeChunkEvent,
  messagesEventType,
  readEventStream,
  toSseEvent,
} from "../../../src/providers/aws/event-stream.ts";
import { type FakeBedrock, startFakeBedrock } from "../../fakes/bedrock.ts";
import { baseRequest } from "../../protocols/bedrock-converse/helpers.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(
  headers: Record<string, string>,
  payload: unknown,
  text = JSON.stringify(payload),
): Uint8Array {
  const typed = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, { type: "string" as const, value: v }]),
  );
  return codec.encode({ headers: typed, body: fromUtf8(text) });
}

const event = (type: string, payload: unknown) =>
  frame({ ":message-type": "event", ":event-type": type, ":content-type": "application/json" }, payload);

function joined(...frames: Uint8Array[]): Uint8Array {
  return Uint8Array.from(frames.flatMap((f) => [...f]));
}

test("frames split at every byte boundary come out whole, in order", () => {
  const bytes = joined(
    event("messageStart", { role: "assistant" }),
    event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "héllo" } }),
  );
  for (let cut = 0; cut <= bytes.length; cut++) {
    const reader = new EventStreamReader();
    const messages = [...reader.push(bytes.slice(0, cut)), ...reader.push(bytes.slice(cut))];
    reader.end();
    assert.deepEqual(
      messages.map((m) => toSseEvent(m)),
      [
        { event: "messageStart", data: '{"role":"assistant"}' },
        { event: "contentBlockDelta", data: '{"contentBlockIndex":0,"delta":{"text":"héllo"}}' },
      ],
    );
  }
});

test("exception and error frames are named by their type; a bad CRC or a cut-off frame is a 502", () => {
  const exception = frame(
    { ":message-type": "exception", ":exception-type": "throttlingException" },
    { message: "slow down" },
  );
  const [message] = new EventStreamReader().push(exception);
  assert.deepEqual(toSseEvent(message), { event: "throttlingException", data: '{"message":"slow down"}' });
  const error = frame(
    { ":message-type": "error", ":error-code": "InternalFailure", ":error-message": "oops" },
    {},
  );
  assert.deepEqual(toSseEvent(new EventStreamReader().push(error)[0]), {
    event: "InternalFailure",
    data: '{"message":"oops"}',
  });

  const corrupted = event("messageStart", { role: "assistant" });
  corrupted[corrupted.length - 6] ^= 0xff;
  assert.throws(
    () => new EventStreamReader().push(corrupted),
    (e: GatewayError) => e.status === 502,
  );
  const reader = new EventStreamReader();
  reader.push(event("messageStart", {}).slice(0, 20));
  assert.throws(
    () => reader.end(),
    (e: GatewayError) => e.status === 502,
  );
});

test("an InvokeModel chunk gives the messages-protocol event its base64 bytes carry", () => {
  const inner = { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } };
  const chunk = event("chunk", { bytes: Buffer.from(JSON.stringify(inner)).toString("base64"), p: "abc" });
  const [message] = new EventStreamReader().push(chunk);
  assert.deepEqual(invokeChunkEvent(message), { event: "content_block_delta", data: JSON.stringify(inner) });
});

/** A `chunk` frame with this payload, as read back. */
function chunkWith(payload: string) {
  const headers = { ":message-type": "event", ":event-type": "chunk" };
  const [message] = new EventStreamReader().push(frame(headers, undefined, payload));
  return message;
}

test("a chunk's bytes are read alike whichever way its payload is written", () => {
  const inner = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ü?>"}}';
  const base64 = Buffer.from(inner).toString("base64");
  assert.ok(
    base64.includes("/") || base64.includes("+"),
    "the test's base64 needs a character JSON may escape",
  );
  const payloads = [
    `{"bytes":"${base64}","p":"abc"}`, // as Bedrock writes it: read without a parse
    `{"p":"abc","bytes":"${base64}"}`, // another member first: parsed
    `{"bytes":"${base64.replaceAll("/", "\\/")}"}`, // an escaped slash: parsed
    `{ "bytes" : "${base64}" }`, // whitespace: parsed
  ];
  for (const payload of payloads) {
    const message = chunkWith(payload);
    assert.equal(invokeChunkBytes(message).toString("utf8"), inner, payload);
  }
});

test("a chunk whose payload is not JSON, or has no bytes, is a 502", () => {
  for (const payload of ['{"bytes":', '{"p":"abc"}', "not json"]) {
    const message = chunkWith(payload);
    assert.throws(
      () => invokeChunkBytes(message),
      (e: GatewayError) => e.status === 502,
      payload,
    );
  }
});

test("a messages event's type is read where it opens the event, else parsed", () => {
  const type = (json: string) => messagesEventType(Buffer.from(json));
  assert.equal(type('{"type":"message_delta","delta":{}}'), "message_delta");
  assert.equal(type('{"index":0,"type":"content_block_stop"}'), "content_block_stop");
  assert.equal(type('{"type":"mess\\u0061ge_stop"}'), "message_stop");
  assert.equal(type('{\n  "type": "ping"\n}'), "ping");
  assert.equal(type('{"index":0}'), undefined);
  assert.throws(
    () => type('{"index":'),
    (e: GatewayError) => e.status === 502,
  );
});

let bedrock: FakeBedrock;
before(async () => {
  bedrock = await startFakeBedrock();
});
after(() => bedrock.close());

async function streamed(
  path: string,
  body: unknown,
  toEvent: typeof toSseEvent,
  decoder: ReturnType<typeof bedrockConverse.streamDecoder>,
): Promise<StreamEvent[]> {
  const answer = await request(`${bedrock.url}${path}`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
  assert.equal(answer.headers["content-type"], "application/vnd.amazon.eventstream");
  const events: StreamEvent[] = [];
  for await (const message of readEventStream(answer.body)) events.push(...decoder.decode(toEvent(message)));
  return [...events, ...decoder.end()];
}

test("the fake's ConverseStream decodes to IR: text, a tool call, usage with cache reads", async () => {
  bedrock.script({
    blocks: [
      { type: "text", text: "Let me look." },
      { type: "tool_call", id: "tooluse_9", name: "search", args: { q: "bedrock" } },
    ],
    usage: { input: 7, cacheRead: 30, output: 9 },
    chunks: 4,
  });
  const call = bedrockConverse.encodeRequest(baseRequest({ stream: true }), {
    model: "us.amazon.nova-lite-v1:0",
    stream: true,
  });
  const events = await streamed(call.path, call.body, toSseEvent, bedrockConverse.streamDecoder());
  const text = events
    .flatMap((e) => (e.type === "block_delta" && e.delta.type === "text" ? [e.delta.text] : []))
    .join("");
  const args = events
    .flatMap((e) => (e.type === "block_delta" && e.delta.type === "tool_arguments" ? [e.delta.json] : []))
    .join("");
  assert.equal(text, "Let me look.");
  assert.deepEqual(JSON.parse(args), { q: "bedrock" });
  assert.ok(events.some((e) => e.type === "finish" && e.reason === "tool_calls"));
  const usage = events.findLast((e) => e.type === "usage");
  assert.equal(usage?.type === "usage" ? usage.usage.promptTokens : -1, 37);
  assert.equal(bedrock.requests.at(-1)?.modelId, "us.amazon.nova-lite-v1:0");
});

test("the fake's InvokeModelWithResponseStream decodes through the messages stream decoder", async () => {
  bedrock.script({
    blocks: [
      { type: "thinking", text: "hmm", signature: "sig-9" },
      { type: "text", text: "Claude here." },
    ],
  });
  const body = {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
  };
  const events = await streamed(
    "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream",
    body,
    invokeChunkEvent,
    anthropic.streamDecoder(),
  );
  const text = events
    .flatMap((e) => (e.type === "block_delta" && e.delta.type === "text" ? [e.delta.text] : []))
    .join("");
  assert.equal(text, "Claude here.");
  assert.ok(
    events.some(
      (e) => e.type === "block_delta" && e.delta.type === "signature" && e.delta.signature === "sig-9",
    ),
  );
  assert.ok(events.some((e) => e.type === "finish" && e.reason === "stop"));
});

test("a mid-stream exception frame from the fake ends the IR stream with an error", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "one two three four five" }], fault: "midstream-error" });
  const events = await streamed(
    "/model/us.amazon.nova-lite-v1%3A0/converse-stream",
    { messages: [{ role: "user", content: [{ text: "hi" }] }] },
    toSseEvent,
    bedrockConverse.streamDecoder(),
  );
  const last = events.at(-1);
  assert.equal(last?.type, "error");
  assert.equal(last?.type === "error" ? last.error.status : 0, 502);
});

// A Claude stream on Bedrock (InvokeModelWithResponseStream) as the messages stream a relay reads
// (src/providers/platforms/bedrock.ts): each chunk frame's event framed as SSE from its decoded
// bytes, however the frames are cut across reads; an event whose JSON spans lines continues its data
// on lines of their own; an exception frame ends the stream as the messages protocol's error event.

import assert from "node:assert/strict";
import { test } from "node:test";
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import type { UpstreamBody } from "../../../src/providers/http/exchange.ts";
import { bedrockHooks } from "../../../src/providers/platforms/bedrock.ts";

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function chunkFrame(event: string): Uint8Array {
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: "event" },
      ":event-type": { type: "string", value: "chunk" },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify({ bytes: Buffer.from(event).toString("base64"), p: "abcd" })),
  });
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: "exception" },
      ":exception-type": { type: "string", value: type },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify({ message })),
  });
}

/** The hook's answer for `bytes` arriving in reads of `size` bytes, as text. */
async function relayed(bytes: Buffer, size: number): Promise<string> {
  const hooks = bedrockHooks("bedrock", "anthropic");
  const body: UpstreamBody = {
    text: async () => "",
    async *chunks() {
      for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
    },
  };
  const call = { path: "/v1/messages", body: "{}", headers: {}, stream: true };
  let text = "";
  for await (const chunk of hooks.answer!(call, body).chunks()) text += Buffer.from(chunk).toString("utf8");
  return text;
}

const start = '{"type":"message_start","message":{"id":"msg_1","content":[]}}';
const delta = '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"h\\u00e9 ü"}}';
const spread = '{\n  "type": "message_stop"\n}';

test("chunk frames come out as the messages events they carry, however the reads cut them", async () => {
  const bytes = Buffer.concat([chunkFrame(start), chunkFrame(delta), chunkFrame(spread)]);
  const expected =
    `event: message_start\ndata: ${start}\n\n` +
    `event: content_block_delta\ndata: ${delta}\n\n` +
    'event: message_stop\ndata: {\ndata:   "type": "message_stop"\ndata: }\n\n';
  for (const size of [1, 7, 64, bytes.length])
    assert.equal(await relayed(bytes, size), expected, `reads of ${size}`);
});

test("an exception frame is the messages protocol's error event", async () => {
  const bytes = Buffer.concat([chunkFrame(start), exceptionFrame("throttlingException", "slow down")]);
  const text = await relayed(bytes, bytes.length);
  const [, error] = text.split("\n\n");
  assert.match(error!, /^event: error\ndata: /);
  const data = JSON.parse(error!.slice(error!.indexOf("data: ") + 6)) as {
    error: { type: string; message: string };
  };
  assert.equal(data.error.type, "rate_limit_error");
  assert.equal(data.error.message, "slow down");
});

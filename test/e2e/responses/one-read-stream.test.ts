// A relayed Responses stream whose upstream writes the last text and `response.completed` in one
// network read (the usual end of a stream: a few small events in one TCP segment). The gateway
// stores the response before the last event reaches the client (docs/responses.md), whether or not
// the read that holds it also holds content it passes on undecoded: a streamed run in the
// background too, which must end completed, not stay in progress.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { fakeModel } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let upstream: Server;
let gw: RunningGateway;
let client: OpenAI;

/** The whole stream, as OpenAI writes it, in one write. */
function wholeStream(id: string): string {
  const response = (status: string, extra = {}) => ({
    id,
    object: "response",
    created_at: 1,
    status,
    model: "gpt-x",
    output: [],
    ...extra,
  });
  const message = {
    id: "msg_1",
    type: "message",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text: "Hi there", annotations: [] }],
  };
  const events: Array<Record<string, unknown>> = [
    { type: "response.created", response: response("in_progress") },
    { type: "response.in_progress", response: response("in_progress") },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...message, status: "in_progress", content: [] },
    },
    {
      type: "response.content_part.added",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    },
    { type: "response.output_text.delta", item_id: "msg_1", output_index: 0, content_index: 0, delta: "Hi" },
    {
      type: "response.output_text.delta",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: " there",
    },
    {
      type: "response.output_text.done",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      text: "Hi there",
    },
    {
      type: "response.content_part.done",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      part: message.content[0],
    },
    { type: "response.output_item.done", output_index: 0, item: message },
    {
      type: "response.completed",
      response: response("completed", {
        output: [message],
        usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
      }),
    },
  ];
  return events
    .map((event, i) => `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: i })}\n\n`)
    .join("");
}

before(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(wholeStream("resp_upstream_1"));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-one-read-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [{ id: "one", protocol: "openai-responses", base_url: url, api_key: "k" }],
      models: [fakeModel("one/gpt", ["one"], { upstream: "gpt-x" })],
    }),
    { dir },
  );
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  upstream?.close();
});

test("a stored stream whose last text and end came in one read is stored", async () => {
  const final = await client.responses.stream({ model: "one/gpt", input: "Hello" }).finalResponse();
  assert.equal(final.output_text, "Hi there");
  const retrieved = await client.responses.retrieve(final.id);
  assert.equal(retrieved.status, "completed");
  assert.equal(retrieved.output_text, "Hi there");
});

test("a streamed background run whose last text and end came in one read ends completed", async () => {
  const stream = await client.responses.create({
    model: "one/gpt",
    input: "Hello",
    background: true,
    stream: true,
  });
  let id = "";
  for await (const event of stream) if (event.type === "response.created") id = event.response.id;
  let status = "";
  for (let i = 0; i < 50 && status !== "completed"; i++) {
    status = (await client.responses.retrieve(id)).status ?? "";
    if (status !== "completed") await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(status, "completed");
});

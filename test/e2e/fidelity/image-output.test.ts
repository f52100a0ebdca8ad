// Issue 12 item 5: images a Gemini upstream generates (`inlineData` parts) reach clients of every
// protocol in that protocol's image shape, streamed and not: chat `message.images` / `delta.images`
// (data URLs), a messages `image` block with a base64 source, a Responses `image_generation_call`.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { Reply } from "../../fakes/reply.ts";
import { type Matrix, MODEL, startMatrix } from "../matrix/harness.ts";
import { anthropicClient, openaiClient } from "./support.ts";

let mx: Matrix;
before(async () => {
  mx = await startMatrix();
});
after(() => mx?.close());
beforeEach(() => mx.reset());

const PNG = Buffer.from("\x89PNG fake image bytes").toString("base64");
const REPLY: Reply = {
  blocks: [
    { type: "text", text: "Here is your cat." },
    { type: "image", mediaType: "image/png", data: PNG },
  ],
};
const DATA_URL = `data:image/png;base64,${PNG}`;

const openai = () => openaiClient(mx.gw);
const anthropic = () => anthropicClient(mx.gw);

describe("generated images reach every client protocol (issue 12 item 5)", () => {
  test("chat client: message.images holds the image as a data URL", async () => {
    mx.fakes.gemini.script(REPLY);
    const res = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "draw a cat" }],
    });
    const message = res.choices[0].message as unknown as { content: string; images?: unknown[] };
    assert.equal(message.content, "Here is your cat.");
    assert.deepEqual(message.images, [{ type: "image_url", image_url: { url: DATA_URL } }]);
  });

  test("chat client, streamed: delta.images", async () => {
    mx.fakes.gemini.script(REPLY);
    const stream = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "draw a cat" }],
      stream: true,
    });
    const images: unknown[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { images?: unknown[] } | undefined;
      images.push(...(delta?.images ?? []));
    }
    assert.deepEqual(images, [{ type: "image_url", image_url: { url: DATA_URL } }]);
  });

  test("messages client: an image block with a base64 source", async () => {
    mx.fakes.gemini.script(REPLY);
    const msg = await anthropic().messages.create({
      model: MODEL.gemini,
      max_tokens: 1000,
      messages: [{ role: "user", content: "draw a cat" }],
    });
    assert.deepEqual(msg.content.slice(1), [
      { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
    ]);
  });

  test("messages client, streamed: the image block arrives whole", async () => {
    mx.fakes.gemini.script(REPLY);
    const msg = await anthropic()
      .messages.stream({
        model: MODEL.gemini,
        max_tokens: 1000,
        messages: [{ role: "user", content: "cat" }],
      })
      .finalMessage();
    assert.equal(msg.content[0].type, "text");
    assert.deepEqual(msg.content[1], {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG },
    });
  });

  test("Responses client: an image_generation_call item whose result is the image", async () => {
    mx.fakes.gemini.script(REPLY);
    const res = await openai().responses.create({ model: MODEL.gemini, input: "draw a cat" });
    const image = res.output.find((item) => item.type === "image_generation_call");
    assert.equal(image?.type === "image_generation_call" && image.result, PNG);
    assert.equal(res.output_text, "Here is your cat.");
  });

  test("Responses client, streamed: the item in output_item.done and in the final response", async () => {
    mx.fakes.gemini.script(REPLY);
    const stream = await openai().responses.create({ model: MODEL.gemini, input: "cat", stream: true });
    let done: unknown;
    let final: unknown;
    for await (const event of stream) {
      if (event.type === "response.output_item.done" && event.item.type === "image_generation_call")
        done = event.item.result;
      if (event.type === "response.completed")
        final = event.response.output.find((item) => item.type === "image_generation_call");
    }
    assert.equal(done, PNG);
    assert.equal((final as { result?: string } | undefined)?.result, PNG);
  });
});

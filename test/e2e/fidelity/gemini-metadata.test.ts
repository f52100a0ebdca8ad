// Issue 12 item 4: what a Gemini answer says beside its text reaches clients of other protocols in
// their own fields, and content-generation clients get it from other upstreams: grounding sources
// as chat `annotations` (url_citation), messages text `citations` (web_search_result_location) and
// Responses `output_text.annotations`; a finishMessage on a withheld answer as the chat `refusal` and
// the messages `stop_details` explanation; cited pages from messages or chat upstreams as
// `groundingMetadata` for a Gemini client.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { Reply } from "../../fakes/reply.ts";
import { type Matrix, MODEL, startMatrix } from "../matrix/harness.ts";
import { anthropicClient, geminiClient, openaiClient } from "./support.ts";

let mx: Matrix;
before(async () => {
  mx = await startMatrix();
});
after(() => mx?.close());
beforeEach(() => mx.reset());

const TEXT = "Paris: it is sunny today, 21 °C. Rain tomorrow.";
const SEARCH = {
  queries: ["paris weather"],
  results: [
    { url: "https://weather.example/paris", title: "Paris weather", cited: "it is sunny today, 21 °C" },
    { url: "https://news.example/rain", title: "Rain ahead", cited: "Rain tomorrow." },
  ],
};
const GROUNDED: Reply = { blocks: [{ type: "text", text: TEXT }], search: SEARCH };
const span = (cited: string) => ({
  start_index: TEXT.indexOf(cited),
  end_index: TEXT.indexOf(cited) + cited.length,
});
const URL_CITATIONS = SEARCH.results.map((r) => ({ url: r.url, title: r.title, ...span(r.cited) }));
const PAGE_CITATIONS = SEARCH.results.map((r) => ({
  type: "web_search_result_location",
  url: r.url,
  title: r.title,
  cited_text: r.cited,
}));

const openai = () => openaiClient(mx.gw);
const anthropic = () => anthropicClient(mx.gw);
const gemini = () => geminiClient(mx.gw);

/** A citation without its opaque index (empty: the page came from another vendor). */
function withoutIndex(citations: unknown[] | null | undefined) {
  return (citations ?? []).map((c) => {
    const { encrypted_index: _, ...rest } = c as Record<string, unknown>;
    return rest;
  });
}

describe("Gemini grounding reaches other clients (issue 12 item 4)", () => {
  test("chat client: message.annotations, url_citation with offsets into the content", async () => {
    mx.fakes.gemini.script(GROUNDED);
    const res = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "weather?" }],
    });
    const message = res.choices[0].message;
    assert.equal(message.content, TEXT);
    assert.deepEqual(
      message.annotations,
      URL_CITATIONS.map((c) => ({ type: "url_citation", url_citation: c })),
    );
  });

  test("chat client, streamed: annotations in a delta after the text", async () => {
    mx.fakes.gemini.script(GROUNDED);
    const stream = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "weather?" }],
      stream: true,
    });
    const annotations: unknown[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { annotations?: unknown[] } | undefined;
      annotations.push(...(delta?.annotations ?? []));
    }
    assert.deepEqual(
      annotations,
      URL_CITATIONS.map((c) => ({ type: "url_citation", url_citation: c })),
    );
  });

  test("messages client: the text block's citations, streamed and not", async () => {
    mx.fakes.gemini.script(GROUNDED, GROUNDED);
    const whole = await anthropic().messages.create({
      model: MODEL.gemini,
      max_tokens: 500,
      messages: [{ role: "user", content: "weather?" }],
    });
    const streamed = await anthropic()
      .messages.stream({
        model: MODEL.gemini,
        max_tokens: 500,
        messages: [{ role: "user", content: "weather?" }],
      })
      .finalMessage();
    for (const msg of [whole, streamed]) {
      const block = msg.content[0];
      assert.ok(block.type === "text");
      assert.equal(block.text, TEXT);
      assert.deepEqual(withoutIndex(block.citations), PAGE_CITATIONS);
    }
  });

  test("Responses client: output_text.annotations, streamed and not", async () => {
    mx.fakes.gemini.script(GROUNDED, GROUNDED);
    const whole = await openai().responses.create({ model: MODEL.gemini, input: "weather?" });
    const message = whole.output.find((item) => item.type === "message");
    const part = message?.type === "message" ? message.content[0] : undefined;
    const expected = URL_CITATIONS.map((c) => ({ type: "url_citation", ...c }));
    assert.deepEqual(part?.type === "output_text" && part.annotations, expected);
    const stream = await openai().responses.create({ model: MODEL.gemini, input: "weather?", stream: true });
    const added: unknown[] = [];
    for await (const event of stream)
      if (event.type === "response.output_text.annotation.added") added.push(event.annotation);
    assert.deepEqual(added, expected);
  });

  test("a withheld answer's finishMessage: chat refusal, messages stop_details", async () => {
    const blocked: Reply = {
      blocks: [],
      finish: "content_filter",
      finishMessage: "Blocked: dangerous content.",
    };
    mx.fakes.gemini.script(blocked, blocked);
    const chat = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "x" }],
    });
    assert.equal(chat.choices[0].finish_reason, "content_filter");
    assert.equal(chat.choices[0].message.refusal, "Blocked: dangerous content.");
    const msg = await anthropic().messages.create({
      model: MODEL.gemini,
      max_tokens: 100,
      messages: [{ role: "user", content: "x" }],
    });
    assert.equal(msg.stop_reason, "refusal");
    assert.deepEqual(msg.stop_details, {
      type: "refusal",
      category: null,
      explanation: "Blocked: dangerous content.",
    });
  });

  test("a withheld answer's finishMessage, streamed: a refusal delta, a message_delta's stop_details", async () => {
    const blocked: Reply = { blocks: [], finish: "content_filter", finishMessage: "Blocked." };
    mx.fakes.gemini.script(blocked, blocked);
    const stream = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "x" }],
      stream: true,
    });
    let refusal = "";
    for await (const chunk of stream) refusal += chunk.choices[0]?.delta?.refusal ?? "";
    assert.equal(refusal, "Blocked.");
    const msg = await anthropic()
      .messages.stream({ model: MODEL.gemini, max_tokens: 100, messages: [{ role: "user", content: "x" }] })
      .finalMessage();
    assert.deepEqual(msg.stop_details, { type: "refusal", category: null, explanation: "Blocked." });
  });
});

describe("content-generation clients get the sources of other upstreams (issue 12 item 4)", () => {
  /** groundingMetadata as the Gemini client must see it for TEXT and SEARCH's two pages. */
  function expectedGrounding() {
    return {
      groundingChunks: SEARCH.results.map((r) => ({ web: { uri: r.url, title: r.title } })),
      groundingSupports: SEARCH.results.map((r, i) => {
        const startIndex = Buffer.byteLength(TEXT.slice(0, TEXT.indexOf(r.cited)));
        return {
          segment: { startIndex, endIndex: startIndex + Buffer.byteLength(r.cited), text: r.cited },
          groundingChunkIndices: [i],
        };
      }),
    };
  }

  test("messages upstream's citations → groundingMetadata (byte offsets), streamed and not", async () => {
    mx.fakes.anthropic.script(GROUNDED, GROUNDED);
    const whole = await gemini().models.generateContent({ model: MODEL.anthropic, contents: "weather?" });
    assert.deepEqual(pick(whole.candidates?.[0]?.groundingMetadata), expectedGrounding());
    let streamed: unknown;
    for await (const chunk of await gemini().models.generateContentStream({
      model: MODEL.anthropic,
      contents: "weather?",
    }))
      streamed = chunk.candidates?.[0]?.groundingMetadata ?? streamed;
    assert.deepEqual(pick(streamed), expectedGrounding());
  });

  test("chat upstream's url_citation annotations → groundingMetadata, streamed and not", async () => {
    mx.fakes.openai.script(GROUNDED, GROUNDED);
    const whole = await gemini().models.generateContent({ model: MODEL.openai, contents: "weather?" });
    assert.deepEqual(pick(whole.candidates?.[0]?.groundingMetadata), expectedGrounding());
    let streamed: unknown;
    for await (const chunk of await gemini().models.generateContentStream({
      model: MODEL.openai,
      contents: "weather?",
    }))
      streamed = chunk.candidates?.[0]?.groundingMetadata ?? streamed;
    assert.deepEqual(pick(streamed), expectedGrounding());
  });
});

/** The sources part of groundingMetadata (queries are item 2's). */
function pick(grounding: unknown) {
  const g = (grounding ?? {}) as Record<string, unknown>;
  return { groundingChunks: g.groundingChunks, groundingSupports: g.groundingSupports };
}

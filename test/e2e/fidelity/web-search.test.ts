// Issue 12 item 2: a client's web search reaches any upstream that has search, mapped onto that
// upstream's own tool (chat `web_search_options`, messages `web_search_20250305`, Gemini
// `googleSearch`, Responses `web_search`); what a target's tool cannot limit is named in
// x-switchyard-ignored; the searches come back as the client's protocol shows them (messages
// server_tool_use + web_search_tool_result blocks, Gemini groundingMetadata.webSearchQueries,
// Responses web_search_call items) and are counted in usage.

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

const TEXT = "It is sunny in Paris today.";
const SEARCH = {
  queries: ["paris weather", "paris forecast"],
  results: [{ url: "https://weather.example/paris", title: "Paris weather", cited: "sunny in Paris" }],
};
const SEARCHED: Reply = { blocks: [{ type: "text", text: TEXT }], search: SEARCH };
const LOCATION = { city: "Paris", country: "FR", timezone: "Europe/Paris" };

const openai = () => openaiClient(mx.gw);
const anthropic = () => anthropicClient(mx.gw);
const gemini = () => geminiClient(mx.gw);

const SEARCH_TOOL = {
  type: "web_search_20250305" as const,
  name: "web_search" as const,
  max_uses: 3,
  allowed_domains: ["weather.example"],
  user_location: { type: "approximate" as const, ...LOCATION },
};

describe("web search crosses protocols (issue 12 item 2)", () => {
  test("chat relay: web_search_options reaches the chat upstream, not named as ignored", async () => {
    mx.fakes.openai.script(SEARCHED);
    const options = {
      search_context_size: "high" as const,
      user_location: { type: "approximate" as const, approximate: LOCATION },
    };
    const { data, response } = await openai()
      .chat.completions.create({
        model: MODEL.openai,
        messages: [{ role: "user", content: "weather?" }],
        web_search_options: options,
      })
      .withResponse();
    assert.deepEqual(mx.fakes.openai.requests[0].body.web_search_options, options);
    assert.doesNotMatch(response.headers.get("x-switchyard-ignored") ?? "", /web_search/);
    assert.equal(data.choices[0].message.annotations?.[0]?.url_citation.url, SEARCH.results[0].url);
  });

  test("messages client → Gemini upstream: googleSearch; the searches as server tool blocks", async () => {
    mx.fakes.gemini.script(SEARCHED);
    const { data: msg, response } = await anthropic()
      .messages.create({
        model: MODEL.gemini,
        max_tokens: 500,
        tools: [SEARCH_TOOL],
        messages: [{ role: "user", content: "weather?" }],
      })
      .withResponse();
    assert.deepEqual(mx.fakes.gemini.requests[0].body.tools, [{ googleSearch: {} }]);
    // Google Search takes none of the tool's limits: each is named.
    assert.equal(
      response.headers.get("x-switchyard-ignored"),
      "web_search.max_uses, web_search.allowed_domains, web_search.user_location",
    );
    const types = msg.content.map((b) => b.type);
    assert.deepEqual(types, [
      "text",
      "server_tool_use",
      "web_search_tool_result",
      "server_tool_use",
      "web_search_tool_result",
    ]);
    const calls = msg.content.flatMap((b) => (b.type === "server_tool_use" ? [b] : []));
    assert.deepEqual(
      calls.map((c) => [c.name, c.input]),
      SEARCH.queries.map((query) => ["web_search", { query }]),
    );
    const results = msg.content.flatMap((b) => (b.type === "web_search_tool_result" ? [b] : []));
    assert.equal(results[0].tool_use_id, calls[0].id);
    assert.deepEqual(
      (results[0].content as Array<{ url: string; title: string }>).map((r) => [r.url, r.title]),
      [[SEARCH.results[0].url, SEARCH.results[0].title]],
    );
    assert.equal(msg.usage.server_tool_use?.web_search_requests, 2);
  });

  test("messages client → Gemini upstream, streamed: the same blocks", async () => {
    mx.fakes.gemini.script(SEARCHED);
    const msg = await anthropic()
      .messages.stream({
        model: MODEL.gemini,
        max_tokens: 500,
        tools: [SEARCH_TOOL],
        messages: [{ role: "user", content: "weather?" }],
      })
      .finalMessage();
    const calls = msg.content.flatMap((b) => (b.type === "server_tool_use" ? [b] : []));
    assert.deepEqual(
      calls.map((c) => c.input),
      SEARCH.queries.map((query) => ({ query })),
    );
    assert.equal(msg.content.filter((b) => b.type === "web_search_tool_result").length, 2);
  });

  test("Gemini client → messages upstream: the web search tool; queries in groundingMetadata", async () => {
    mx.fakes.anthropic.script(SEARCHED, SEARCHED);
    const config = { tools: [{ googleSearch: {} }] };
    const res = await gemini().models.generateContent({
      model: MODEL.anthropic,
      contents: "weather?",
      config,
    });
    assert.deepEqual(mx.fakes.anthropic.requests[0].body.tools, [
      { type: "web_search_20250305", name: "web_search" },
    ]);
    assert.deepEqual(res.candidates?.[0]?.groundingMetadata?.webSearchQueries, SEARCH.queries);
    let queries: unknown;
    for await (const chunk of await gemini().models.generateContentStream({
      model: MODEL.anthropic,
      contents: "weather?",
      config,
    }))
      queries = chunk.candidates?.[0]?.groundingMetadata?.webSearchQueries ?? queries;
    assert.deepEqual(queries, SEARCH.queries);
  });

  test("chat client → messages upstream: the location crosses, the context size is named", async () => {
    mx.fakes.anthropic.script(SEARCHED);
    const { data, response } = await openai()
      .chat.completions.create({
        model: MODEL.anthropic,
        messages: [{ role: "user", content: "weather?" }],
        web_search_options: {
          search_context_size: "low",
          user_location: { type: "approximate", approximate: LOCATION },
        },
      })
      .withResponse();
    assert.deepEqual(mx.fakes.anthropic.requests[0].body.tools, [
      {
        type: "web_search_20250305",
        name: "web_search",
        user_location: { type: "approximate", ...LOCATION },
      },
    ]);
    assert.equal(response.headers.get("x-switchyard-ignored"), "web_search.search_context_size");
    const start = TEXT.indexOf("sunny in Paris");
    assert.deepEqual(data.choices[0].message.annotations, [
      {
        type: "url_citation",
        url_citation: {
          url: SEARCH.results[0].url,
          title: SEARCH.results[0].title,
          start_index: start,
          end_index: start + 14,
        },
      },
    ]);
  });

  test("Responses client → Gemini upstream: web_search_call items, streamed and not", async () => {
    mx.fakes.gemini.script(SEARCHED, SEARCHED);
    const tools = [{ type: "web_search" as const, search_context_size: "medium" as const }];
    const res = await openai().responses.create({ model: MODEL.gemini, input: "weather?", tools });
    assert.deepEqual(mx.fakes.gemini.requests[0].body.tools, [{ googleSearch: {} }]);
    const calls = res.output.flatMap((item) => (item.type === "web_search_call" ? [item] : []));
    assert.deepEqual(
      calls.map((c) => c.action.type === "search" && c.action.query),
      SEARCH.queries,
    );
    const stream = await openai().responses.create({
      model: MODEL.gemini,
      input: "weather?",
      tools,
      stream: true,
    });
    const done: string[] = [];
    for await (const event of stream)
      if (event.type === "response.output_item.done" && event.item.type === "web_search_call")
        done.push(event.item.action.type === "search" ? (event.item.action.query ?? "") : "");
    assert.deepEqual(done, SEARCH.queries);
  });

  test("a local model cannot search: answered, and web_search named in x-switchyard-ignored", async () => {
    const { response } = await anthropic()
      .messages.create({
        model: "local/echo-1",
        max_tokens: 100,
        tools: [{ type: "web_search_20250305", name: "web_search" }],
        messages: [{ role: "user", content: "weather?" }],
      })
      .withResponse();
    assert.equal(response.headers.get("x-switchyard-ignored"), "web_search");
  });

  test("Gemini client → Responses upstream: the hosted web_search tool; its calls as queries", async () => {
    mx.fakes["openai-responses"].script(SEARCHED);
    const res = await gemini().models.generateContent({
      model: MODEL["openai-responses"],
      contents: "weather?",
      config: { tools: [{ googleSearch: {} }] },
    });
    const sent = mx.fakes["openai-responses"].requests[0].body.tools;
    assert.deepEqual(sent, [{ type: "web_search" }]);
    assert.deepEqual(res.candidates?.[0]?.groundingMetadata?.webSearchQueries, SEARCH.queries);
  });
});

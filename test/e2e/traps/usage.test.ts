// Known traps (docs/architecture.md §10), usage and money, at the gateway level: the usage numbers each
// client sees, and the record the lookup returns for the same generation (the rating arithmetic itself is
// tested with the billing).
//
//   BerriAI/litellm#9812      cache-creation tokens counted twice
//   BerriAI/litellm#11789     cache reads counted as plain input only when streaming
//   maximhq/bifrost#904       OpenAI cached tokens counted at the full input rate
//   Portkey-AI/gateway#1210   chat `prompt_tokens` left out cache tokens while `total_tokens` had them
//   QuantumNous/new-api#4129  a cut-off stream's fallback usage overwrote the real one, zeroing cache fields
//   QuantumNous/new-api#7472  usage arriving on the finish chunk lost its cache reads
//   QuantumNous/new-api#6144  the billing path rebuilt usage differently from the response path
//   BerriAI/litellm#8349      streams had no usage unless the client set stream_options
//   Portkey-AI/gateway#1579   cache_control stripped on the way to another deployment
//   BerriAI/litellm#9807, #11017, PR #10597  Gemini's >200k prompt tier missing or applied to input only
//   QuantumNous/new-api PR #6821  after OpenAI→Anthropic conversion input_tokens included cache tokens
//
// Expected numbers come from the fakes' documented semantics (test/fakes/reply.ts), never from src/.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { FakeUpstream, Reply, ReplyUsage } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";
import {
  anthropicClient,
  type Face,
  headersFor,
  jsonFrames,
  lookupFinal,
  onlyRequest,
  openaiClient,
  pathFor,
  post,
  postStream,
  type Routes,
  startRoutes,
  TIERED,
} from "./routes.ts";

let routes: Routes;
before(async () => {
  routes = await startRoutes();
});
after(() => routes?.close());
beforeEach(() => routes.reset());

/** Disjoint buckets, as the fakes take them. */
type Buckets = Required<ReplyUsage>;

function buckets(u: ReplyUsage): Buckets {
  return {
    input: u.input ?? 0,
    output: u.output ?? 0,
    cacheRead: u.cacheRead ?? 0,
    cacheWrite5m: u.cacheWrite5m ?? 0,
    cacheWrite1h: u.cacheWrite1h ?? 0,
    reasoning: u.reasoning ?? 0,
  };
}

const prompt = (u: Buckets) => u.input + u.cacheRead + u.cacheWrite5m + u.cacheWrite1h;
const writes = (u: Buckets) => u.cacheWrite5m + u.cacheWrite1h;
const completion = (u: Buckets) => u.output + u.reasoning;

/** What a chat client must read: prompt_tokens counts every input token, cached ones included. */
function chatUsage(u: Buckets) {
  const details: Record<string, number> = { cached_tokens: u.cacheRead };
  if (writes(u) > 0) details.cache_write_tokens = writes(u);
  return {
    prompt_tokens: prompt(u),
    completion_tokens: completion(u),
    total_tokens: prompt(u) + completion(u),
    prompt_tokens_details: details,
    reasoning_tokens: u.reasoning,
  };
}

function readChatUsage(raw: any) {
  return {
    prompt_tokens: raw.prompt_tokens,
    completion_tokens: raw.completion_tokens,
    total_tokens: raw.total_tokens,
    prompt_tokens_details: {
      cached_tokens: raw.prompt_tokens_details?.cached_tokens,
      ...(raw.prompt_tokens_details?.cache_write_tokens !== undefined && {
        cache_write_tokens: raw.prompt_tokens_details.cache_write_tokens,
      }),
    },
    reasoning_tokens: raw.completion_tokens_details?.reasoning_tokens ?? 0,
  };
}

/** What a messages client must read: input_tokens is only what was neither read from nor written to the cache. */
function messagesUsage(u: Buckets) {
  return {
    input_tokens: u.input,
    cache_read_input_tokens: u.cacheRead,
    cache_creation_input_tokens: writes(u),
    output_tokens: completion(u),
  };
}

function readMessagesUsage(raw: any) {
  return {
    input_tokens: raw.input_tokens,
    cache_read_input_tokens: raw.cache_read_input_tokens,
    cache_creation_input_tokens: raw.cache_creation_input_tokens,
    output_tokens: raw.output_tokens,
  };
}

/** What a content-generation client must read: promptTokenCount includes cached content; thoughts sit outside candidates. */
function geminiUsage(u: Buckets) {
  return {
    promptTokenCount: prompt(u),
    cachedContentTokenCount: u.cacheRead || undefined,
    candidatesTokenCount: u.output,
    thoughtsTokenCount: u.reasoning || undefined,
    totalTokenCount: prompt(u) + completion(u),
  };
}

function readGeminiUsage(raw: any) {
  return {
    promptTokenCount: raw.promptTokenCount,
    cachedContentTokenCount: raw.cachedContentTokenCount,
    candidatesTokenCount: raw.candidatesTokenCount,
    thoughtsTokenCount: raw.thoughtsTokenCount,
    totalTokenCount: raw.totalTokenCount,
  };
}

/** The lookup's token counts, in the chat semantics the record uses. */
function recordTokens(u: Buckets) {
  return {
    prompt_tokens: prompt(u),
    completion_tokens: completion(u),
    total_tokens: prompt(u) + completion(u),
    completion_tokens_details: { reasoning_tokens: u.reasoning },
    prompt_tokens_details: { cached_tokens: u.cacheRead },
  };
}

function body(face: Face, model: string, stream: boolean, extra: Record<string, unknown> = {}): unknown {
  const ask = "Summarise the cached document.";
  if (face === "chat") return { model, stream, messages: [{ role: "user", content: ask }], ...extra };
  if (face === "messages")
    return { model, stream, max_tokens: 1024, messages: [{ role: "user", content: ask }], ...extra };
  return { contents: [{ role: "user", parts: [{ text: ask }] }], ...extra };
}

/** One call through a face; returns the usage as the client reads it and the generation id. */
async function call(face: Face, model: string, stream: boolean, fake: FakeUpstream, reply: Reply) {
  fake.script(reply);
  const extra = face === "chat" && stream ? { stream_options: { include_usage: true } } : {};
  const path = pathFor(face, model, stream);
  if (!stream) {
    const res = await post(routes.gw, path, body(face, model, false, extra), headersFor(face));
    assert.equal(res.status, 200, res.text);
    const usage =
      face === "chat" ? res.json.usage : face === "messages" ? res.json.usage : res.json.usageMetadata;
    return { usage, id: res.headers.get("x-generation-id")!, raw: res.json };
  }
  const res = await postStream(routes.gw, path, body(face, model, true, extra), headersFor(face));
  assert.equal(res.status, 200);
  const chunks = jsonFrames(res.frames);
  let usage: any;
  if (face === "chat") usage = chunks.findLast((c) => c.usage)?.usage;
  else if (face === "gemini") usage = chunks.findLast((c) => c.usageMetadata)?.usageMetadata;
  else {
    // As the messages SDK assembles it: message_start's usage, then message_delta's values over it.
    usage = { ...chunks.find((c) => c.type === "message_start").message.usage };
    for (const [k, v] of Object.entries(chunks.find((c) => c.type === "message_delta").usage))
      if (v !== null && v !== undefined) usage[k] = v;
  }
  return { usage, id: res.headers.get("x-generation-id")!, raw: chunks };
}

function readAs(face: Face, raw: any) {
  return face === "chat"
    ? readChatUsage(raw)
    : face === "messages"
      ? readMessagesUsage(raw)
      : readGeminiUsage(raw);
}

function expectedAs(face: Face, u: Buckets) {
  return face === "chat" ? chatUsage(u) : face === "messages" ? messagesUsage(u) : geminiUsage(u);
}

const FACES: Face[] = ["chat", "messages", "gemini"];

describe("cache writes once, cache reads as cache reads, streamed or not (litellm#9812, litellm#11789, bifrost#904, new-api#6144)", () => {
  const anthropicCache = buckets({
    input: 100,
    cacheRead: 300,
    cacheWrite5m: 50,
    cacheWrite1h: 20,
    output: 10,
  });
  const openaiCache = buckets({ input: 120, cacheRead: 880, output: 40, reasoning: 25 });

  for (const face of FACES) {
    test(`${face} client ← Anthropic upstream with cache reads and writes: same numbers whole and streamed, and in the record`, async () => {
      for (const stream of [false, true]) {
        const { usage, id } = await call(face, "fa/claude", stream, routes.anthropic, {
          blocks: [{ type: "text", text: "Summary." }],
          usage: anthropicCache,
        });
        assert.deepEqual(readAs(face, usage), expectedAs(face, anthropicCache), `${face}, stream ${stream}`);
        const record = await lookupFinal(routes.gw, id);
        assert.deepEqual(record.nativeTokens, recordTokens(anthropicCache), `record, stream ${stream}`);
      }
    });

    test(`${face} client ← OpenAI upstream with cached tokens and reasoning: cached counted as cached, streamed or not`, async () => {
      for (const stream of [false, true]) {
        const { usage, id } = await call(face, "fo/gpt", stream, routes.openai, {
          blocks: [{ type: "text", text: "Summary." }],
          usage: openaiCache,
        });
        assert.deepEqual(readAs(face, usage), expectedAs(face, openaiCache), `${face}, stream ${stream}`);
        const record = await lookupFinal(routes.gw, id);
        assert.deepEqual(record.nativeTokens, recordTokens(openaiCache));
      }
    });
  }

  test("a messages client behind a messages upstream keeps the 5-minute / 1-hour split", async () => {
    const { usage } = await call("messages", "fa/claude", false, routes.anthropic, {
      blocks: [{ type: "text", text: "Summary." }],
      usage: anthropicCache,
    });
    assert.deepEqual(usage.cache_creation, { ephemeral_5m_input_tokens: 50, ephemeral_1h_input_tokens: 20 });
  });
});

describe("chat prompt_tokens includes cached tokens (portkey#1210)", () => {
  for (const [model, fake, u] of [
    [
      "fa/claude",
      () => routes.anthropic,
      buckets({ input: 7, cacheRead: 2048, cacheWrite5m: 512, output: 9 }),
    ],
    ["fg/flash", () => routes.gemini, buckets({ input: 7, cacheRead: 2048, output: 9, reasoning: 30 })],
  ] as const) {
    test(`chat client ← ${model}: prompt_tokens = every input token, total = prompt + completion`, async () => {
      fake().script({ blocks: [{ type: "text", text: "ok" }], usage: u });
      const res = await openaiClient(routes.gw).chat.completions.create({
        model,
        messages: [{ role: "user", content: "hi" }],
      });
      const usage = res.usage!;
      assert.equal(usage.prompt_tokens, prompt(u));
      assert.equal(usage.prompt_tokens_details?.cached_tokens, u.cacheRead);
      assert.ok(usage.prompt_tokens >= (usage.prompt_tokens_details?.cached_tokens ?? 0));
      assert.equal(usage.completion_tokens, completion(u));
      assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens);
    });
  }
});

describe("input_tokens excludes cache tokens after translation to the messages protocol (new-api PR #6821)", () => {
  for (const [model, fake, u] of [
    ["fo/gpt", () => routes.openai, buckets({ input: 201, cacheRead: 15104, cacheWrite5m: 64, output: 5 })],
    ["fg/flash", () => routes.gemini, buckets({ input: 201, cacheRead: 15104, output: 5 })],
  ] as const) {
    test(`messages SDK ← ${model}: input + cache_read + cache_creation = the whole prompt, whole and streamed`, async () => {
      const reply: Reply = { blocks: [{ type: "text", text: "ok" }], usage: u };
      fake().script(reply, reply);
      const client = anthropicClient(routes.gw);
      const request = { model, max_tokens: 100, messages: [{ role: "user" as const, content: "hi" }] };
      const whole = await client.messages.create(request);
      const streamed = await client.messages.stream(request).finalMessage();
      for (const message of [whole, streamed]) {
        assert.deepEqual(readMessagesUsage(message.usage), messagesUsage(u));
        const total =
          message.usage.input_tokens +
          (message.usage.cache_read_input_tokens ?? 0) +
          (message.usage.cache_creation_input_tokens ?? 0);
        assert.equal(total, prompt(u), "the client's sum is the real prompt size, not about twice it");
      }
    });
  }
});

describe("one usage object for the response and the record, however it arrives (new-api#4129, #7472, #6144)", () => {
  const cached = buckets({ input: 100, cacheRead: 300, cacheWrite5m: 50, output: 10 });

  for (const face of ["chat", "messages"] as const) {
    test(`a stream cut off before its last events keeps the cache counts it reported (${face} client ← Anthropic)`, async () => {
      routes.anthropic.script({
        blocks: [{ type: "text", text: "A longer answer that never finishes." }],
        usage: cached,
        fault: "truncated-sse",
      });
      const res = await postStream(
        routes.gw,
        pathFor(face, "fa/claude", true),
        body(face, "fa/claude", true, face === "chat" ? { stream_options: { include_usage: true } } : {}),
        headersFor(face),
      );
      const record = await lookupFinal(routes.gw, res.headers.get("x-generation-id")!);
      assert.equal(record.status, "failed", "the cut is not a success");
      // message_start reported the input and cache counts; a fallback must not zero them.
      assert.equal(record.nativeTokens.prompt_tokens, prompt(cached));
      assert.equal(record.nativeTokens.prompt_tokens_details.cached_tokens, cached.cacheRead);
    });
  }

  for (const face of ["chat", "messages"] as const) {
    test(`usage on the finish chunk keeps its cache reads (${face} client ← Gemini, usageMetadata beside finishReason)`, async () => {
      const u = buckets({ input: 40, cacheRead: 960, output: 12, reasoning: 8 });
      const { usage, id, raw } = await call(face, "fg/flash", true, routes.gemini, {
        blocks: [{ type: "text", text: "Cached answer." }],
        usage: u,
      });
      assert.deepEqual(readAs(face, usage), expectedAs(face, u));
      assert.ok(Array.isArray(raw));
      const record = await lookupFinal(routes.gw, id);
      assert.deepEqual(record.nativeTokens, recordTokens(u));
    });
  }
});

describe("the gateway always asks upstream for streamed usage; the client sees it as it asked (litellm#8349)", () => {
  test("chat client → OpenAI upstream without stream_options: asked upstream, withheld from the client, recorded", async () => {
    routes.openai.script({ blocks: [{ type: "text", text: "ok" }], usage: { input: 33, output: 4 } });
    const res = await postStream(
      routes.gw,
      "/v1/chat/completions",
      body("chat", "fo/gpt", true),
      headersFor("chat"),
    );
    assert.deepEqual(onlyRequest(routes.openai).body.stream_options, { include_usage: true });
    const chunks = jsonFrames(res.frames);
    assert.ok(chunks.length > 0);
    assert.ok(!chunks.some((c) => c.usage), "the client did not ask for usage");
    assert.ok(!chunks.some((c) => Array.isArray(c.choices) && c.choices.length === 0));
    const record = await lookupFinal(routes.gw, res.headers.get("x-generation-id")!);
    assert.equal(record.nativeTokens.prompt_tokens, 33);
    assert.equal(record.nativeTokens.completion_tokens, 4);
  });

  test("chat client → OpenAI upstream with stream_options.include_usage: the usage chunk comes last, before [DONE]", async () => {
    routes.openai.script({ blocks: [{ type: "text", text: "ok" }], usage: { input: 33, output: 4 } });
    const res = await postStream(
      routes.gw,
      "/v1/chat/completions",
      body("chat", "fo/gpt", true, { stream_options: { include_usage: true } }),
      headersFor("chat"),
    );
    assert.equal(res.frames.at(-1)?.data, "[DONE]");
    const last = jsonFrames(res.frames).at(-1);
    assert.deepEqual(last.choices, []);
    assert.equal(last.usage.prompt_tokens, 33);
    assert.equal(last.usage.completion_tokens, 4);
  });

  for (const ask of [undefined, { usage: { include: true } }, { stream_options: { include_usage: true } }]) {
    test(`chat client → Anthropic upstream, client asked ${JSON.stringify(ask ?? "nothing")}`, async () => {
      routes.anthropic.script({ blocks: [{ type: "text", text: "ok" }], usage: { input: 21, output: 3 } });
      const res = await postStream(
        routes.gw,
        "/v1/chat/completions",
        body("chat", "fa/claude", true, ask),
        headersFor("chat"),
      );
      const withUsage = jsonFrames(res.frames).filter((c) => c.usage);
      if (ask) {
        assert.equal(withUsage.length, 1);
        assert.equal(withUsage[0].usage.prompt_tokens, 21);
        assert.equal(withUsage[0].usage.completion_tokens, 3);
      } else assert.equal(withUsage.length, 0);
      const record = await lookupFinal(routes.gw, res.headers.get("x-generation-id")!);
      assert.equal(record.nativeTokens.prompt_tokens, 21);
    });
  }

  test("messages client → OpenAI upstream: asked upstream, and message_delta carries the real counts", async () => {
    routes.openai.script({ blocks: [{ type: "text", text: "ok" }], usage: { input: 21, output: 3 } });
    const final = await anthropicClient(routes.gw)
      .messages.stream({ model: "fo/gpt", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    assert.deepEqual(onlyRequest(routes.openai).body.stream_options, { include_usage: true });
    assert.equal(final.usage.input_tokens, 21);
    assert.equal(final.usage.output_tokens, 3);
  });
});

describe("cache_control reaches an Anthropic upstream (portkey#1579)", () => {
  test("chat client parts marked cache_control (OpenRouter style) keep their markers, TTL included", async () => {
    const res = await post(
      routes.gw,
      "/v1/chat/completions",
      {
        model: "fa/claude",
        messages: [
          {
            role: "system",
            content: [
              {
                type: "text",
                text: "A long, stable system prompt.",
                cache_control: { type: "ephemeral", ttl: "1h" },
              },
            ],
          },
          {
            role: "user",
            content: [
              { type: "text", text: "A long document to cache.", cache_control: { type: "ephemeral" } },
              { type: "text", text: "Question about it." },
            ],
          },
        ],
      },
      headersFor("chat"),
    );
    assert.equal(res.status, 200, res.text);
    const sent = onlyRequest(routes.anthropic).body;
    assert.deepEqual(sent.system, [
      {
        type: "text",
        text: "A long, stable system prompt.",
        cache_control: { type: "ephemeral", ttl: "1h" },
      },
    ]);
    assert.deepEqual(sent.messages[0].content, [
      { type: "text", text: "A long document to cache.", cache_control: { type: "ephemeral" } },
      { type: "text", text: "Question about it." },
    ]);
  });

  test("a messages client's cache_control on tools, system and tool results goes on unchanged", async () => {
    const request = JSON.stringify({
      model: "fa/claude",
      max_tokens: 100,
      system: [{ type: "text", text: "Stable.", cache_control: { type: "ephemeral", ttl: "1h" } }],
      tools: [{ name: "t", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "t", input: {} }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: "big",
              cache_control: { type: "ephemeral" },
            },
          ],
        },
      ],
    });
    const res = await post(routes.gw, "/v1/messages", request, headersFor("messages"));
    assert.equal(res.status, 200, res.text);
    assert.equal(
      onlyRequest(routes.anthropic).rawBody,
      request.replace('"fa/claude"', '"claude-sonnet-4-5"'),
    );
  });
});

describe("Gemini's >200k prompt tier applies to every category of the request (litellm#9807, #11017, PR #10597)", () => {
  for (const [size, input, rates] of [
    ["250k-token", 250_000, TIERED.large],
    ["1k-token", 1_000, TIERED.small],
  ] as const) {
    test(`a ${size} prompt is priced at its tier for prompt and completion alike`, async () => {
      const u = buckets({ input, output: 1000 });
      routes.gemini.script({ blocks: [{ type: "text", text: "ok" }], usage: u });
      const res = await post(
        routes.gw,
        "/v1beta/models/fg/pro25:generateContent",
        body("gemini", "fg/pro25", false),
        headersFor("gemini"),
      );
      assert.equal(res.status, 200, res.text);
      assert.equal(
        res.json.usageMetadata.promptTokenCount,
        input,
        "the tier is chosen from the real prompt size",
      );
      const record = await lookupSettled(routes.gw.url, res.json.responseId, PAYG_KEY);
      assert.equal(record.nativeTokens.prompt_tokens, input);
      const rate = (code: string) =>
        record.ratingResponses.ratingDetails.find((d: any) => d.feeItemCode === code)?.rate;
      assert.equal(rate("prompt"), rates.prompt);
      assert.equal(rate("completion"), rates.completion);
    });
  }
});

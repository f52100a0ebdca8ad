// Token counting, as each SDK calls it, against the local models and behind each upstream protocol:
// the Anthropic SDK's messages.countTokens (POST /v1/messages/count_tokens), @google/genai's
// models.countTokens (POST /v1beta/models/{m}:countTokens, and under /v1/ for 3.x), and the openai
// SDK's responses.inputTokens.count (POST /v1/responses/input_tokens). A model behind an upstream
// with a counter of its own (Anthropic, Gemini, Responses) is counted there, the request translated
// to that counter; otherwise (the local models, chat-completions upstreams, a counter that fails) the
// gateway counts; `x-switchyard-token-count` says which. Counting is authenticated like inference,
// and neither billed nor recorded as a generation.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { GoogleGenAI as GoogleGenAI3 } from "@google/genai-3";
import OpenAI from "openai";
import { type FakeUpstream, fakeTokenCount, startFakeUpstream } from "../fakes/index.ts";
import { BROKE_KEY, baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
const fakes: Record<"anthropic" | "gemini" | "responses" | "chat", FakeUpstream> = {} as never;

before(async () => {
  [fakes.anthropic, fakes.gemini, fakes.responses, fakes.chat] = await Promise.all([
    startFakeUpstream("anthropic", { apiKey: "k-a" }),
    startFakeUpstream("gemini", { apiKey: "k-g" }),
    startFakeUpstream("openai-responses", { apiKey: "k-r" }),
    startFakeUpstream("openai", { apiKey: "k-o" }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-count-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        { id: "fa", protocol: "anthropic", base_url: fakes.anthropic.url, api_key: "k-a" },
        { id: "fg", protocol: "gemini", base_url: fakes.gemini.url, api_key: "k-g" },
        { id: "fr", protocol: "openai-responses", base_url: fakes.responses.url, api_key: "k-r" },
        { id: "fo", protocol: "openai", base_url: fakes.chat.url, api_key: "k-o" },
      ],
      models: [
        { id: "fa/claude", endpoints: [{ provider: "fa", model: "claude-sonnet-4-5" }] },
        { id: "fg/flash", endpoints: [{ provider: "fg", model: "gemini-2.5-flash" }] },
        { id: "fr/gpt", endpoints: [{ provider: "fr", model: "gpt-5" }] },
        { id: "fo/gpt", endpoints: [{ provider: "fo", model: "gpt-5-mini" }] },
      ],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((f) => f?.close()));
});
beforeEach(() => {
  for (const fake of Object.values(fakes)) fake.reset();
});

/** The one request a fake received since the test began. */
function only(fake: FakeUpstream) {
  assert.equal(fake.requests.length, 1, `requests to the ${fake.protocol} fake`);
  return fake.requests[0];
}

const anthropic = () => new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
const tools = [
  {
    name: "get_weather",
    description: "Weather for a city",
    input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] },
  },
];

describe("messages: POST /v1/messages/count_tokens", () => {
  test("a local model is counted by the gateway, as the local model counts its prompt", async () => {
    const body = {
      model: "local/echo-1",
      system: "You are terse.",
      tools,
      messages: [{ role: "user" as const, content: "How many tokens is this prompt, all told?" }],
    };
    const { data, response } = await anthropic().messages.countTokens(body).withResponse();
    assert.equal(response.headers.get("x-switchyard-token-count"), "local");
    assert.equal(response.headers.get("x-generation-id"), null, "not a generation");
    const answered = await anthropic().messages.create({ ...body, max_tokens: 20 });
    assert.equal(data.input_tokens, answered.usage.input_tokens);
    assert.deepEqual(Object.keys(data), ["input_tokens"]);
  });

  test("an Anthropic upstream is asked, with the body its counter takes", async () => {
    const { data, response } = await anthropic()
      .messages.countTokens({
        model: "fa/claude",
        system: "You are terse.",
        tools,
        thinking: { type: "enabled", budget_tokens: 2048 },
        messages: [{ role: "user", content: "Count me upstream" }],
      })
      .withResponse();
    const sent = only(fakes.anthropic);
    assert.equal(sent.pathname, "/v1/messages/count_tokens");
    assert.equal(sent.body.model, "claude-sonnet-4-5");
    assert.equal(sent.body.max_tokens, undefined);
    assert.equal(data.input_tokens, fakeTokenCount(sent));
    assert.equal(response.headers.get("x-switchyard-token-count"), "upstream");
    assert.equal(response.headers.get("x-switchyard-provider"), "fa");
  });

  test("a Gemini upstream is asked through its countTokens, system and tools included", async () => {
    const { data, response } = await anthropic()
      .messages.countTokens({
        model: "fg/flash",
        system: "You are terse.",
        tools,
        messages: [{ role: "user", content: "Count me on Gemini" }],
      })
      .withResponse();
    const sent = only(fakes.gemini);
    assert.equal(sent.pathname, "/v1beta/models/gemini-2.5-flash:countTokens");
    const inner = sent.body.generateContentRequest;
    assert.equal(inner.model, "models/gemini-2.5-flash");
    assert.equal(inner.systemInstruction.parts[0].text, "You are terse.");
    assert.equal(inner.tools[0].functionDeclarations[0].name, "get_weather");
    assert.equal(data.input_tokens, fakeTokenCount(sent));
    assert.equal(response.headers.get("x-switchyard-token-count"), "upstream");
  });

  test("a Responses upstream is asked through input_tokens", async () => {
    const { data } = await anthropic()
      .messages.countTokens({
        model: "fr/gpt",
        messages: [{ role: "user", content: "Count me on Responses" }],
      })
      .withResponse();
    const sent = only(fakes.responses);
    assert.equal(sent.pathname, "/v1/responses/input_tokens");
    assert.equal(sent.body.model, "gpt-5");
    assert.equal(data.input_tokens, fakeTokenCount(sent));
  });

  test("a chat-completions upstream has no counter: the gateway counts, and calls nobody", async () => {
    const { data, response } = await anthropic()
      .messages.countTokens({ model: "fo/gpt", messages: [{ role: "user", content: "Count me here" }] })
      .withResponse();
    assert.equal(fakes.chat.requests.length, 0);
    assert.ok(data.input_tokens > 0);
    assert.equal(response.headers.get("x-switchyard-token-count"), "local");
  });

  test("an upstream counter that fails is replaced by the gateway's count", async () => {
    fakes.anthropic.script({ status: 500 });
    const { data, response } = await anthropic()
      .messages.countTokens({ model: "fa/claude", messages: [{ role: "user", content: "Count me anyway" }] })
      .withResponse();
    assert.equal(fakes.anthropic.requests.length, 1);
    assert.ok(data.input_tokens > 0);
    assert.equal(response.headers.get("x-switchyard-token-count"), "local");
  });

  test("authenticated like inference: no key is an Anthropic 401; a broke account may still count", async () => {
    const err = await new Anthropic({
      apiKey: "sk-wrong-0000000000",
      baseURL: gw.url,
      maxRetries: 0,
    }).messages
      .countTokens({ model: "local/echo-1", messages: [{ role: "user", content: "x" }] })
      .then(
        () => assert.fail("counted"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof Anthropic.AuthenticationError, String(err));
    assert.equal((err.error as any).type, "error");
    const broke = new Anthropic({ apiKey: BROKE_KEY, baseURL: gw.url, maxRetries: 0 });
    const counted = await broke.messages.countTokens({
      model: "local/echo-1",
      messages: [{ role: "user", content: "free to ask" }],
    });
    assert.ok(counted.input_tokens > 0);
  });

  test("an unknown model is an Anthropic not_found_error; the header rules of messages apply", async () => {
    const err = await anthropic()
      .messages.countTokens({ model: "local/nope", messages: [{ role: "user", content: "x" }] })
      .then(
        () => assert.fail("counted"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof Anthropic.NotFoundError, String(err));
    const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
      method: "POST",
      headers: { "x-api-key": PAYG_KEY, "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "x" }] }),
    });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as any).error.message, /anthropic-version/);
  });
});

describe("content-generation: POST …/models/{m}:countTokens", () => {
  test("@google/genai counts on a local model what generateContent reports as its prompt", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const contents = "Count the tokens of this Gemini prompt";
    const counted = await ai.models.countTokens({ model: "local/echo-1", contents });
    const answered = await ai.models.generateContent({ model: "local/echo-1", contents });
    assert.equal(counted.totalTokens, answered.usageMetadata?.promptTokenCount);
  });

  test("@google/genai 3.x counts under /v1/", async () => {
    const ai = new GoogleGenAI3({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const counted = await ai.models.countTokens({ model: "local/echo-1", contents: "v1 count" });
    assert.ok((counted.totalTokens ?? 0) > 0);
  });

  test("a Gemini upstream is asked with the client's contents, its model named", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const counted = await ai.models.countTokens({ model: "fg/flash", contents: "Count me on Gemini" });
    const sent = only(fakes.gemini);
    assert.equal(sent.pathname, "/v1beta/models/gemini-2.5-flash:countTokens");
    assert.equal(counted.totalTokens, fakeTokenCount(sent));
  });

  test("an Anthropic upstream is asked, from a Gemini client", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const counted = await ai.models.countTokens({ model: "fa/claude", contents: "Count me on Anthropic" });
    const sent = only(fakes.anthropic);
    assert.equal(sent.body.messages[0].content[0].text, "Count me on Anthropic");
    assert.equal(counted.totalTokens, fakeTokenCount(sent));
  });

  test("a whole generateContentRequest is counted, system instruction included", async () => {
    const post = (body: unknown) =>
      fetch(`${gw.url}/v1beta/models/local/echo-1:countTokens`, {
        method: "POST",
        headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const contents = [{ role: "user", parts: [{ text: "hello there" }] }];
    const bare = (await (await post({ contents })).json()) as any;
    const whole = (await (
      await post({
        generateContentRequest: {
          model: "models/local/echo-1",
          contents,
          systemInstruction: { parts: [{ text: "A long system instruction that adds tokens" }] },
        },
      })
    ).json()) as any;
    assert.ok(whole.totalTokens > bare.totalTokens, JSON.stringify({ bare, whole }));
    const both = await post({ contents, generateContentRequest: { contents } });
    assert.equal(both.status, 400);
    assert.equal(((await both.json()) as any).error.status, "INVALID_ARGUMENT");
  });

  test("the listing offers countTokens", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const model = await ai.models.get({ model: "local/echo-1" });
    assert.ok(model.supportedActions?.includes("countTokens"), String(model.supportedActions));
  });
});

describe("Responses API: POST /v1/responses/input_tokens", () => {
  const openai = () => new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

  test("the openai SDK counts a local model's input like the local model does", async () => {
    const body = { model: "local/echo-1", instructions: "Be brief.", input: "Count this Responses input" };
    const counted = await openai().responses.inputTokens.count(body);
    assert.equal(counted.object, "response.input_tokens");
    const answered = await openai().responses.create(body);
    assert.equal(counted.input_tokens, answered.usage?.input_tokens);
  });

  test("a Responses upstream is asked, with only the parameters its counter takes", async () => {
    const counted = await openai().responses.inputTokens.count({
      model: "fr/gpt",
      input: "Count me upstream",
      reasoning: { effort: "low" },
    });
    const sent = only(fakes.responses);
    assert.equal(sent.body.model, "gpt-5");
    assert.equal(counted.input_tokens, fakeTokenCount(sent));
  });

  test("no key is an OpenAI 401", async () => {
    const err = await new OpenAI({
      apiKey: "sk-wrong-0000000000",
      baseURL: `${gw.url}/v1`,
      maxRetries: 0,
    }).responses.inputTokens
      .count({ model: "local/echo-1", input: "x" })
      .then(
        () => assert.fail("counted"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof OpenAI.AuthenticationError, String(err));
  });
});

describe("neither billed nor recorded", () => {
  test("counting leaves the generation counters and the balance as they were", async () => {
    const generations = async () => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      return text
        .split("\n")
        .filter((l) => l.startsWith("switchyard_generations_total"))
        .reduce((sum, l) => sum + Number(l.split(" ").at(-1)), 0);
    };
    const before = await generations();
    await anthropic().messages.countTokens({
      model: "local/echo-1",
      messages: [{ role: "user", content: "a" }],
    });
    await anthropic().messages.countTokens({
      model: "fa/claude",
      messages: [{ role: "user", content: "b" }],
    });
    assert.equal(await generations(), before);
  });
});

describe("a pathological prompt", () => {
  test("a megabyte without whitespace is counted off the event loop: the gateway answers meanwhile", async () => {
    const counting = anthropic().messages.countTokens({
      model: "local/echo-1",
      messages: [{ role: "user", content: "a".repeat(1024 * 1024) }],
    });
    const started = performance.now();
    const health = await fetch(`${gw.url}/healthz`);
    assert.equal(health.status, 200);
    assert.ok(performance.now() - started < 1000, "healthz waited on the count");
    assert.ok((await counting).input_tokens > 0);
  });
});

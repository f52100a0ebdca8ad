// Clients given only a base URL ask for their vendor's own model ids: Claude Code for
// `claude-sonnet-4-6`, `claude-opus-4-6` and, for its background calls, the dated
// `claude-haiku-4-5-20251001`; Codex and the OpenAI SDK's examples for `gpt-5`; Gemini CLI for
// `gemini-2.5-flash`. Each resolves to the built-in catalog model that has it (its model name, or an
// alias), on every client protocol, when exactly one served model does; listings keep
// `provider/model`, and the generation's record names the catalog model.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { lookupFinal } from "./traps/routes.ts";

let gw: RunningGateway;
let anthropicFake: FakeUpstream;
let openaiFake: FakeUpstream;
let geminiFake: FakeUpstream;
let anthropic: Anthropic;
let openai: OpenAI;

before(async () => {
  [anthropicFake, openaiFake, geminiFake] = await Promise.all([
    startFakeUpstream("anthropic", { apiKey: "k-anthropic" }),
    startFakeUpstream("openai", { apiKey: "k-openai" }),
    startFakeUpstream("gemini", { apiKey: "k-gemini" }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bare-ids-"));
  gw = await startGateway(
    baseConfig(dir, {
      // The built-in catalog's models, served by providers with the catalog's provider ids.
      providers: [
        { id: "anthropic", protocol: "anthropic", base_url: anthropicFake.url, api_key: "k-anthropic" },
        { id: "openai", protocol: "openai", base_url: openaiFake.url, api_key: "k-openai" },
        { id: "google", protocol: "gemini", base_url: geminiFake.url, api_key: "k-gemini" },
      ],
      // A second served model named gpt-4.1: that bare name no longer says which one is meant.
      models: [{ id: "azure/gpt-4.1", endpoints: [{ provider: "openai", model: "gpt-4.1" }] }],
    }),
    { dir },
  );
  anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all([anthropicFake, openaiFake, geminiFake].map((f) => f?.close()));
});
beforeEach(() => {
  for (const fake of [anthropicFake, openaiFake, geminiFake]) fake.reset();
});

describe("Claude Code's default model ids through @anthropic-ai/sdk", () => {
  for (const [asked, catalog, upstream] of [
    ["claude-sonnet-4-6", "anthropic/claude-sonnet-4-6", "claude-sonnet-4-6"],
    ["claude-opus-4-6", "anthropic/claude-opus-4-6", "claude-opus-4-6"],
    // Claude Code 2.1.332's default model.
    ["claude-opus-5-5", "anthropic/claude-opus-5-5", "claude-opus-5-5"],
    ["claude-haiku-4-5-20251001", "anthropic/claude-haiku-4-5", "claude-haiku-4-5"],
    ["claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"],
  ])
    test(`${asked} is ${catalog}`, async () => {
      const { data, response } = await anthropic.messages
        .create({ model: asked, max_tokens: 64, messages: [{ role: "user", content: "hi" }] })
        .withResponse();
      assert.equal(data.model, catalog);
      assert.equal(anthropicFake.requests[0].body.model, upstream);
      const record = await lookupFinal(gw, String(response.headers.get("x-generation-id")));
      assert.equal(record.model, catalog);
    });

  test("streamed, and counted", async () => {
    const stream = anthropic.messages.stream({
      model: "claude-haiku-4-5-20251001",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal((await stream.finalMessage()).model, "anthropic/claude-haiku-4-5");
    const counted = await anthropic.messages.countTokens({
      model: "claude-haiku-4-5-20251001",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.ok(counted.input_tokens > 0);
  });

  test("retrieving a model by its alias gives the catalog record; the listing keeps provider/model", async () => {
    const model = await anthropic.models.retrieve("claude-haiku-4-5-20251001");
    assert.equal(model.id, "anthropic/claude-haiku-4-5");
    const ids: string[] = [];
    for await (const m of anthropic.models.list()) ids.push(m.id);
    assert.ok(ids.includes("anthropic/claude-haiku-4-5"));
    assert.ok(!ids.includes("claude-haiku-4-5-20251001") && !ids.includes("claude-haiku-4-5"));
  });
});

describe("bare OpenAI and Gemini ids, on every client protocol", () => {
  test("chat completions: gpt-5 is openai/gpt-5", async () => {
    const res = await openai.chat.completions.create({
      model: "gpt-5",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(res.model, "openai/gpt-5");
    assert.equal(openaiFake.requests[0].body.model, "gpt-5");
  });

  test("Responses API: gpt-5-mini is openai/gpt-5-mini", async () => {
    const res = await openai.responses.create({ model: "gpt-5-mini", input: "hi" });
    assert.equal(res.model, "openai/gpt-5-mini");
  });

  test("messages client asking for an OpenAI id, content-generation client for a Gemini one", async () => {
    const message = await anthropic.messages.create({
      model: "gpt-5-nano",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(message.model, "openai/gpt-5-nano");
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const answer = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" });
    assert.equal(answer.modelVersion, "google/gemini-2.5-flash");
    assert.equal(geminiFake.requests[0].pathname, "/v1beta/models/gemini-2.5-flash:generateContent");
  });

  test("a bare id two served models have is a 404 naming the model", async () => {
    await assert.rejects(
      openai.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] }),
      (err: any) => err.status === 404 && err.param === "model" && /gpt-4\.1/.test(err.message),
    );
    const res = await openai.chat.completions.create({
      model: "openai/gpt-4.1",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(res.model, "openai/gpt-4.1");
  });
});

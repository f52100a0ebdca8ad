// The Vercel AI SDK validates every response body and stream chunk against strict schemas: a field
// of the wrong type, a null where it wants absence, an unknown finish reason, and the call fails.
// Each of its providers is pointed at the gateway (its own protocol: the openai provider both as its
// chat model and as its default, the Responses API), and runs a two-step tool loop (`stopWhen: stepCountIs(2)`, the tool executed locally) with generateText and streamText:
// against the local reasoning model, and against a fake upstream of another protocol.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, type LanguageModel, stepCountIs, streamText, tool } from "ai";
import { z } from "zod";
import type { FakeUpstream, Reply } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import { type Routes, startRoutes } from "../traps/routes.ts";

let routes: Routes;
before(async () => {
  routes = await startRoutes();
});
after(() => routes?.close());
beforeEach(() => routes.reset());

type ProviderName = "openai" | "openai-responses" | "anthropic" | "google";

/** The provider's model for a catalog id, its base URL on the gateway as the package documents it. */
function modelFor(provider: ProviderName, id: string): LanguageModel {
  const gw = routes.gw.url;
  if (provider === "openai") return createOpenAI({ baseURL: `${gw}/v1`, apiKey: PAYG_KEY }).chat(id);
  // `openai(id)`: the provider's default, the Responses API.
  if (provider === "openai-responses") return createOpenAI({ baseURL: `${gw}/v1`, apiKey: PAYG_KEY })(id);
  if (provider === "anthropic") return createAnthropic({ baseURL: `${gw}/v1`, apiKey: PAYG_KEY })(id);
  // The google provider puts a model id containing "/" in the path as it is, without `models/`
  // (`/v1beta/fo/gpt:generateContent`): the gateway resolves that path to the catalog model.
  return createGoogleGenerativeAI({ baseURL: `${gw}/v1beta`, apiKey: PAYG_KEY })(id);
}

/** Reasoning switched on in each provider's own words (the local think model reasons only when asked). */
function reasoningOptions(provider: ProviderName) {
  if (provider === "openai") return { openai: { reasoningEffort: "low" } };
  // `store: false`: the SDK sends whole items (reasoning with its encrypted content) instead of
  // references to stored ones (those are test/e2e/responses/stored-responses.test.ts's).
  // `forceReasoning`: the SDK sends reasoning settings only to model ids it knows reason.
  if (provider === "openai-responses")
    return {
      openai: { reasoningEffort: "low", reasoningSummary: "auto", store: false, forceReasoning: true },
    };
  if (provider === "anthropic") return { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } };
  return { google: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } };
}

const executed: Array<{ city: string }> = [];
const tools = {
  get_weather: tool({
    description: "Current weather for a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executed.push({ city });
      return `${city}: 4C and snowing`;
    },
  }),
};

/** Given explicitly: the SDK caps (and warns about) models it does not know. */
const MAX_OUTPUT = 4000;
const PROMPT = 'Use get_weather for "Oslo", then tell me what to wear.';

/** The tool loop with generateText; asserts the shape of both steps. */
async function generateLoop(model: LanguageModel, providerOptions?: any) {
  executed.length = 0;
  const result = await generateText({
    model,
    tools,
    stopWhen: stepCountIs(2),
    prompt: PROMPT,
    providerOptions,
    maxOutputTokens: MAX_OUTPUT,
    maxRetries: 0,
  });
  assert.equal(result.steps.length, 2);
  assert.equal(result.steps[0].finishReason, "tool-calls");
  assert.equal(result.steps[0].toolCalls[0].toolName, "get_weather");
  assert.deepEqual(executed, [{ city: "Oslo" }]);
  assert.equal(result.steps[1].finishReason, "stop");
  assert.ok(result.totalUsage.inputTokens! > 0 && result.totalUsage.outputTokens! > 0);
  return result;
}

/** The same loop with streamText; any error part (a failed validation among them) fails the test. */
async function streamLoop(model: LanguageModel, providerOptions?: any) {
  executed.length = 0;
  const errors: unknown[] = [];
  const result = streamText({
    model,
    tools,
    stopWhen: stepCountIs(2),
    prompt: PROMPT,
    providerOptions,
    maxOutputTokens: MAX_OUTPUT,
    maxRetries: 0,
    onError: ({ error }) => {
      errors.push(error);
    },
  });
  const kinds = new Set<string>();
  for await (const part of result.fullStream) kinds.add(part.type);
  assert.deepEqual(errors, [], "the stream raised errors");
  assert.ok(!kinds.has("error"));
  const steps = await result.steps;
  assert.equal(steps.length, 2);
  assert.equal(steps[0].finishReason, "tool-calls");
  assert.deepEqual(executed, [{ city: "Oslo" }]);
  assert.equal(steps[1].finishReason, "stop");
  assert.ok(kinds.has("tool-call") && kinds.has("tool-result") && kinds.has("text-delta"));
  const usage = await result.totalUsage;
  assert.ok(usage.inputTokens! > 0 && usage.outputTokens! > 0);
  return { result, kinds, text: await result.text };
}

const PROVIDERS: ProviderName[] = ["openai", "openai-responses", "anthropic", "google"];

describe("against the local reasoning model (local/think-1): signed thinking, tool call, answer", () => {
  for (const provider of PROVIDERS) {
    test(`${provider} provider: generateText runs the tool loop`, async () => {
      const result = await generateLoop(modelFor(provider, "local/think-1"), reasoningOptions(provider));
      // The local model answers the second step from the tool result it was given back.
      assert.match(result.text, /4C and snowing/);
      // The openai provider's chat model has no reasoning part (OpenAI's chat API sends none).
      if (provider !== "openai") assert.ok(result.steps[0].reasoningText, "reasoning came through");
    });

    test(`${provider} provider: streamText runs the tool loop`, async () => {
      const { text, kinds } = await streamLoop(
        modelFor(provider, "local/think-1"),
        reasoningOptions(provider),
      );
      assert.match(text, /4C and snowing/);
      if (provider !== "openai") assert.ok(kinds.has("reasoning-delta"), "reasoning was streamed");
    });
  }
});

/** A route where the client's protocol and the upstream's differ. */
const CROSS: Record<ProviderName, { model: string; fake: () => FakeUpstream }> = {
  openai: { model: "fa/claude", fake: () => routes.anthropic },
  "openai-responses": { model: "fg/pro3", fake: () => routes.gemini },
  anthropic: { model: "fg/pro3", fake: () => routes.gemini },
  google: { model: "fo/gpt", fake: () => routes.openai },
};

const TOOL_TURN: Reply = {
  blocks: [
    {
      type: "thinking",
      text: "The user wants clothing advice; weather first.",
      signature: "c2lnbmF0dXJlLW9uZQ==",
    },
    { type: "text", text: "Checking the weather." },
    { type: "tool_call", name: "get_weather", args: { city: "Oslo" }, signature: "Y2FsbC1zaWduYXR1cmU=" },
  ],
  usage: { input: 50, cacheRead: 20, output: 12, reasoning: 9 },
};
const ANSWER_TURN: Reply = {
  blocks: [{ type: "text", text: "Wear a warm coat and boots." }],
  usage: { input: 90, output: 8 },
};

describe("against a fake upstream of another protocol", () => {
  for (const provider of PROVIDERS) {
    const { model, fake } = CROSS[provider];

    test(`${provider} provider → ${model}: generateText validates both steps`, async () => {
      fake().script(TOOL_TURN, ANSWER_TURN);
      const result = await generateLoop(modelFor(provider, model), reasoningOptions(provider));
      assert.equal(result.text, "Wear a warm coat and boots.");
      assert.equal(result.steps[0].text, "Checking the weather.");
      assert.deepEqual(result.steps[0].toolCalls[0].input, { city: "Oslo" });
      if (provider !== "openai")
        assert.equal(result.steps[0].reasoningText, "The user wants clothing advice; weather first.");
      assert.equal(fake().requests.length, 2);
      assertToolResultWentBack(provider, fake());
    });

    test(`${provider} provider → ${model}: streamText validates every chunk of both steps`, async () => {
      fake().script({ ...TOOL_TURN, chunks: 4 }, { ...ANSWER_TURN, chunks: 4 });
      const { result, text } = await streamLoop(modelFor(provider, model), reasoningOptions(provider));
      const steps = await result.steps;
      assert.equal(steps[0].text, "Checking the weather.");
      assert.deepEqual(steps[0].toolCalls[0].input, { city: "Oslo" });
      if (provider !== "openai")
        assert.equal(steps[0].reasoningText, "The user wants clothing advice; weather first.");
      assert.equal(text, "Wear a warm coat and boots.");
      assert.equal(fake().requests.length, 2);
      assertToolResultWentBack(provider, fake());
    });
  }
});

/** The second upstream request carries the call and its result, in the upstream's own protocol. */
function assertToolResultWentBack(provider: ProviderName, fake: FakeUpstream): void {
  const second = fake.requests[1].body;
  const flat = JSON.stringify(second);
  assert.ok(flat.includes("4C and snowing"), "the tool result reached the upstream");
  if (fake.protocol === "gemini") {
    const response = second.contents.flatMap((c: any) => c.parts).find((p: any) => p.functionResponse);
    assert.equal(response.functionResponse.name, "get_weather");
    const call = second.contents.flatMap((c: any) => c.parts).find((p: any) => p.functionCall);
    // The SDK replayed the tool-call id it was given; the signature inside it is restored.
    assert.equal(call.thoughtSignature, "Y2FsbC1zaWduYXR1cmU=");
  } else if (fake.protocol === "anthropic") {
    const result = second.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .find((b: any) => b.type === "tool_result");
    const use = second.messages
      .flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))
      .find((b: any) => b.type === "tool_use");
    assert.equal(result.tool_use_id, use.id);
  } else {
    const toolMessage = second.messages.find((m: any) => m.role === "tool");
    const assistant = second.messages.find((m: any) => m.role === "assistant");
    assert.equal(toolMessage.tool_call_id, assistant.tool_calls[0].id);
    assert.equal(assistant.tool_calls[0].extra_content?.google?.thought_signature, "Y2FsbC1zaWduYXR1cmU=");
  }
  assert.ok(provider);
}

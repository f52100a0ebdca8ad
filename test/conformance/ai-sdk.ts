// Conformance drivers for the AI SDK (`ai`) with each of its providers that speaks a protocol the
// gateway serves: openai's chat model, openai's default (the Responses API), anthropic and google,
// each given the gateway as `baseURL`, and OpenRouter's own provider (@openrouter/ai-sdk-provider)
// given the gateway's `/api/v1` as an OpenRouter user's would be. The tool loop is the SDK's own
// (`stopWhen: stepCountIs(2)`).

import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import {
  generateText,
  jsonSchema,
  type LanguageModel,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
} from "ai";
import { type ClientDriver, type Gateway, PROMPTS, WEATHER, WEATHER_PROMPT } from "./driver.ts";

/** `openai-responses-stored`: the same provider with its default `store` (true), so its second turns
 * refer to the first turn's stored items by reference instead of sending them. */
type Provider =
  | "openai"
  | "openai-responses"
  | "openai-responses-stored"
  | "anthropic"
  | "google"
  | "openrouter";

function modelOf(provider: Provider, gw: Gateway, id: string): LanguageModel {
  if (provider === "openai") return createOpenAI({ baseURL: `${gw.base}/v1`, apiKey: gw.key }).chat(id);
  if (provider === "openai-responses" || provider === "openai-responses-stored")
    return createOpenAI({ baseURL: `${gw.base}/v1`, apiKey: gw.key })(id);
  if (provider === "anthropic") return createAnthropic({ baseURL: `${gw.base}/v1`, apiKey: gw.key })(id);
  if (provider === "openrouter")
    return createOpenRouter({ baseURL: `${gw.base}/api/v1`, apiKey: gw.key })(id);
  return createGoogleGenerativeAI({ baseURL: `${gw.base}/v1beta`, apiKey: gw.key })(id);
}

/** Reasoning asked in each provider's own words. */
function reasoningOptions(provider: Provider): any {
  if (provider === "openai") return { openai: { reasoningEffort: "low" } };
  // `store: false`: whole reasoning items go back, not references to stored ones; `forceReasoning`:
  // the provider sends reasoning settings only to model ids it knows.
  if (provider === "openai-responses")
    return {
      openai: { reasoningEffort: "low", reasoningSummary: "auto", store: false, forceReasoning: true },
    };
  if (provider === "openai-responses-stored")
    return { openai: { reasoningEffort: "low", reasoningSummary: "auto", forceReasoning: true } };
  if (provider === "anthropic") return { anthropic: { thinking: { type: "enabled", budgetTokens: 1024 } } };
  if (provider === "openrouter") return { openrouter: { reasoning: { effort: "low" } } };
  return { google: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } };
}

/** `store: false` everywhere for the Responses API, whose default would refer to stored items. */
const plainOptions = (provider: Provider): any =>
  provider === "openai-responses" ? { openai: { store: false } } : undefined;

/** Given explicitly: the SDK caps (and warns about) models it does not know. */
const MAX_OUTPUT = 2048;

function aiClientDriver(
  provider: Provider,
  name: string,
  pkg: string,
  limits?: ClientDriver["limits"],
): ClientDriver {
  const common = { maxRetries: 0, maxOutputTokens: MAX_OUTPUT };
  return {
    name,
    packages: ["ai", pkg],
    limits,
    async text(gw, model) {
      const result = await generateText({
        model: modelOf(provider, gw, model),
        prompt: PROMPTS.text,
        providerOptions: plainOptions(provider),
        ...common,
      });
      return result.text;
    },
    async stream(gw, model) {
      const errors: unknown[] = [];
      const result = streamText({
        model: modelOf(provider, gw, model),
        prompt: PROMPTS.stream,
        providerOptions: plainOptions(provider),
        onError: ({ error }) => {
          errors.push(error);
        },
        ...common,
      });
      let deltas = 0;
      for await (const part of result.fullStream) if (part.type === "text-delta") deltas++;
      if (errors.length > 0) throw errors[0];
      return { text: await result.text, deltas };
    },
    async tool(gw, model, run) {
      const tools = {
        [WEATHER.name]: tool({
          description: WEATHER.description,
          inputSchema: jsonSchema<{ city: string }>(WEATHER.schema as any),
          execute: async ({ city }) => run(city),
        }),
      };
      const result = await generateText({
        model: modelOf(provider, gw, model),
        prompt: WEATHER_PROMPT,
        tools,
        stopWhen: stepCountIs(2),
        providerOptions: plainOptions(provider),
        ...common,
      });
      return result.text;
    },
    async reasoning(gw, id) {
      const model = modelOf(provider, gw, id);
      const providerOptions = reasoningOptions(provider);
      const messages: ModelMessage[] = [{ role: "user", content: PROMPTS.reasoning[0] }];
      const first = await generateText({ model, messages, providerOptions, ...common });
      messages.push(...first.response.messages, { role: "user", content: PROMPTS.reasoning[1] });
      const second = await generateText({ model, messages, providerOptions, ...common });
      return {
        first: { text: first.text, reasoning: first.reasoningText },
        second: { text: second.text, reasoning: second.reasoningText },
      };
    },
  };
}

export const AI_SDK = [
  aiClientDriver("openai", "AI SDK, openai chat provider", "@ai-sdk/openai", {
    reasoningShown: "the openai provider's chat model reads no reasoning from a chat completion",
    reasoningReplayed: "the openai provider's chat model sends no reasoning back",
  }),
  aiClientDriver("openai-responses", "AI SDK, openai Responses provider", "@ai-sdk/openai"),
  aiClientDriver(
    "openai-responses-stored",
    "AI SDK, openai Responses provider, default store",
    "@ai-sdk/openai",
  ),
  aiClientDriver("anthropic", "AI SDK, anthropic provider", "@ai-sdk/anthropic"),
  aiClientDriver("google", "AI SDK, google provider", "@ai-sdk/google"),
  aiClientDriver("openrouter", "AI SDK, OpenRouter provider", "@openrouter/ai-sdk-provider"),
];

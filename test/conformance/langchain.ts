// Conformance drivers for LangChain's three chat models, each given the gateway as its base URL the
// way its package documents: ChatOpenAI (`configuration.baseURL`, chat completions), ChatAnthropic
// (`anthropicApiUrl`) and ChatGoogleGenerativeAI (`baseUrl`). The tool loop is a user's: bindTools,
// run the calls, send ToolMessages back.

import { ChatAnthropic } from "@langchain/anthropic";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { type AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { ChatOpenAI } from "@langchain/openai";
import {
  type ClientDriver,
  cityOf,
  collectText,
  type Gateway,
  PROMPTS,
  WEATHER,
  WEATHER_PROMPT,
} from "./driver.ts";

type Flavour = "openai" | "anthropic" | "google";

function chatModel(flavour: Flavour, gw: Gateway, model: string, reasoning = false): BaseChatModel {
  if (flavour === "openai")
    return new ChatOpenAI({
      model,
      apiKey: gw.key,
      configuration: { baseURL: `${gw.base}/v1` },
      maxRetries: 0,
      // `reasoning` is sent only to model names ChatOpenAI knows reason (o-series, gpt-5): other
      // names take the field as a model kwarg.
      ...(reasoning ? { modelKwargs: { reasoning_effort: "low" } } : {}),
    });
  if (flavour === "anthropic")
    return new ChatAnthropic({
      model,
      apiKey: gw.key,
      anthropicApiUrl: gw.base,
      maxRetries: 0,
      maxTokens: 2048,
      ...(reasoning ? { thinking: { type: "enabled", budget_tokens: 1024 } } : {}),
    });
  return new ChatGoogleGenerativeAI({
    model,
    apiKey: gw.key,
    baseUrl: gw.base,
    maxRetries: 0,
    ...(reasoning ? { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } : {}),
  });
}

/** The message's reasoning: LangChain's neutral `reasoning` blocks, or Gemini's `thinking` ones. */
function reasoningOf(message: AIMessage): string {
  return message.contentBlocks
    .map((b: any) => (b.type === "reasoning" ? b.reasoning : b.type === "thinking" ? b.thinking : ""))
    .join("");
}

const WEATHER_TOOL = {
  type: "function" as const,
  function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema as any },
};

function langchainDriver(
  flavour: Flavour,
  name: string,
  pkg: string,
  limits?: ClientDriver["limits"],
): ClientDriver {
  return {
    name,
    packages: ["@langchain/core", pkg],
    limits,
    async text(gw, model) {
      return (await chatModel(flavour, gw, model).invoke(PROMPTS.text)).text;
    },
    async stream(gw, model) {
      return collectText(await chatModel(flavour, gw, model).stream(PROMPTS.stream), (chunk) => chunk.text);
    },
    async tool(gw, model, run) {
      const bound = chatModel(flavour, gw, model).bindTools!([WEATHER_TOOL]);
      const messages: BaseMessage[] = [new HumanMessage(WEATHER_PROMPT)];
      const first = (await bound.invoke(messages)) as AIMessage;
      messages.push(first);
      for (const call of first.tool_calls ?? [])
        messages.push(new ToolMessage({ tool_call_id: call.id ?? "", content: run(cityOf(call.args)) }));
      return ((await bound.invoke(messages)) as AIMessage).text;
    },
    async reasoning(gw, id) {
      const model = chatModel(flavour, gw, id, true);
      const messages: BaseMessage[] = [new HumanMessage(PROMPTS.reasoning[0])];
      const first = (await model.invoke(messages)) as AIMessage;
      messages.push(first, new HumanMessage(PROMPTS.reasoning[1]));
      const second = (await model.invoke(messages)) as AIMessage;
      return {
        first: { text: first.text, reasoning: reasoningOf(first) },
        second: { text: second.text, reasoning: reasoningOf(second) },
      };
    },
  };
}

export const LANGCHAIN = [
  langchainDriver("openai", "LangChain ChatOpenAI", "@langchain/openai", {
    reasoningShown:
      "ChatOpenAI reads reasoning only as DeepSeek's `reasoning_content`; the gateway writes OpenRouter's `reasoning` and `reasoning_details`",
    reasoningReplayed: "ChatOpenAI sends no reasoning back on chat completions",
  }),
  langchainDriver("anthropic", "LangChain ChatAnthropic", "@langchain/anthropic"),
  langchainDriver("google", "LangChain ChatGoogleGenerativeAI", "@langchain/google-genai", {
    callIdKept:
      "ChatGoogleGenerativeAI drops the function call's id (it makes its own), so the upstream sees a call id the gateway made, the same on the call and its result",
  }),
];

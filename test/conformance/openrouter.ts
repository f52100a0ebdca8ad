// Conformance driver for OpenRouter's own SDK (`@openrouter/sdk`), moved to the gateway as its README
// moves it elsewhere: `serverURL` set to the gateway's `/api/v1` (the SDK's default is OpenRouter's
// `…/api/v1`). It validates every answer against OpenRouter's schema before handing it over, so a
// missing or mistyped field fails the case. Reasoning is asked in OpenRouter's words
// (`reasoning: {effort}`); the assistant message, `reasoningDetails` and all, goes back as returned.
// (The AI SDK's OpenRouter provider is a row of ai-sdk.ts.)

import { OpenRouter } from "@openrouter/sdk";
import type { ChatMessages, ChatResult, ChatStreamChunk } from "@openrouter/sdk/models";
import {
  type ClientDriver,
  cityOf,
  collectText,
  type Gateway,
  PROMPTS,
  WEATHER,
  WEATHER_PROMPT,
} from "./driver.ts";

const client = (gw: Gateway) => new OpenRouter({ apiKey: gw.key, serverURL: `${gw.base}/api/v1` });

async function send(gw: Gateway, model: string, messages: ChatMessages[], extra: object = {}) {
  return (await client(gw).chat.send({ chatRequest: { model, messages, ...extra } })) as ChatResult;
}

const TOOLS = [
  {
    type: "function" as const,
    function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema },
  },
];

export const openrouterSdk: ClientDriver = {
  name: "@openrouter/sdk (chat)",
  packages: ["@openrouter/sdk"],
  async text(gw, model) {
    const result = await send(gw, model, [{ role: "user", content: PROMPTS.text }]);
    return String(result.choices[0].message.content ?? "");
  },
  async stream(gw, model) {
    const stream = (await client(gw).chat.send({
      chatRequest: { model, messages: [{ role: "user", content: PROMPTS.stream }], stream: true },
    })) as AsyncIterable<ChatStreamChunk>;
    return collectText(stream, (chunk) => chunk.choices[0]?.delta?.content);
  },
  async tool(gw, model, run) {
    const messages: ChatMessages[] = [{ role: "user", content: WEATHER_PROMPT }];
    const first = (await send(gw, model, messages, { tools: TOOLS })).choices[0].message;
    messages.push(first);
    for (const call of first.toolCalls ?? [])
      messages.push({ role: "tool", toolCallId: call.id, content: run(cityOf(call.function.arguments)) });
    const second = await send(gw, model, messages, { tools: TOOLS });
    return String(second.choices[0].message.content ?? "");
  },
  async reasoning(gw, model) {
    const reasoning = { reasoning: { effort: "low" } };
    const messages: ChatMessages[] = [{ role: "user", content: PROMPTS.reasoning[0] }];
    const first = (await send(gw, model, messages, reasoning)).choices[0].message;
    messages.push(first, { role: "user", content: PROMPTS.reasoning[1] });
    const second = (await send(gw, model, messages, reasoning)).choices[0].message;
    return {
      first: { text: String(first.content ?? ""), reasoning: first.reasoning ?? undefined },
      second: { text: String(second.content ?? ""), reasoning: second.reasoning ?? undefined },
    };
  },
};

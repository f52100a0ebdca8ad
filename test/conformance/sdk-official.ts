// Conformance drivers for the official SDKs, each as its README tells a user to point it elsewhere:
// openai (chat completions and the Responses API) with `baseURL`, @anthropic-ai/sdk 1.x with
// `baseURL` (unmodified: it sends its own anthropic-version, which the stage accepts by setting),
// @google/genai 3.x with `httpOptions.baseUrl` (its default API version, v1).

import Anthropic from "@anthropic-ai/sdk-1";
import { GoogleGenAI } from "@google/genai-3";
import OpenAI from "openai-7";
import {
  type ClientDriver,
  cityOf,
  collectText,
  type Gateway,
  PROMPTS,
  WEATHER,
  WEATHER_PROMPT,
} from "./driver.ts";

const openai = (gw: Gateway) => new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 });

export const openaiChat: ClientDriver = {
  name: "openai (chat completions)",
  packages: ["openai-7"],
  async text(gw, model) {
    const res = await openai(gw).chat.completions.create({
      model,
      messages: [{ role: "user", content: PROMPTS.text }],
    });
    return res.choices[0].message.content ?? "";
  },
  async stream(gw, model) {
    const stream = await openai(gw).chat.completions.create({
      model,
      stream: true,
      messages: [{ role: "user", content: PROMPTS.stream }],
    });
    return collectText(stream, (chunk) => chunk.choices[0]?.delta?.content);
  },
  async tool(gw, model, run) {
    const client = openai(gw);
    const tools = [
      {
        type: "function" as const,
        function: { name: WEATHER.name, description: WEATHER.description, parameters: WEATHER.schema },
      },
    ];
    const messages: any[] = [{ role: "user", content: WEATHER_PROMPT }];
    const first = await client.chat.completions.create({ model, messages, tools });
    const message = first.choices[0].message;
    messages.push(message);
    for (const call of message.tool_calls ?? [])
      if (call.type === "function")
        messages.push({ role: "tool", tool_call_id: call.id, content: run(cityOf(call.function.arguments)) });
    const second = await client.chat.completions.create({ model, messages, tools });
    return second.choices[0].message.content ?? "";
  },
  async reasoning(gw, model) {
    const client = openai(gw);
    const messages: any[] = [{ role: "user", content: PROMPTS.reasoning[0] }];
    const first = (await client.chat.completions.create({ model, messages, reasoning_effort: "low" }))
      .choices[0].message as any;
    // The assistant message goes back as the SDK returned it, `reasoning_details` and all.
    messages.push(first, { role: "user", content: PROMPTS.reasoning[1] });
    const second = (await client.chat.completions.create({ model, messages, reasoning_effort: "low" }))
      .choices[0].message as any;
    return {
      first: { text: first.content ?? "", reasoning: first.reasoning },
      second: { text: second.content ?? "", reasoning: second.reasoning },
    };
  },
};

/**
 * The Responses API either with `store: false`, each turn sending the whole conversation, or stored
 * (the API's default): each second turn sends only its new input after `previous_response_id`, so
 * the upstream can only see the first turn if the gateway kept it.
 */
function openaiResponsesDriver(stored: boolean): ClientDriver {
  const store = stored;
  /** The next turn's request: the new input after the previous response, or the whole conversation. */
  const nextTurn = (history: any[], previous: OpenAI.Responses.Response, added: any[]) => {
    history.push(...previous.output, ...added);
    return stored ? { input: added, previous_response_id: previous.id } : { input: history };
  };
  return {
    name: stored ? "openai (Responses API, stored)" : "openai (Responses API)",
    packages: ["openai-7"],
    async text(gw, model) {
      return (await openai(gw).responses.create({ model, input: PROMPTS.text, store })).output_text;
    },
    async stream(gw, model) {
      const stream = await openai(gw).responses.create({ model, input: PROMPTS.stream, store, stream: true });
      return collectText(stream, (event) => (event.type === "response.output_text.delta" ? event.delta : ""));
    },
    async tool(gw, model, run) {
      const client = openai(gw);
      const tools = [
        {
          type: "function" as const,
          name: WEATHER.name,
          description: WEATHER.description,
          parameters: WEATHER.schema as any,
          strict: false,
        },
      ];
      const history: any[] = [{ role: "user", content: WEATHER_PROMPT }];
      const first = await client.responses.create({ model, input: history, tools, store });
      const outputs = first.output.flatMap((item) =>
        item.type === "function_call"
          ? [{ type: "function_call_output", call_id: item.call_id, output: run(cityOf(item.arguments)) }]
          : [],
      );
      const turn = nextTurn(history, first, outputs);
      return (await client.responses.create({ model, ...turn, tools, store })).output_text;
    },
    async reasoning(gw, model) {
      const client = openai(gw);
      const settings = {
        store,
        reasoning: { effort: "low" as const, summary: "auto" as const },
        include: ["reasoning.encrypted_content" as const],
      };
      const history: any[] = [{ role: "user", content: PROMPTS.reasoning[0] }];
      const first = await client.responses.create({ model, input: history, ...settings });
      const turn = nextTurn(history, first, [{ role: "user", content: PROMPTS.reasoning[1] }]);
      const second = await client.responses.create({ model, ...turn, ...settings });
      const summary = (r: any) =>
        r.output
          .filter((i: any) => i.type === "reasoning")
          .flatMap((i: any) => i.summary.map((s: any) => s.text))
          .join("");
      return {
        first: { text: first.output_text, reasoning: summary(first) },
        second: { text: second.output_text, reasoning: summary(second) },
      };
    },
  };
}

export const openaiResponses = openaiResponsesDriver(false);
export const openaiResponsesStored = openaiResponsesDriver(true);

const anthropic = (gw: Gateway) => new Anthropic({ apiKey: gw.key, baseURL: gw.base, maxRetries: 0 });
const textOf = (content: Anthropic.ContentBlock[]) =>
  content.map((b) => (b.type === "text" ? b.text : "")).join("");

export const anthropicMessages: ClientDriver = {
  name: "@anthropic-ai/sdk (messages)",
  packages: ["@anthropic-ai/sdk-1"],
  async text(gw, model) {
    const res = await anthropic(gw).messages.create({
      model,
      max_tokens: 1024,
      messages: [{ role: "user", content: PROMPTS.text }],
    });
    return textOf(res.content);
  },
  async stream(gw, model) {
    const stream = anthropic(gw).messages.stream({
      model,
      max_tokens: 1024,
      messages: [{ role: "user", content: PROMPTS.stream }],
    });
    let deltas = 0;
    stream.on("text", () => deltas++);
    return { text: textOf((await stream.finalMessage()).content), deltas };
  },
  async tool(gw, model, run) {
    const client = anthropic(gw);
    const tools = [
      { name: WEATHER.name, description: WEATHER.description, input_schema: WEATHER.schema as any },
    ];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: WEATHER_PROMPT }];
    const first = await client.messages.create({ model, max_tokens: 1024, messages, tools });
    messages.push({ role: "assistant", content: first.content });
    const results: Anthropic.ToolResultBlockParam[] = first.content
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ type: "tool_result", tool_use_id: b.id, content: run(cityOf(b.input)) }));
    messages.push({ role: "user", content: results });
    return textOf((await client.messages.create({ model, max_tokens: 1024, messages, tools })).content);
  },
  async reasoning(gw, model) {
    const client = anthropic(gw);
    const settings = { max_tokens: 2048, thinking: { type: "enabled" as const, budget_tokens: 1024 } };
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: PROMPTS.reasoning[0] }];
    const first = await client.messages.create({ model, messages, ...settings });
    messages.push(
      { role: "assistant", content: first.content },
      { role: "user", content: PROMPTS.reasoning[1] },
    );
    const second = await client.messages.create({ model, messages, ...settings });
    const thinking = (content: Anthropic.ContentBlock[]) =>
      content.map((b) => (b.type === "thinking" ? b.thinking : "")).join("");
    return {
      first: { text: textOf(first.content), reasoning: thinking(first.content) },
      second: { text: textOf(second.content), reasoning: thinking(second.content) },
    };
  },
};

const genai = (gw: Gateway) => new GoogleGenAI({ apiKey: gw.key, httpOptions: { baseUrl: gw.base } });
const partsText = (parts: any[] | undefined, thought: boolean) =>
  (parts ?? []).map((p) => (Boolean(p.thought) === thought && p.text ? p.text : "")).join("");

export const googleGenai: ClientDriver = {
  name: "@google/genai (content generation)",
  packages: ["@google/genai-3"],
  async text(gw, model) {
    return (await genai(gw).models.generateContent({ model, contents: PROMPTS.text })).text ?? "";
  },
  async stream(gw, model) {
    const stream = await genai(gw).models.generateContentStream({ model, contents: PROMPTS.stream });
    return collectText(stream, (chunk) => chunk.text);
  },
  async tool(gw, model, run) {
    const client = genai(gw);
    const config = {
      tools: [
        {
          functionDeclarations: [
            { name: WEATHER.name, description: WEATHER.description, parametersJsonSchema: WEATHER.schema },
          ],
        },
      ],
    };
    const contents: any[] = [{ role: "user", parts: [{ text: WEATHER_PROMPT }] }];
    const first = await client.models.generateContent({ model, contents, config });
    const content = first.candidates?.[0]?.content;
    contents.push(content);
    const responses = (first.functionCalls ?? []).map((call) => ({
      functionResponse: { id: call.id, name: call.name, response: { output: run(cityOf(call.args)) } },
    }));
    contents.push({ role: "user", parts: responses });
    return (await client.models.generateContent({ model, contents, config })).text ?? "";
  },
  async reasoning(gw, model) {
    const client = genai(gw);
    const config = { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } };
    const contents: any[] = [{ role: "user", parts: [{ text: PROMPTS.reasoning[0] }] }];
    const first = await client.models.generateContent({ model, contents, config });
    const firstParts = first.candidates?.[0]?.content?.parts;
    // The model's turn goes back whole, thought parts and signatures included.
    contents.push(first.candidates?.[0]?.content, { role: "user", parts: [{ text: PROMPTS.reasoning[1] }] });
    const second = await client.models.generateContent({ model, contents, config });
    const secondParts = second.candidates?.[0]?.content?.parts;
    return {
      first: { text: partsText(firstParts, false), reasoning: partsText(firstParts, true) },
      second: { text: partsText(secondParts, false), reasoning: partsText(secondParts, true) },
    };
  },
};

export const OFFICIAL_SDKS = [
  openaiChat,
  openaiResponses,
  openaiResponsesStored,
  anthropicMessages,
  googleGenai,
];

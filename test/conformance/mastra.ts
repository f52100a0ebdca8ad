// Conformance driver for Mastra (the pinned @mastra/core, loaded from the agent clients' cache): an
// Agent whose model is Mastra's OpenAI-compatible model config (`{providerId, modelId, url, apiKey}`,
// its chat-completions API) pointed at the gateway's `/v1`. The tool loop is the Agent's own.

import { clientsDir, requireClient } from "../agents/clients.ts";
import { type ClientDriver, type Gateway, PROMPTS, WEATHER, WEATHER_PROMPT } from "./driver.ts";

export function mastraDriver(): ClientDriver {
  const { Agent } = requireClient("@mastra/core/agent");
  const { createTool } = requireClient("@mastra/core/tools");
  const { z } = requireClient("zod");

  const agent = (gw: Gateway, model: string, tools: object = {}) =>
    new Agent({
      id: "conformance",
      name: "Conformance",
      instructions: "Answer briefly.",
      model: { providerId: "switchyard", modelId: model, url: `${gw.base}/v1`, apiKey: gw.key },
      tools,
    });

  return {
    name: "Mastra (OpenAI-compatible model)",
    packages: ["@mastra/core"],
    installedIn: clientsDir(),
    limits: {
      reasoningReplayed:
        "Mastra's OpenAI-compatible model sends no reasoning back with an earlier assistant message",
    },
    async text(gw, model) {
      return (await agent(gw, model).generate(PROMPTS.text)).text;
    },
    async stream(gw, model) {
      const result = await agent(gw, model).stream(PROMPTS.stream);
      let text = "";
      let deltas = 0;
      for await (const piece of result.textStream) {
        if (!piece) continue;
        text += piece;
        deltas++;
      }
      return { text, deltas };
    },
    async tool(gw, model, run) {
      const weather = createTool({
        id: WEATHER.name,
        description: WEATHER.description,
        inputSchema: z.object({ city: z.string() }),
        execute: async (input: any) => run(input.city ?? input.context?.city),
      });
      const result = await agent(gw, model, { [WEATHER.name]: weather }).generate(WEATHER_PROMPT, {
        maxSteps: 2,
      });
      return result.text;
    },
    async reasoning(gw, model) {
      const reasoner = agent(gw, model);
      const options = { providerOptions: { switchyard: { reasoningEffort: "low" } } };
      const first = await reasoner.generate(PROMPTS.reasoning[0], options);
      const history = [
        { role: "user", content: PROMPTS.reasoning[0] },
        ...first.response.messages,
        { role: "user", content: PROMPTS.reasoning[1] },
      ];
      const second = await reasoner.generate(history, options);
      return {
        first: { text: first.text, reasoning: first.reasoningText },
        second: { text: second.text, reasoning: second.reasoningText },
      };
    },
  };
}

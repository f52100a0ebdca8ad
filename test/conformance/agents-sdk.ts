// Conformance driver for the OpenAI Agents SDK (the pinned @openai/agents, loaded from the agent
// clients' cache) in its default mode, the Responses API, with the gateway as its OpenAI client's
// base URL. The tool loop is the SDK's own Runner.

import { clientsDir, requireClient } from "../agents/clients.ts";
import { type ClientDriver, collectText, type Gateway, PROMPTS, WEATHER, WEATHER_PROMPT } from "./driver.ts";

export function agentsSdkDriver(): ClientDriver {
  const agents = requireClient("@openai/agents");
  const OpenAI = requireClient("openai").default;
  const { z } = requireClient("zod");
  agents.setTracingDisabled(true);

  const runner = (gw: Gateway) =>
    new agents.Runner({
      modelProvider: new agents.OpenAIProvider({
        openAIClient: new OpenAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 }),
        useResponses: true,
      }),
    });
  const agent = (model: string, extra: object = {}) =>
    new agents.Agent({ name: "Conformance", instructions: "Answer briefly.", model, ...extra });
  const summaryOf = (items: any[]) =>
    items
      .filter((item) => item.type === "reasoning_item")
      .flatMap((item) => (item.rawItem.content ?? item.rawItem.summary ?? []).map((s: any) => s.text))
      .join("");

  return {
    name: "OpenAI Agents SDK (Responses API)",
    packages: ["@openai/agents", "openai"],
    installedIn: clientsDir(),
    async text(gw, model) {
      return (await runner(gw).run(agent(model), PROMPTS.text)).finalOutput;
    },
    async stream(gw, model) {
      const result = await runner(gw).run(agent(model), PROMPTS.stream, { stream: true });
      const collected = await collectText(result, (event: any) =>
        event.type === "raw_model_stream_event" && event.data.type === "output_text_delta"
          ? event.data.delta
          : "",
      );
      await result.completed;
      return collected;
    },
    async tool(gw, model, run) {
      const weather = agents.tool({
        name: WEATHER.name,
        description: WEATHER.description,
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }: { city: string }) => run(city),
      });
      return (await runner(gw).run(agent(model, { tools: [weather] }), WEATHER_PROMPT)).finalOutput;
    },
    async reasoning(gw, model) {
      // Stateless, as the SDK's docs describe it: `store: false` and the reasoning's encrypted
      // content asked for, so that it can go back whole.
      const reasoner = agent(model, {
        modelSettings: {
          reasoning: { effort: "low", summary: "auto" },
          store: false,
          providerData: { include: ["reasoning.encrypted_content"] },
        },
      });
      const first = await runner(gw).run(reasoner, PROMPTS.reasoning[0]);
      // The next turn is the whole history (reasoning items included) and the new question.
      const second = await runner(gw).run(reasoner, [
        ...first.history,
        { role: "user", content: PROMPTS.reasoning[1] },
      ]);
      return {
        first: { text: first.finalOutput, reasoning: summaryOf(first.newItems) },
        second: { text: second.finalOutput, reasoning: summaryOf(second.newItems) },
      };
    },
  };
}

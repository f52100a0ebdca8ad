// Conformance driver for Genkit (the pinned genkit, loaded from the agent clients' cache) with its
// OpenAI plugin from @genkit-ai/compat-oai, given the gateway's `/v1` as `baseURL` (the plugin's
// OpenAI client option); a model is `openai/<the gateway's model id>`, resolved by the plugin on
// first use. Its chat-completions API; the tool loop is Genkit's own (`generate` with tools).

import { clientsDir, requireClient } from "../agents/clients.ts";
import { type ClientDriver, type Gateway, PROMPTS, WEATHER, WEATHER_PROMPT } from "./driver.ts";

export function genkitDriver(): ClientDriver {
  const { genkit, z } = requireClient("genkit");
  const { openAI } = requireClient("@genkit-ai/compat-oai/openai");

  const instance = (gw: Gateway) =>
    genkit({ plugins: [openAI({ apiKey: gw.key, baseURL: `${gw.base}/v1`, maxRetries: 0 })] });
  const ref = (model: string) => `openai/${model}`;

  return {
    name: "Genkit (compat-oai OpenAI plugin)",
    packages: ["genkit", "@genkit-ai/compat-oai"],
    installedIn: clientsDir(),
    limits: {
      reasoningShown:
        "Genkit's compat-oai plugin reads reasoning only from `reasoning_content` (DeepSeek's member), where the gateway's chat answers carry `reasoning` and `reasoning_details` (OpenRouter's)",
      reasoningReplayed:
        "Genkit's compat-oai plugin sends no reasoning back with an earlier assistant message",
    },
    async text(gw, model) {
      return (await instance(gw).generate({ model: ref(model), prompt: PROMPTS.text })).text;
    },
    async stream(gw, model) {
      const { stream, response } = instance(gw).generateStream({ model: ref(model), prompt: PROMPTS.stream });
      let deltas = 0;
      for await (const chunk of stream) if (chunk.text) deltas++;
      return { text: (await response).text, deltas };
    },
    async tool(gw, model, run) {
      const ai = instance(gw);
      const weather = ai.defineTool(
        {
          name: WEATHER.name,
          description: WEATHER.description,
          inputSchema: z.object({ city: z.string() }),
          outputSchema: z.string(),
        },
        async ({ city }: { city: string }) => run(city),
      );
      return (await ai.generate({ model: ref(model), prompt: WEATHER_PROMPT, tools: [weather] })).text;
    },
    async reasoning(gw, model) {
      const ai = instance(gw);
      const config = { reasoning_effort: "low" };
      const first = await ai.generate({ model: ref(model), prompt: PROMPTS.reasoning[0], config });
      const second = await ai.generate({
        model: ref(model),
        messages: first.messages,
        prompt: PROMPTS.reasoning[1],
        config,
      });
      return {
        first: { text: first.text, reasoning: first.reasoning },
        second: { text: second.text, reasoning: second.reasoning },
      };
    },
  };
}

// Conformance driver for Google's Agent Development Kit for TypeScript (the pinned @google/adk,
// loaded from the agent clients' cache): an LlmAgent on ADK's Gemini model, which talks to the
// Gemini API through @google/genai and so is moved to the gateway as that SDK is, by
// GOOGLE_GEMINI_BASE_URL (read when the model's client is made; ADK has no base-URL option of its
// own). The tool loop is ADK's Runner; a second turn is the same session's next run.

import { clientsDir, requireClient } from "../agents/clients.ts";
import { type ClientDriver, type Gateway, PROMPTS, type Turn, WEATHER, WEATHER_PROMPT } from "./driver.ts";

export function adkDriver(): ClientDriver {
  const adk = requireClient("@google/adk");
  const { z } = requireClient("zod");
  // ADK logs every request at INFO; the matrix's output is its own.
  adk.setLogLevel(adk.LogLevel.WARN);

  /** ADK's Gemini model, its @google/genai client made while GOOGLE_GEMINI_BASE_URL names the gateway. */
  function gemini(gw: Gateway, model: string) {
    const llm = new adk.Gemini({ model, apiKey: gw.key });
    const before = process.env.GOOGLE_GEMINI_BASE_URL;
    process.env.GOOGLE_GEMINI_BASE_URL = gw.base;
    try {
      void llm.apiClient;
    } finally {
      if (before === undefined) delete process.env.GOOGLE_GEMINI_BASE_URL;
      else process.env.GOOGLE_GEMINI_BASE_URL = before;
    }
    return llm;
  }
  const runner = (gw: Gateway, model: string, extra: object = {}) =>
    new adk.InMemoryRunner({
      appName: "conformance",
      agent: new adk.LlmAgent({
        name: "conformance",
        instruction: "Answer briefly.",
        model: gemini(gw, model),
        ...extra,
      }),
    });
  const message = (text: string) => ({ role: "user", parts: [{ text }] });

  /** The final answer's text and thoughts, and how many partial (streamed) text events came. */
  async function turnOf(events: AsyncIterable<any>): Promise<Turn & { deltas: number }> {
    let final: any[] = [];
    let deltas = 0;
    for await (const event of events) {
      if (event.errorMessage) throw new Error(`ADK: ${event.errorCode} ${event.errorMessage}`);
      const parts: any[] = event.content?.parts ?? [];
      if (event.partial) deltas += parts.filter((p) => p.text && !p.thought).length;
      else if (parts.some((p) => p.text)) final = parts;
    }
    const text = final
      .filter((p) => !p.thought)
      .map((p) => p.text ?? "")
      .join("");
    const reasoning = final
      .filter((p) => p.thought)
      .map((p) => p.text ?? "")
      .join("");
    return { text, reasoning, deltas };
  }
  const once = (gw: Gateway, model: string, prompt: string, extra: object = {}, runConfig?: object) =>
    turnOf(runner(gw, model, extra).runEphemeral({ userId: "u", newMessage: message(prompt), runConfig }));

  return {
    name: "Google ADK (Gemini model)",
    packages: ["@google/adk", "@google/genai"],
    installedIn: clientsDir(),
    async text(gw, model) {
      return (await once(gw, model, PROMPTS.text)).text;
    },
    async stream(gw, model) {
      const { text, deltas } = await once(
        gw,
        model,
        PROMPTS.stream,
        {},
        {
          streamingMode: adk.StreamingMode.SSE,
        },
      );
      return { text, deltas };
    },
    async tool(gw, model, run) {
      const weather = new adk.FunctionTool({
        name: WEATHER.name,
        description: WEATHER.description,
        parameters: z.object({ city: z.string() }),
        execute: async ({ city }: { city: string }) => run(city),
      });
      return (await once(gw, model, WEATHER_PROMPT, { tools: [weather] })).text;
    },
    async reasoning(gw, model) {
      const r = runner(gw, model, {
        generateContentConfig: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
      });
      const session = await r.sessionService.createSession({ appName: "conformance", userId: "u" });
      const ask = (text: string) =>
        turnOf(r.runAsync({ userId: "u", sessionId: session.id, newMessage: message(text) }));
      const first = await ask(PROMPTS.reasoning[0]);
      const second = await ask(PROMPTS.reasoning[1]);
      return { first, second };
    },
  };
}

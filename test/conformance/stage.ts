// The conformance matrix's stage: the e2e matrix's gateway in front of one fake upstream per
// protocol (test/e2e/matrix/harness.ts), told to accept the anthropic-version today's Anthropic SDK
// sends (clients.anthropic_versions), with a tap in front of the gateway that keeps what each client
// was answered (the generation ids the lookup case reads).
//
// The agent CLIs' default-mode rows ask for their vendors' own model ids, which the stage serves as
// an operator would: `aliases` of the catalog model of the CLI's own protocol (DEFAULT_IDS). Gemini
// CLI's router asks a classifier first; the Gemini fake answers it as the real model would
// (classifierAnswer), beside the turns a case scripts.

import { type MatrixAliases, MODEL, startMatrix, UPSTREAMS, type Upstream } from "../e2e/matrix/harness.ts";
import type { RecordedRequest, Reply } from "../fakes/index.ts";
import { PAYG_KEY } from "../support/gateway.ts";
import { startTap } from "../support/tap.ts";
import { modelTurns, type Stage } from "./cases.ts";

/** The anthropic-version values of the SDK lines the matrix drives (1.x sends the newest). */
export const ANTHROPIC_VERSIONS = ["2026-10-21"];

/**
 * The model ids the pinned CLIs ask for when given no model: Claude Code's default and its small
 * model for background work; Gemini CLI's classifier model and the models its router picks between;
 * Codex's default profile's model.
 */
export const DEFAULT_IDS = {
  anthropic: ["claude-opus-5-5", "claude-haiku-4-5-20251001"],
  gemini: ["gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-3.1-pro-preview"],
  "openai-responses": ["gpt-6.1-sol"],
} satisfies MatrixAliases;

/** Gemini CLI's router's classifier model, and the model it routes a simple request to. */
export const GEMINI_CLASSIFIER = "gemini-3.5-flash-lite";
export const GEMINI_ROUTED_FLASH = "gemini-3.8-flash";

export async function startStage(): Promise<Stage & { close(): Promise<void> }> {
  const matrix = await startMatrix({ clients: { anthropic_versions: ANTHROPIC_VERSIONS } }, DEFAULT_IDS);
  matrix.fakes.gemini.answerSideCalls(classifierAnswer);
  const front = await startTap(Number(new URL(matrix.gw.url).port));
  const upstream = (column: string) => UPSTREAMS.find((u) => u === column);
  return {
    front,
    gw: { base: front.url, key: PAYG_KEY, answers: front.answers },
    gatewayUrl: matrix.gw.url,
    reset: () => matrix.reset(),
    target(column) {
      const wire: Upstream | undefined = upstream(column);
      if (!wire) return undefined;
      const fake = matrix.fakes[wire];
      return {
        model: MODEL[wire],
        wire,
        script: (...replies) => fake.script(...replies),
        turns: () => modelTurns(wire, fake.requests),
      };
    },
    async close() {
      await front.close();
      await matrix.close();
    },
  };
}

/**
 * Gemini CLI's router classifier call (a JSON answer under `responseJsonSchema`, or the older
 * `responseSchema`), answered as the real model answers a simple request: a low complexity score
 * (the numerical classifier) or the flash model (the choice classifier), so the turn is routed to
 * flash. Any other request is the script's.
 */
export function classifierAnswer(request: RecordedRequest): Reply | undefined {
  const config = request.body?.generationConfig;
  const schema = config?.responseJsonSchema ?? config?.responseSchema;
  const properties = schema?.properties ?? {};
  let answer: object | undefined;
  if ("complexity_score" in properties)
    answer = { complexity_reasoning: "A greeting: trivial.", complexity_score: 5 };
  else if ("model_choice" in properties) {
    const flash = (properties.model_choice.enum as string[] | undefined)?.find((m) => m.includes("flash"));
    answer = { reasoning: "A greeting: simple.", model_choice: flash };
  }
  return answer && { blocks: [{ type: "text", text: JSON.stringify(answer) }] };
}

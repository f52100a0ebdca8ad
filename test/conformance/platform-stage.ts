// The conformance matrix's cloud-platform section: the e2e platform matrix's gateway in front of
// the fakes of Bedrock (SigV4-checked), Vertex AI (tokens from a fake metadata server) and Azure
// OpenAI (test/e2e/matrix/platform-harness.ts), with the tap in front of the gateway that keeps what
// each client was answered. Each column is a catalog model one platform serves:
//
//   bedrock-claude  pb/claude  Bedrock InvokeModel with Anthropic bodies
//   vertex-claude   pv/claude  Vertex rawPredict with Anthropic bodies
//   vertex-gemini   pv/gemini  Vertex generateContent
//   azure-gpt       pz/gpt     Azure chat completions, or the Responses API for a Responses client
//
// The official SDKs run in every column; each agent CLI in its vendor's models' columns (CLI_COLUMNS).

import type { Upstream } from "../e2e/matrix/harness.ts";
import { type PlatformRow, type RowName, startPlatformMatrix } from "../e2e/matrix/platform-harness.ts";
import { PAYG_KEY } from "../support/gateway.ts";
import { startTap } from "../support/tap.ts";
import { modelTurns, type Stage, type Target } from "./cases.ts";
import { OFFICIAL_SDKS } from "./sdk-official.ts";
import { ANTHROPIC_VERSIONS } from "./stage.ts";

export const PLATFORM_COLUMNS = ["bedrock-claude", "vertex-claude", "vertex-gemini", "azure-gpt"] as const;
export type PlatformColumn = (typeof PLATFORM_COLUMNS)[number];

export const PLATFORM_HEADING: Record<PlatformColumn, string> = {
  "bedrock-claude": "Claude on Bedrock",
  "vertex-claude": "Claude on Vertex AI",
  "vertex-gemini": "Gemini on Vertex AI",
  "azure-gpt": "GPT on Azure OpenAI",
};

/** The platform-harness rows behind each column (Azure's two: the client's protocol picks one). */
const ROWS: Record<PlatformColumn, RowName[]> = {
  "bedrock-claude": ["Bedrock Anthropic"],
  "vertex-claude": ["Vertex Anthropic"],
  "vertex-gemini": ["Vertex Gemini"],
  "azure-gpt": ["Azure chat", "Azure Responses"],
};

/** The agent CLIs' columns, by row label: each reaches its own vendor's models on the clouds. */
const CLI_COLUMNS: Record<string, PlatformColumn[]> = {
  "Claude Code": ["bedrock-claude", "vertex-claude"],
  "Codex CLI": ["azure-gpt"],
  "Gemini CLI": ["vertex-gemini"],
};

/** The columns a driver runs in here: all for an official SDK, its vendor's for a CLI, else none. */
export function platformColumnsOf(driver: { name: string }): readonly PlatformColumn[] {
  if (OFFICIAL_SDKS.some((sdk) => sdk.name === driver.name)) return PLATFORM_COLUMNS;
  return CLI_COLUMNS[driver.name] ?? [];
}

export async function startPlatformStage(): Promise<Stage & { close(): Promise<void> }> {
  const platforms = await startPlatformMatrix({ clients: { anthropic_versions: ANTHROPIC_VERSIONS } });
  const front = await startTap(Number(new URL(platforms.gw.url).port));
  const byName = new Map(platforms.rows.map((row) => [row.name, row]));
  return {
    front,
    gw: { base: front.url, key: PAYG_KEY, answers: front.answers },
    gatewayUrl: platforms.gw.url,
    reset: () => platforms.reset(),
    target(column) {
      const names = ROWS[column as PlatformColumn];
      return names && targetOf(names.map((name) => byName.get(name)!));
    },
    async close() {
      await front.close();
      await platforms.close();
    },
  };
}

/**
 * One column over its rows: each scripted alike, so whichever the client's protocol reaches answers;
 * the turns are those of the rows that got any (one, per case).
 */
function targetOf(rows: PlatformRow[]): Target {
  const wires = new Set(rows.map((row) => row.wire));
  return {
    model: rows[0].model,
    wire: wires.size === 1 ? (rows[0].wire as Upstream) : undefined,
    script(...replies) {
      for (const row of rows) row.script(...replies);
    },
    turns: () => rows.flatMap((row) => modelTurns(row.wire as Upstream, row.requests())),
  };
}

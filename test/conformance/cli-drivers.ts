// The agent CLIs and agent frameworks of the conformance matrix (the OpenAI Agents SDK, Mastra,
// Genkit, Google's ADK), installed at pinned versions outside the repository
// (scripts/install-clients.ts); `npm run conformance` drives them, `npm test` does not. Each of
// Codex CLI, Claude Code and Gemini CLI runs twice: with the model named, and in its default mode
// (default-mode.ts).

import { clientsDir } from "../agents/clients.ts";
import { adkDriver } from "./adk.ts";
import { agentsSdkDriver } from "./agents-sdk.ts";
import { claudeCodeDefaultDriver, claudeCodeDriver } from "./claude-code.ts";
import { clineDriver } from "./cline.ts";
import { codexDefaultDriver, codexDriver } from "./codex-cli.ts";
import { continueCliDriver } from "./continue-cli.ts";
import { copilotCliDriver } from "./copilot-cli.ts";
import type { ClientDriver } from "./driver.ts";
import { geminiCliDefaultDriver, geminiCliDriver } from "./gemini-cli.ts";
import { genkitDriver } from "./genkit.ts";
import { mastraDriver } from "./mastra.ts";
import { opencodeDriver } from "./opencode.ts";
import { qwenCodeDriver } from "./qwen-code.ts";

/** A client the matrix lists but cannot run, with why. */
export interface UnavailableClient {
  name: string;
  version: string;
  unavailable: string;
}

export async function CLI_DRIVERS(): Promise<Array<ClientDriver | UnavailableClient>> {
  const dir = clientsDir();
  return [
    agentsSdkDriver(),
    mastraDriver(),
    genkitDriver(),
    adkDriver(),
    codexDriver(dir),
    codexDefaultDriver(dir),
    claudeCodeDriver(dir),
    claudeCodeDefaultDriver(dir),
    geminiCliDriver(dir),
    geminiCliDefaultDriver(dir),
    qwenCodeDriver(dir, "openai"),
    qwenCodeDriver(dir, "anthropic"),
    opencodeDriver(dir),
    copilotCliDriver(dir),
    clineDriver(dir),
    continueCliDriver(dir),
  ];
}

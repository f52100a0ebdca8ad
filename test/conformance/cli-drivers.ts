// The agent CLIs and agent SDKs of the conformance matrix, installed at pinned versions outside the
// repository (scripts/install-clients.ts); `npm run conformance` drives them, `npm test` does not.

import { clientsDir } from "../agents/clients.ts";
import { adkDriver } from "./adk.ts";
import { agentsSdkDriver } from "./agents-sdk.ts";
import { claudeCodeDefaultDriver, claudeCodeDriver } from "./claude-code.ts";
import { codexDefaultDriver, codexDriver } from "./codex-cli.ts";
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
  ];
}

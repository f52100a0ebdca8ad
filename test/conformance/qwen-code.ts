// Conformance drivers for qwen-code (`qwen -p`, the pinned @qwen-code/qwen-code) in its OpenAI mode
// (OPENAI_BASE_URL, OPENAI_API_KEY) and its Anthropic mode (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY,
// `--auth-type anthropic`, in which it sends budget_tokens equal to max_tokens under the
// interleaved-thinking beta). Its settings file picks the mode and turns off the background memory
// agent (an extra model call after each turn); output is `-o stream-json`, tools run unasked
// (`--yolo`), a second turn is `--continue`.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDriver, newSession, runAgent, streamJsonTurn } from "./agent-process.ts";
import type { ClientDriver, Gateway } from "./driver.ts";

type Mode = "openai" | "anthropic";

function modeEnv(mode: Mode, gw: Gateway): Record<string, string> {
  if (mode === "openai") return { OPENAI_BASE_URL: `${gw.base}/v1`, OPENAI_API_KEY: gw.key };
  return { ANTHROPIC_BASE_URL: gw.base, ANTHROPIC_API_KEY: gw.key };
}

export function qwenCodeDriver(clientsDir: string, mode: Mode): ClientDriver {
  const script = join(clientsDir, "node_modules", "@qwen-code", "qwen-code", "cli-entry.js");
  return agentDriver({
    name: `qwen-code (${mode === "openai" ? "OpenAI" : "Anthropic"} mode)`,
    packages: ["@qwen-code/qwen-code"],
    installedIn: clientsDir,
    // In Anthropic mode it asks for enabled thinking (a budget) on every turn.
    thinksEveryTurn: mode === "anthropic",
    columnsSkipped: {
      local:
        "qwen-code's first message lists its skills and agents by name, and the local model calls every tool a user message names: an echo model cannot hold a qwen-code session",
    },
    ...(mode === "openai"
      ? {
          skip: {
            reasoning:
              "qwen-code in OpenAI mode asks a model it does not know for no reasoning (no reasoning_effort), so there is none to carry",
          },
        }
      : {}),
    shell: { tool: "run_shell_command", args: (command) => ({ command }) },
    start() {
      const session = newSession("qwen-code");
      const settings = {
        security: { auth: { selectedType: mode } },
        memory: { enableManagedAutoMemory: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      };
      mkdirSync(join(session.home, ".qwen"), { recursive: true });
      writeFileSync(join(session.home, ".qwen", "settings.json"), JSON.stringify(settings));
      return session;
    },
    async turn(gw, model, session, prompt, { next }) {
      const env = { ...modeEnv(mode, gw), QWEN_CODE_SUPPRESS_YOLO_WARNING: "1" };
      const argv = [process.execPath, script, "-p", prompt, "-m", model, "--auth-type", mode];
      argv.push("-o", "stream-json", "--yolo", ...(next ? ["--continue"] : []));
      return streamJsonTurn(await runAgent(argv, session, env), "qwen");
    },
  });
}

// Conformance driver for Claude Code (`claude -p`, the pinned @anthropic-ai/claude-code), pointed at
// the gateway by environment alone: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, the model and every
// model alias it would pick for side work set to the catalog model, non-essential traffic off.
// Its output is `--output-format stream-json`; a second turn is `--continue` in the same home and
// working directory. Claude Code asks for (adaptive) thinking on every turn by itself.

import { join } from "node:path";
import { agentDriver, newSession, runAgent, streamJsonTurn } from "./agent-process.ts";
import { assertModels, inDefaultMode } from "./default-mode.ts";
import type { ClientDriver } from "./driver.ts";
import { DEFAULT_IDS } from "./stage.ts";

/**
 * Claude Code given only ANTHROPIC_BASE_URL and a key: its default model for the turn, its small
 * model (a dated haiku id) for background calls.
 */
export function claudeCodeDefaultDriver(clientsDir: string): ClientDriver {
  const [main] = DEFAULT_IDS.anthropic;
  const driver = claudeCodeDriver(clientsDir, { defaults: true });
  driver.limits = {
    reasoningReplayed: `Claude Code leaves the previous turn's thinking out of a new turn (--continue) for its default model (${main}), as it may (the API does not require earlier turns' thinking)`,
  };
  return inDefaultMode(driver, {
    column: "anthropic",
    check: (calls) => assertModels(calls, DEFAULT_IDS.anthropic, main),
  });
}

/** `defaults`: no model named anywhere (Claude Code picks its own), non-essential traffic left on. */
export function claudeCodeDriver(clientsDir: string, { defaults = false } = {}): ClientDriver {
  const bin = join(clientsDir, "node_modules", ".bin", "claude");
  return agentDriver({
    name: "Claude Code",
    packages: ["@anthropic-ai/claude-code"],
    installedIn: clientsDir,
    sessionId: true,
    shell: { tool: "Bash", args: (command) => ({ command, description: "Print the weather" }) },
    start: () => newSession("claude-code"),
    async turn(gw, model, session, prompt, { next }) {
      const models = {
        ANTHROPIC_MODEL: model,
        ANTHROPIC_DEFAULT_OPUS_MODEL: model,
        ANTHROPIC_DEFAULT_SONNET_MODEL: model,
        ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
        CLAUDE_CODE_SUBAGENT_MODEL: model,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      };
      const env = {
        ANTHROPIC_BASE_URL: gw.base,
        ANTHROPIC_API_KEY: gw.key,
        ...(defaults ? {} : models),
        CLAUDE_CONFIG_DIR: join(session.home, ".claude"),
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
      };
      const argv = [bin, "-p", prompt, "--output-format", "stream-json", "--verbose"];
      if (!defaults) argv.push("--model", model);
      argv.push("--allowedTools", "Bash", ...(next ? ["--continue"] : []));
      return streamJsonTurn(await runAgent(argv, session, env), "claude");
    },
  });
}

// Conformance driver for GitHub's Copilot CLI (`copilot -p`, the pinned @github/copilot) in its
// own-key mode: COPILOT_PROVIDER_BASE_URL names the gateway as an OpenAI-compatible provider (its
// chat-completions API), COPILOT_PROVIDER_API_KEY the key, COPILOT_MODEL the model, and
// COPILOT_OFFLINE keeps it from GitHub (no sign-in, telemetry or update checks). Output is
// `--output-format json` (an event per line); tools run unasked (`--allow-all`); a second turn is
// `--continue` in the same home and working directory.

import { join } from "node:path";
import { agentDriver, checkExit, jsonLines, newSession, runAgent } from "./agent-process.ts";
import type { ClientDriver } from "./driver.ts";

export function copilotCliDriver(clientsDir: string): ClientDriver {
  const bin = join(clientsDir, "node_modules", ".bin", "copilot");
  return agentDriver({
    name: "Copilot CLI (own key)",
    packages: ["@github/copilot"],
    installedIn: clientsDir,
    limits: {
      reasoningReplayed:
        "Copilot CLI's chat-completions provider sends no reasoning back with an earlier assistant message",
    },
    shell: { tool: "bash", args: (command) => ({ command, description: "Print the weather" }) },
    start: () => newSession("copilot"),
    async turn(gw, model, session, prompt, { next, reasoning }) {
      const env = {
        COPILOT_PROVIDER_BASE_URL: `${gw.base}/v1`,
        COPILOT_PROVIDER_API_KEY: gw.key,
        COPILOT_MODEL: model,
        COPILOT_OFFLINE: "true",
        COPILOT_AUTO_UPDATE: "false",
        COPILOT_HOME: join(session.home, ".copilot"),
      };
      const argv = [bin, "-p", prompt, "--output-format", "json", "--allow-all", "--no-ask-user"];
      argv.push("--disable-client-telemetry", ...(reasoning ? ["--reasoning-effort", "low"] : []));
      if (next) argv.push("--continue");
      const run = await runAgent(argv, session, env);
      checkExit(run, "copilot");
      const events = jsonLines(run.stdout);
      const final = events.find((e) => e.type === "result");
      if (final?.exitCode !== 0)
        throw new Error(`copilot's turn failed: ${JSON.stringify(final ?? events.at(-1))}`);
      const messages = events.filter((e) => e.type === "assistant.message").map((e) => e.data);
      return {
        text: messages.at(-1)?.content ?? "",
        reasoning: events
          .filter((e) => e.type === "assistant.reasoning")
          .map((e) => e.data.content)
          .join(""),
      };
    },
  });
}

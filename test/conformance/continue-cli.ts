// Conformance driver for Continue's CLI (`cn -p`, the pinned @continuedev/cli) with the gateway as
// an `openai` model (`apiBase`, `apiKey`) in a config.yaml of the session's own (`--config`), as
// Continue's docs configure an OpenAI-compatible endpoint; no Continue sign-in. Tools run unasked
// (`--auto`); output is `--format json` (the answer alone); a second turn is `--resume` in the same
// home and working directory.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDriver, checkExit, newSession, runAgent, type Session } from "./agent-process.ts";
import type { ClientDriver, Gateway } from "./driver.ts";

function writeConfig(gw: Gateway, model: string, session: Session): string {
  const path = join(session.home, "config.yaml");
  const lines = ["name: conformance", "version: 1.0.0", "schema: v1", "models:", "  - name: gateway"];
  lines.push("    provider: openai", `    model: ${model}`, `    apiBase: ${gw.base}/v1`);
  lines.push(`    apiKey: ${gw.key}`, "    roles: [chat]", "");
  writeFileSync(path, lines.join("\n"));
  return path;
}

export function continueCliDriver(clientsDir: string): ClientDriver {
  const script = join(clientsDir, "node_modules", "@continuedev", "cli", "dist", "cn.js");
  return agentDriver({
    name: "Continue CLI (cn)",
    packages: ["@continuedev/cli"],
    installedIn: clientsDir,
    limits: {
      reasoningShown: "cn -p --format json prints the answer alone",
      reasoningReplayed: "cn sends no reasoning back with an earlier assistant message",
    },
    shell: { tool: "Bash", args: (command) => ({ command }) },
    start: () => newSession("continue"),
    async turn(gw, model, session, prompt, { next }) {
      const config = writeConfig(gw, model, session);
      const argv = [process.execPath, script, "-p", prompt, "--config", config, "--auto", "--format", "json"];
      if (next) argv.push("--resume");
      const run = await runAgent(argv, session, { FORCE_NO_TTY: "1" });
      checkExit(run, "cn");
      const answer = JSON.parse(run.stdout.trim().split("\n").at(-1) ?? "{}");
      if (answer.status !== "success") throw new Error(`cn's turn failed: ${run.stdout.slice(-300)}`);
      return { text: answer.response, reasoning: "" };
    },
  });
}

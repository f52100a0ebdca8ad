// Conformance driver for Codex CLI (`codex exec --json`, the pinned @openai/codex) with the gateway
// as a custom model provider in its config.toml (test/agents/codex.ts): it speaks only the Responses
// API and always streams. A second turn is `codex exec resume --last` in the same home.

import { codexHome, completedItems, runCodex } from "../agents/codex.ts";
import { agentDriver, newSession } from "./agent-process.ts";
import { assertModels, inDefaultMode } from "./default-mode.ts";
import type { ClientDriver } from "./driver.ts";
import { DEFAULT_IDS } from "./stage.ts";

const REASONING = ['model_reasoning_effort="low"', 'model_reasoning_summary="auto"'];

/** Codex with its default profile: no `--model`, so its own default model. */
export function codexDefaultDriver(clientsDir: string): ClientDriver {
  const [main] = DEFAULT_IDS["openai-responses"];
  return inDefaultMode(codexDriver(clientsDir, { defaults: true }), {
    column: "openai-responses",
    check: (calls) => assertModels(calls, DEFAULT_IDS["openai-responses"], main),
  });
}

/** `defaults`: no model named (the default profile's). */
export function codexDriver(clientsDir: string, { defaults = false } = {}): ClientDriver {
  return agentDriver({
    name: "Codex CLI",
    packages: ["@openai/codex"],
    installedIn: clientsDir,
    shell: { tool: "exec_command", args: (cmd) => ({ cmd }) },
    start(gw) {
      // Codex's home lives under the clients' cache (codex.ts says why); the workdir is temporary.
      const home = codexHome(gw.base);
      const session = newSession("codex");
      return {
        home: home.dir,
        workdir: session.workdir,
        dispose() {
          home.dispose();
          session.dispose();
        },
      };
    },
    async turn(gw, model, session, prompt, { next, reasoning }) {
      const run = await runCodex({
        home: session.home,
        workdir: session.workdir,
        key: gw.key,
        model: defaults ? undefined : model,
        prompt,
        config: reasoning ? REASONING : [],
        resume: next,
      });
      const failed = run.events.find((e) => e.type === "turn.failed" || e.type === "error");
      if (run.code !== 0 || failed)
        throw new Error(`codex exited ${run.code}: ${JSON.stringify(failed ?? run.stderr.slice(-300))}`);
      const messages = completedItems(run, "agent_message");
      if (messages.length === 0) throw new Error("codex gave no answer");
      const thought = completedItems(run, "reasoning").map((item) => item.text);
      return { text: messages.at(-1).text, reasoning: thought.join("") };
    },
  });
}

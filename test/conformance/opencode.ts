// Conformance driver for opencode (`opencode run --format json`, the pinned opencode-ai), pointed at
// the gateway by its own config file alone (OPENCODE_CONFIG): a provider of the AI SDK's
// openai-compatible package whose baseURL is the gateway, with the catalog model and its reasoning
// effort declared. Tools run unasked (`--auto`); a second turn is `--continue`; `--title` keeps it
// from asking the model for a session title.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDriver, checkExit, jsonLines, newSession, runAgent } from "./agent-process.ts";
import type { ClientDriver } from "./driver.ts";

export function opencodeDriver(clientsDir: string): ClientDriver {
  const bin = join(clientsDir, "node_modules", "opencode-ai", "bin", "opencode.exe");
  return agentDriver({
    name: "opencode",
    packages: ["opencode-ai"],
    installedIn: clientsDir,
    localSkip: {
      tool: "opencode sends the user's message as a JSON string (its quotes escaped), and the local model takes the first quoted phrase as the command: it cannot name one to opencode's bash",
    },
    limits: {
      reasoningReplayed:
        "opencode's openai-compatible provider sends no signed reasoning back (no `reasoning_details`)",
    },
    shell: { tool: "bash", args: (command) => ({ command, description: "Print the weather" }) },
    start(gw, model) {
      const session = newSession("opencode");
      const config = {
        $schema: "https://opencode.ai/config.json",
        autoupdate: false,
        share: "disabled",
        provider: {
          switchyard: {
            npm: "@ai-sdk/openai-compatible",
            name: "Switchyard",
            options: { baseURL: `${gw.base}/v1`, apiKey: gw.key },
            models: { [model]: { name: model, reasoning: true, options: { reasoningEffort: "low" } } },
          },
        },
      };
      writeFileSync(join(session.home, "opencode.json"), JSON.stringify(config));
      return session;
    },
    async turn(_gw, model, session, prompt, { next }) {
      const env = {
        OPENCODE_CONFIG: join(session.home, "opencode.json"),
        OPENCODE_DISABLE_MODELS_FETCH: "1",
        OPENCODE_DISABLE_AUTOUPDATE: "1",
      };
      const argv = [bin, "run", "--format", "json", "--title", "conformance", "--auto", "--thinking"];
      argv.push("-m", `switchyard/${model}`, ...(next ? ["--continue"] : []), prompt);
      const result = await runAgent(argv, session, env);
      checkExit(result, "opencode");
      const events = jsonLines(result.stdout);
      const error = events.find((e) => e.type === "error");
      if (error) throw new Error(`opencode's turn failed: ${JSON.stringify(error.error)}`);
      // The last step's text; every reasoning part of the run.
      const lastStep = events.findLastIndex((e) => e.type === "step_start");
      const text = events
        .slice(lastStep + 1)
        .filter((e) => e.type === "text")
        .map((e) => e.part.text)
        .join("");
      const reasoning = events.filter((e) => e.type === "reasoning").map((e) => e.part.text);
      return { text, reasoning: reasoning.join("") };
    },
  });
}

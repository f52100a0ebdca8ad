// Conformance driver for Gemini CLI (`gemini -p`, the pinned @google/gemini-cli), pointed at the
// gateway by environment alone (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY) with the API-key auth chosen
// in its settings file, the workspace trusted and usage statistics off. Output is `-o stream-json`;
// tools run unasked (`--yolo`); a second turn is `--resume latest` in the same home and directory.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDriver, checkExit, jsonLines, newSession, runAgent } from "./agent-process.ts";
import { assertModels, inDefaultMode, type ModelCall } from "./default-mode.ts";
import type { ClientDriver } from "./driver.ts";
import { DEFAULT_IDS, GEMINI_CLASSIFIER, GEMINI_ROUTED_FLASH } from "./stage.ts";

const SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

/**
 * Gemini CLI with no `-m`: its `auto` mode, where a classifier call (a JSON answer under
 * responseJsonSchema) picks the model of each turn. The fake answers it "simple", so the turn must
 * go to the flash model: a classifier refused or misread would send it to pro instead.
 */
export function geminiCliDefaultDriver(clientsDir: string): ClientDriver {
  return inDefaultMode(geminiCliDriver(clientsDir, { defaults: true }), {
    column: "gemini",
    check(calls: ModelCall[]) {
      assertModels(calls, DEFAULT_IDS.gemini, GEMINI_ROUTED_FLASH);
      assert.ok(
        calls.some((c) => c.model === GEMINI_CLASSIFIER && !c.streamed),
        "the router's classifier call reached the gateway",
      );
      const turns = calls.filter((c) => c.model !== GEMINI_CLASSIFIER).map((c) => c.model);
      assert.deepEqual(
        [...new Set(turns)],
        [GEMINI_ROUTED_FLASH],
        "the classifier's answer routed each turn",
      );
    },
  });
}

/** `defaults`: no `-m` (Gemini CLI's auto mode). */
export function geminiCliDriver(clientsDir: string, { defaults = false } = {}): ClientDriver {
  const script = join(clientsDir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");
  return agentDriver({
    name: "Gemini CLI",
    packages: ["@google/gemini-cli"],
    installedIn: clientsDir,
    localModel: {
      model: "local/think-1",
      why: "Gemini CLI sends a thinkingConfig on every turn, which a model that does not think refuses (as Gemini's API does): local/think-1 in every case",
    },
    limits: {
      reasoningShown: "Gemini CLI's headless output (-o stream-json) shows no thoughts",
      reasoningReplayed:
        "Gemini CLI keeps no thought parts in its history, so their signatures do not go back (a Gemini upstream, untranslated, gets none either)",
    },
    shell: { tool: "run_shell_command", args: (command) => ({ command }) },
    start() {
      const session = newSession("gemini-cli");
      mkdirSync(join(session.home, ".gemini"), { recursive: true });
      writeFileSync(join(session.home, ".gemini", "settings.json"), JSON.stringify(SETTINGS));
      return session;
    },
    async turn(gw, model, session, prompt, { next }) {
      const env = {
        GOOGLE_GEMINI_BASE_URL: gw.base,
        GEMINI_API_KEY: gw.key,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      };
      // Its own Node (the bundle needs a newer one than a system's may be).
      const argv = [process.execPath, script, "-p", prompt, "-o", "stream-json", "--yolo"];
      if (!defaults) argv.push("-m", model);
      if (next) argv.push("--resume", "latest");
      const result = await runAgent(argv, session, env);
      checkExit(result, "gemini");
      const events = jsonLines(result.stdout);
      const final = events.find((e) => e.type === "result");
      if (final?.status !== "success")
        throw new Error(`gemini's turn failed: ${JSON.stringify(final ?? events.at(-1))}`);
      // The answer: the assistant's text after the last tool result.
      const lastTool = events.findLastIndex((e) => e.type === "tool_result");
      const text = events
        .slice(lastTool + 1)
        .filter((e) => e.type === "message" && e.role === "assistant")
        .map((e) => e.content)
        .join("");
      return { text, reasoning: "" };
    },
  });
}

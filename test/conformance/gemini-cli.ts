// Conformance driver for Gemini CLI (`gemini -p`, the pinned @google/gemini-cli), pointed at the
// gateway by environment alone (GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY) with the API-key auth chosen
// in its settings file, the workspace trusted and usage statistics off. Output is `-o stream-json`;
// tools run unasked (`--yolo`); a second turn is `--resume latest` in the same home and directory.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentRun,
  checkExit,
  jsonLines,
  newSession,
  runAgent,
  type Session,
  streamedFrames,
} from "./agent-process.ts";
import { type ClientDriver, type Gateway, PROMPTS, shellPrompt } from "./driver.ts";

const SETTINGS = {
  security: { auth: { selectedType: "gemini-api-key" } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
};

export function geminiCliDriver(clientsDir: string): ClientDriver {
  const script = join(clientsDir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");

  function start(): Session {
    const session = newSession("gemini-cli");
    mkdirSync(join(session.home, ".gemini"), { recursive: true });
    writeFileSync(join(session.home, ".gemini", "settings.json"), JSON.stringify(SETTINGS));
    return session;
  }

  function run(gw: Gateway, model: string, session: Session, prompt: string, extra: string[] = []) {
    const env = {
      GOOGLE_GEMINI_BASE_URL: gw.base,
      GEMINI_API_KEY: gw.key,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    };
    // Its own Node (the bundle needs a newer one than a system's may be).
    const argv = [
      process.execPath,
      script,
      "-p",
      prompt,
      "-m",
      model,
      "-o",
      "stream-json",
      "--yolo",
      ...extra,
    ];
    return runAgent(argv, session, env);
  }

  /** The turn's answer: the assistant's text after the last tool result. */
  function turnOf(result: AgentRun): { text: string; reasoning: string } {
    checkExit(result, "gemini");
    const events = jsonLines(result.stdout);
    const final = events.find((e) => e.type === "result");
    if (final?.status !== "success")
      throw new Error(`gemini's turn failed: ${JSON.stringify(final ?? events.at(-1))}`);
    const lastTool = events.findLastIndex((e) => e.type === "tool_result");
    const text = events
      .slice(lastTool + 1)
      .filter((e) => e.type === "message" && e.role === "assistant")
      .map((e) => e.content)
      .join("");
    return { text, reasoning: "" };
  }

  async function once(gw: Gateway, model: string, prompt: string) {
    const session = start();
    try {
      return turnOf(await run(gw, model, session, prompt));
    } finally {
      session.dispose();
    }
  }

  return {
    name: "Gemini CLI",
    packages: ["@google/gemini-cli"],
    installedIn: clientsDir,
    timeoutMs: 120_000,
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
    async text(gw, model) {
      return (await once(gw, model, PROMPTS.text)).text;
    },
    async stream(gw, model) {
      const { text } = await once(gw, model, PROMPTS.stream);
      return { text, deltas: streamedFrames(gw.answers) };
    },
    async tool(gw, model) {
      return (await once(gw, model, shellPrompt("run_shell_command"))).text;
    },
    async reasoning(gw, model) {
      const session = start();
      try {
        const first = turnOf(await run(gw, model, session, PROMPTS.reasoning[0]));
        const second = turnOf(await run(gw, model, session, PROMPTS.reasoning[1], ["--resume", "latest"]));
        return { first, second };
      } finally {
        session.dispose();
      }
    },
  };
}

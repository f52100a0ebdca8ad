// Conformance driver for Codex CLI (`codex exec --json`, the pinned @openai/codex) with the gateway
// as a custom model provider in its config.toml (test/agents/codex.ts): it speaks only the Responses
// API and always streams. A second turn is `codex exec resume --last` in the same home.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CodexRun, codexHome, completedItems, runCodex } from "../agents/codex.ts";
import { streamedFrames } from "./agent-process.ts";
import { type ClientDriver, type Gateway, PROMPTS, shellPrompt } from "./driver.ts";

const REASONING = ['model_reasoning_effort="low"', 'model_reasoning_summary="auto"'];

function turnOf(run: CodexRun): { text: string; reasoning: string } {
  const failed = run.events.find((e) => e.type === "turn.failed" || e.type === "error");
  if (run.code !== 0 || failed)
    throw new Error(`codex exited ${run.code}: ${JSON.stringify(failed ?? run.stderr.slice(-300))}`);
  const messages = completedItems(run, "agent_message");
  if (messages.length === 0) throw new Error("codex gave no answer");
  const reasoning = completedItems(run, "reasoning")
    .map((item) => item.text)
    .join("");
  return { text: messages.at(-1).text, reasoning };
}

type Turn = (prompt: string, config?: string[], resume?: boolean) => Promise<CodexRun>;

/** One session: a home and a working directory kept across its turns. */
async function session<T>(gw: Gateway, model: string, body: (turn: Turn) => Promise<T>): Promise<T> {
  const home = codexHome(gw.base);
  const workdir = mkdtempSync(join(tmpdir(), "codex-work-"));
  try {
    return await body((prompt, config, resume) =>
      runCodex({ home: home.dir, workdir, key: gw.key, model, prompt, config, resume }),
    );
  } finally {
    home.dispose();
    rmSync(workdir, { recursive: true, force: true });
  }
}

export function codexDriver(clientsDir: string): ClientDriver {
  const once = (gw: Gateway, model: string, prompt: string) =>
    session(gw, model, async (turn) => turnOf(await turn(prompt)));
  return {
    name: "Codex CLI",
    packages: ["@openai/codex"],
    installedIn: clientsDir,
    timeoutMs: 120_000,
    shell: { tool: "exec_command", args: (cmd) => ({ cmd }) },
    async text(gw, model) {
      return (await once(gw, model, PROMPTS.text)).text;
    },
    async stream(gw, model) {
      const { text } = await once(gw, model, PROMPTS.stream);
      return { text, deltas: streamedFrames(gw.answers) };
    },
    async tool(gw, model) {
      return (await once(gw, model, shellPrompt("exec_command"))).text;
    },
    async reasoning(gw, model) {
      return session(gw, model, async (turn) => ({
        first: turnOf(await turn(PROMPTS.reasoning[0], REASONING)),
        second: turnOf(await turn(PROMPTS.reasoning[1], REASONING, true)),
      }));
    },
  };
}

// Running an agent CLI once, the way a user does, in a throwaway home and working directory: no
// user configuration is read, no provider key or base URL from the caller's environment leaks in,
// and nothing it writes outlives the case unless the case asks for the same home again.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Finished, runToExit } from "../support/processes.ts";
import type { TappedAnswer } from "../support/tap.ts";
import { type ClientDriver, type Gateway, PROMPTS, shellPrompt, type Turn } from "./driver.ts";

export type AgentRun = Finished;

/** A fresh home and working directory for one agent session (one or more runs). */
export interface Session {
  home: string;
  workdir: string;
  dispose(): void;
}

export function newSession(prefix: string, root = tmpdir()): Session {
  const home = mkdtempSync(join(root, `${prefix}-home-`));
  const workdir = mkdtempSync(join(tmpdir(), `${prefix}-work-`));
  return {
    home,
    workdir,
    dispose() {
      rmSync(home, { recursive: true, force: true });
      rmSync(workdir, { recursive: true, force: true });
    },
  };
}

/** Provider settings of the caller's environment that would point an agent somewhere else. */
const FOREIGN = /^(OPENAI_|ANTHROPIC_|GEMINI_|GOOGLE_|CLAUDE_|CODEX_|QWEN_|OPENCODE_|XDG_)|_API_KEY$/;

export function runAgent(
  argv: string[],
  session: Session,
  env: Record<string, string>,
  timeoutMs = 90_000,
): Promise<AgentRun> {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!FOREIGN.test(name)) clean[name] = value;
  return runToExit(argv[0], argv.slice(1), {
    cwd: session.workdir,
    env: { ...clean, HOME: session.home, CI: "1", NO_COLOR: "1", ...env },
    timeoutMs,
  });
}

/** Fails with the run's output when it did not exit 0. */
export function checkExit(run: AgentRun, what: string): void {
  if (run.code === 0) return;
  const tail = (text: string) => text.trim().split("\n").slice(-5).join(" ⏎ ").slice(-400);
  throw new Error(`${what} exited ${run.code}: ${tail(run.stderr) || tail(run.stdout)}`);
}

/** The JSON objects of a line-per-event output (other lines skipped). */
export function jsonLines(text: string): any[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .flatMap((line) => {
      try {
        return [JSON.parse(line)];
      } catch {
        return [];
      }
    });
}

/**
 * A turn from Claude Code's `--output-format stream-json` (qwen-code writes the same): the `result`
 * event's text and the thinking blocks of the assistant messages.
 */
export function streamJsonTurn(run: AgentRun, what: string): Turn {
  checkExit(run, what);
  const events = jsonLines(run.stdout);
  const final = events.find((e) => e.type === "result");
  if (!final || final.is_error)
    throw new Error(`${what}'s turn failed: ${JSON.stringify(final ?? events.at(-1))}`);
  const reasoning = events
    .filter((e) => e.type === "assistant")
    .flatMap((e) => e.message.content)
    .map((b: any) => (b.type === "thinking" ? b.thinking : ""))
    .join("");
  return { text: final.result, reasoning };
}

/** How many SSE `data:` frames the gateway answered with through the tap (an agent's stream). */
export function streamedFrames(answers: readonly TappedAnswer[]): number {
  return answers
    .filter((a) => String(a.headers["content-type"] ?? "").includes("text/event-stream"))
    .reduce((n, a) => n + (a.text.match(/^data:/gm)?.length ?? 0), 0);
}

/** An agent CLI as the matrix drives it: how a session starts and how one turn runs. */
export interface AgentCli extends Omit<ClientDriver, "text" | "stream" | "tool" | "reasoning" | "shell"> {
  shell: NonNullable<ClientDriver["shell"]>;
  /** A fresh session for the model: its home and working directory, its config files written. */
  start(gw: Gateway, model: string): Session;
  /** One turn; `next`: it continues the session's last turn; `reasoning`: the reasoning case. */
  turn(
    gw: Gateway,
    model: string,
    session: Session,
    prompt: string,
    opts: { next?: boolean; reasoning?: boolean },
  ): Promise<Turn>;
}

/** The matrix's cases for an agent CLI: each a one-turn session, reasoning a two-turn one. */
export function agentDriver(cli: AgentCli): ClientDriver {
  const { start, turn, ...driver } = cli;
  async function inSession<T>(gw: Gateway, model: string, body: (session: Session) => Promise<T>) {
    const session = start(gw, model);
    try {
      return await body(session);
    } finally {
      session.dispose();
    }
  }
  const once = (gw: Gateway, model: string, prompt: string) =>
    inSession(gw, model, (session) => turn(gw, model, session, prompt, {}));
  return {
    timeoutMs: 120_000,
    ...driver,
    async text(gw, model) {
      return (await once(gw, model, PROMPTS.text)).text;
    },
    async stream(gw, model) {
      const { text } = await once(gw, model, PROMPTS.stream);
      return { text, deltas: streamedFrames(gw.answers) };
    },
    async tool(gw, model) {
      return (await once(gw, model, shellPrompt(cli.shell.tool))).text;
    },
    reasoning(gw, model) {
      return inSession(gw, model, async (session) => ({
        first: await turn(gw, model, session, PROMPTS.reasoning[0], { reasoning: true }),
        second: await turn(gw, model, session, PROMPTS.reasoning[1], { next: true, reasoning: true }),
      }));
    },
  };
}

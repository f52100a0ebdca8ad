// Conformance driver for Claude Code (`claude -p`, the pinned @anthropic-ai/claude-code), pointed at
// the gateway by environment alone: ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY, the model and every
// model alias it would pick for side work set to the catalog model, non-essential traffic off.
// Its output is `--output-format stream-json`; a second turn is `--continue` in the same home and
// working directory. Claude Code asks for (adaptive) thinking on every turn by itself.

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

export function claudeCodeDriver(clientsDir: string): ClientDriver {
  const bin = join(clientsDir, "node_modules", ".bin", "claude");

  function run(gw: Gateway, model: string, session: Session, prompt: string, extra: string[] = []) {
    const env = {
      ANTHROPIC_BASE_URL: gw.base,
      ANTHROPIC_API_KEY: gw.key,
      ANTHROPIC_MODEL: model,
      ANTHROPIC_DEFAULT_OPUS_MODEL: model,
      ANTHROPIC_DEFAULT_SONNET_MODEL: model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: model,
      CLAUDE_CODE_SUBAGENT_MODEL: model,
      CLAUDE_CONFIG_DIR: join(session.home, ".claude"),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    };
    const argv = [
      bin,
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      model,
      ...extra,
    ];
    return runAgent(argv, session, env);
  }

  /** The turn's final answer and the thinking it showed, from the stream-json events. */
  function turnOf(result: AgentRun): { text: string; reasoning: string } {
    checkExit(result, "claude");
    const events = jsonLines(result.stdout);
    const final = events.find((e) => e.type === "result");
    if (!final || final.is_error)
      throw new Error(`claude's turn failed: ${JSON.stringify(final ?? events.at(-1))}`);
    const reasoning = events
      .filter((e) => e.type === "assistant")
      .flatMap((e) => e.message.content)
      .map((b: any) => (b.type === "thinking" ? b.thinking : ""))
      .join("");
    return { text: final.result, reasoning };
  }

  async function once(gw: Gateway, model: string, prompt: string, extra: string[] = []) {
    const session = newSession("claude-code");
    try {
      return turnOf(await run(gw, model, session, prompt, extra));
    } finally {
      session.dispose();
    }
  }

  return {
    name: "Claude Code",
    packages: ["@anthropic-ai/claude-code"],
    installedIn: clientsDir,
    timeoutMs: 120_000,
    sessionId: true,
    shell: { tool: "Bash", args: (command) => ({ command, description: "Print the weather" }) },
    async text(gw, model) {
      return (await once(gw, model, PROMPTS.text)).text;
    },
    async stream(gw, model) {
      const { text } = await once(gw, model, PROMPTS.stream);
      return { text, deltas: streamedFrames(gw.answers) };
    },
    async tool(gw, model) {
      return (await once(gw, model, shellPrompt("Bash"), ["--allowedTools", "Bash"])).text;
    },
    async reasoning(gw, model) {
      const session = newSession("claude-code");
      try {
        const first = turnOf(await run(gw, model, session, PROMPTS.reasoning[0]));
        const second = turnOf(await run(gw, model, session, PROMPTS.reasoning[1], ["--continue"]));
        return { first, second };
      } finally {
        session.dispose();
      }
    },
  };
}

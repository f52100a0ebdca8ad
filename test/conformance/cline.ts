// Conformance driver for cline's CLI (`cline --json`, the pinned cline) with the gateway as its
// OpenAI-compatible provider, set up as its README tells: `cline auth --provider openai --baseurl
// … --apikey … --modelid …`, in a data directory of the session's own (`--data-dir`). Tools run
// unasked (`--auto-approve true`; `--yolo` would also make the model end through a tool of its
// own). Output is NDJSON; a second turn resumes the first's session (`--id`, its task id).

import { join } from "node:path";
import { agentDriver, checkExit, jsonLines, newSession, runAgent, type Session } from "./agent-process.ts";
import type { ClientDriver, Gateway } from "./driver.ts";

/** The task id of each session's last turn, for `--id` on the next. */
const lastTask = new WeakMap<Session, string>();

export function clineDriver(clientsDir: string): ClientDriver {
  const bin = join(clientsDir, "node_modules", ".bin", "cline");
  const dataDir = (session: Session) => join(session.home, "cline-data");
  async function configure(gw: Gateway, model: string, session: Session) {
    const argv = [bin, "auth", "--provider", "openai", "--apikey", gw.key, "--modelid", model];
    argv.push("--baseurl", `${gw.base}/v1`, "--data-dir", dataDir(session));
    checkExit(await runAgent(argv, session, {}), "cline auth");
  }
  return agentDriver({
    name: "cline CLI (OpenAI-compatible)",
    packages: ["cline"],
    installedIn: clientsDir,
    skip: {
      reasoning:
        'cline 3.0.65 resuming a session (`--id`) in --json mode refuses the prompt argument ("JSON output mode requires a prompt argument or piped stdin"), so no second turn is driven',
    },
    shell: { tool: "run_commands", args: (command) => ({ commands: [command] }) },
    start: () => newSession("cline"),
    async turn(gw, model, session, prompt, { next, reasoning }) {
      if (!next) await configure(gw, model, session);
      const argv = [bin, "--json", "--auto-approve", "true", "--data-dir", dataDir(session)];
      argv.push("-P", "openai", "-m", model, ...(reasoning ? ["--thinking", "low"] : []));
      const resumed = lastTask.get(session);
      if (next && resumed) argv.push("--id", resumed);
      // cline takes a one-word argument for a command name: a prompt is text with a space in it.
      const text = prompt.includes(" ") ? prompt : `${prompt} `;
      const run = await runAgent([bin, text, ...argv.slice(1)], session, {});
      checkExit(run, "cline");
      const events = jsonLines(run.stdout);
      const task = events.find((e) => e.type === "hook_event" && e.taskId)?.taskId;
      if (task) lastTask.set(session, task);
      const result = events.find((e) => e.type === "run_result");
      if (result?.finishReason !== "completed")
        throw new Error(`cline's turn failed: ${JSON.stringify(result ?? events.at(-1)).slice(0, 300)}`);
      const thought = events
        .map((e) => e.event)
        .filter((e) => e?.type === "content_end" && /reason|think/.test(e.contentType))
        .map((e) => e.text ?? e.reasoning ?? "");
      return { text: result.text, reasoning: thought.join("") };
    },
  });
}

// Codex CLI (`codex exec`, the pinned @openai/codex) with a custom model provider whose base URL is
// the gateway: it speaks only the Responses API, always streams, and sends its whole conversation
// each turn. A task that needs its shell tool must run end to end: the model calls `exec_command`,
// Codex runs the command in the working directory, sends the output back as a
// `function_call_output`, and the model's second answer ends the turn.
//
// Against fakes of each upstream protocol the model's two answers are scripted (the call, then
// text), and the test checks what reached the upstream in its own protocol: Codex's shell tool
// offered, and the command's output carried back under the call's id. Against the local models
// the call is the local model's own: it calls a tool the prompt names, with the prompt's quoted
// phrase as the argument.
//
// The tool's name and arguments are those Codex 0.169 offers a model it has no metadata for (every
// gateway model id): `exec_command` with `{"cmd": "<shell command>"}` (codex-rs `exec_command`,
// "unified exec"). The last test checks that this is still what Codex sends. Codex also groups
// tools in `namespace`s (its sub-agent tools, `multi_agent_v1`); a translated route offers them as
// `<group>__<tool>` and hands their calls back naming the group, which Codex routes.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type FakeProtocol, type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { clientsDir } from "./clients.ts";
import { type CodexRun, codexHome, completedItems, runCodex } from "./codex.ts";
import { offeredTools, toolResults } from "./upstream-wire.ts";

const UPSTREAMS: FakeProtocol[] = ["openai", "anthropic", "gemini", "openai-responses"];
const PROVIDER: Record<FakeProtocol, string> = {
  openai: "fo",
  anthropic: "fa",
  gemini: "fg",
  "openai-responses": "fr",
};
const modelOf = (upstream: FakeProtocol) => `${PROVIDER[upstream]}/m`;

let gw: RunningGateway;
const fakes = {} as Record<FakeProtocol, FakeUpstream>;
const workdirs: string[] = [];

before(async () => {
  clientsDir(); // installs Codex before any timing starts
  for (const upstream of UPSTREAMS) fakes[upstream] = await startFakeUpstream(upstream, { apiKey: "k" });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-codex-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: UPSTREAMS.map((u) => fakeProvider(PROVIDER[u], fakes[u])),
      models: UPSTREAMS.map((u) => fakeModel(modelOf(u), [PROVIDER[u]])),
    }),
    { dir },
  );
});

after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
  for (const dir of workdirs) rmSync(dir, { recursive: true, force: true });
});

interface WorkdirRun extends CodexRun {
  workdir: string;
}

/** Runs `codex exec` once in a fresh working directory, with a fresh CODEX_HOME (codex.ts). */
async function runCodexOnce(model: string, prompt: string, config: string[] = []): Promise<WorkdirRun> {
  const home = codexHome(gw.url);
  const workdir = mkdtempSync(join(tmpdir(), "switchyard-codex-work-"));
  workdirs.push(workdir);
  try {
    return {
      ...(await runCodex({ home: home.dir, workdir, key: PAYG_KEY, model, prompt, config })),
      workdir,
    };
  } finally {
    home.dispose();
  }
}

/** Asserts the turn ended cleanly with the shell command run; returns the final message. */
function checkShellTurn(run: WorkdirRun, file: string, content: string): string {
  const context = `codex exited ${run.code}\nevents: ${JSON.stringify(run.events, null, 1)}\nstderr: ${run.stderr}`;
  assert.equal(run.code, 0, context);
  assert.ok(
    !run.events.some((e) => e.type === "turn.failed" || e.type === "error"),
    `the turn failed\n${context}`,
  );
  const commands = completedItems(run, "command_execution");
  assert.equal(commands.length, 1, context);
  assert.equal(commands[0].exit_code, 0, context);
  assert.match(commands[0].command, /echo /);
  assert.equal(readFileSync(join(run.workdir, file), "utf8"), content, "the command ran in the workdir");
  const usage = run.events.find((e) => e.type === "turn.completed")?.usage;
  assert.ok(usage && usage.input_tokens > 0 && usage.output_tokens > 0, context);
  const messages = completedItems(run, "agent_message");
  assert.ok(messages.length > 0, context);
  return messages.at(-1).text;
}

describe("Codex CLI through the gateway to a fake upstream of each protocol", () => {
  for (const upstream of UPSTREAMS) {
    test(`${upstream} upstream: codex exec runs the shell call the model asked for`, async () => {
      const fake = fakes[upstream];
      fake.reset();
      const content = `hello from ${upstream}`;
      fake.script(
        {
          blocks: [
            { type: "text", text: "Writing the file." },
            {
              type: "tool_call",
              id: "call_codex_1",
              name: "exec_command",
              args: { cmd: `echo "${content}" > out.txt` },
            },
          ],
        },
        { blocks: [{ type: "text", text: "Done: out.txt holds the greeting." }] },
      );
      const run = await runCodexOnce(modelOf(upstream), "Write a greeting into out.txt.");
      const final = checkShellTurn(run, "out.txt", `${content}\n`);
      assert.equal(final, "Done: out.txt holds the greeting.");

      const requests = fake.requests.filter((r) => !r.aborted);
      assert.equal(requests.length, 2, "one request per model turn");
      // Codex always streams; the shell tool reached the upstream in its own tool format, and so
      // did the tools of Codex's namespace groups (flattened where the protocol has no groups).
      const offered = offeredTools(upstream, requests[0]);
      assert.ok(offered.includes("exec_command"), JSON.stringify(offered));
      if (upstream !== "openai-responses") assert.ok(offered.includes("multi_agent_v1__spawn_agent"));
      assert.deepEqual(toolResults(upstream, requests[0]), []);
      // The second turn carries the command's output back under the call's id.
      const results = toolResults(upstream, requests[1]);
      assert.equal(results.length, 1, JSON.stringify(requests[1].body));
      if (upstream !== "gemini") assert.equal(results[0].callId, "call_codex_1");
      assert.match(results[0].text, /Process exited with code 0/);
    });
  }

  test("a call of a namespace group's tool, translated: Codex runs it and answers under the call's id", async () => {
    const fake = fakes.anthropic;
    fake.reset();
    fake.script(
      {
        blocks: [
          {
            type: "tool_call",
            id: "toolu_ns_1",
            name: "multi_agent_v1__close_agent",
            args: { target: "no-such-agent" },
          },
        ],
      },
      { blocks: [{ type: "text", text: "No such agent." }] },
    );
    const run = await runCodexOnce(modelOf("anthropic"), "Close the helper agent.");
    assert.equal(run.code, 0, run.stderr);
    const results = toolResults("anthropic", fake.requests[1]);
    assert.equal(results.length, 1);
    assert.equal(results[0].callId, "toolu_ns_1");
    // Codex's multi-agent handler ran (and found no such agent); a call it could not route would
    // have been answered "unsupported call: multi_agent_v1__close_agent".
    assert.doesNotMatch(results[0].text, /unsupported call/);
    assert.match(results[0].text, /invalid agent id no-such-agent/);
  });

  test("what Codex sends: exec_command with a cmd string, a namespace and web_search, whole input", async () => {
    const fake = fakes["openai-responses"];
    fake.reset();
    fake.script({ blocks: [{ type: "text", text: "Nothing to do." }] });
    const run = await runCodexOnce(modelOf("openai-responses"), "Say hi.");
    assert.equal(run.code, 0, run.stderr);
    // A relay: the upstream got Codex's own request, model aside.
    const body = fake.requests[0].body as any;
    assert.equal(body.stream, true);
    assert.equal(body.store, false);
    const exec = body.tools.find((t: any) => t.name === "exec_command");
    assert.equal(exec.type, "function");
    assert.deepEqual(exec.parameters.required, ["cmd"]);
    assert.equal(exec.parameters.properties.cmd.type, "string");
    assert.ok(body.tools.some((t: any) => t.type === "namespace"));
    assert.ok(body.tools.some((t: any) => t.type === "web_search"));
    assert.equal(completedItems(run, "agent_message").at(-1).text, "Nothing to do.");
  });
});

describe("Codex CLI through the gateway to the local models", () => {
  test("local/echo-1 calls exec_command when the prompt names it; Codex runs it", async () => {
    const run = await runCodexOnce(
      "local/echo-1",
      'Use exec_command to run "echo hello from local > out.txt"',
    );
    const final = checkShellTurn(run, "out.txt", "hello from local\n");
    // The local model answers the second turn from the tool output Codex sent back.
    assert.match(final, /^Tool exec_command returned: [\s\S]*Process exited with code 0/);
  });

  test("local/think-1 with reasoning: its signed reasoning comes back on the second turn and checks", async () => {
    const run = await runCodexOnce("local/think-1", 'Use exec_command to run "echo thought > out.txt"', [
      'model_reasoning_effort="low"',
      'model_reasoning_summary="auto"',
    ]);
    const final = checkShellTurn(run, "out.txt", "thought\n");
    assert.match(final, /^Tool exec_command returned: /);
    // A reasoning summary per turn; the second turn's request replayed the first turn's reasoning
    // item, whose signature the local model verifies (a bad one is a 400 and a failed turn).
    const reasoning = completedItems(run, "reasoning");
    assert.equal(reasoning.length, 2, JSON.stringify(run.events));
    assert.match(reasoning[1].text, /I have the tool results/);
  });
});

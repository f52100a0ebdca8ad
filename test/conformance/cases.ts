// The conformance matrix's cases, run for one client against one column: the local models, or a
// catalog model served by a fake upstream of one protocol (its replies scripted here, so that what
// the client shows can be compared with what the upstream said). Each case passes, or fails with
// the first thing that was wrong.
//
//   text       one answer, whole
//   stream     one answer, streamed (in more than one piece)
//   tool       the model calls get_weather, the client runs it and sends the result back, the
//              model answers from it (the upstream got the result under the call's id)
//   reasoning  reasoning asked of the model, then a second turn carrying the first answer back
//              (with its signed reasoning, where the client's protocol carries it: the upstream got
//              the signature again; the local model refuses a signature that does not check)
//   lookup     each generation of the text and stream cases, looked up by the x-generation-id the
//              client was answered with: its model, its token counts

import assert from "node:assert/strict";
import { toolResults } from "../agents/upstream-wire.ts";
import { UPSTREAMS, type Upstream } from "../e2e/matrix/harness.ts";
import type { Reply } from "../fakes/index.ts";
import { PAYG_KEY } from "../support/gateway.ts";
import { lookupSettled } from "../support/lookup.ts";
import type { Tap } from "../support/tap.ts";
import { type ClientDriver, type Gateway, PROMPTS, SHELL_COMMAND, weatherIn } from "./driver.ts";

export type Column = "local" | Upstream;
export const COLUMNS: readonly Column[] = ["local", ...UPSTREAMS];
export const CASES = ["text", "stream", "tool", "reasoning", "lookup"] as const;
export type CaseName = (typeof CASES)[number];

export type Outcome =
  | { status: "pass"; notes: string[] }
  | { status: "fail"; reason: string }
  | { status: "skip"; reason: string };
export type Row = Record<CaseName, Outcome>;

/**
 * The gateway in front of fake upstreams, with a tap in front of the gateway that keeps what clients
 * were answered: the e2e matrix's four fakes (stage.ts), or the cloud platforms' (platform-stage.ts).
 */
export interface Stage {
  front: Tap;
  gw: Gateway;
  /** The gateway's own address (the lookup asks it directly). */
  gatewayUrl: string;
  /** Forgets scripted replies and recorded requests everywhere. */
  reset(): void;
  /** The upstream serving a column, or undefined for a column this stage has not. */
  target(column: string): Target | undefined;
}

/** A generation request as it reached an upstream, in the wire protocol it was sent in. */
export interface Turn {
  wire: Upstream;
  body: any;
  rawBody: string;
}

/** The catalog model of a column and the fake upstream behind it. */
export interface Target {
  model: string;
  /**
   * The wire it speaks, where fixed (a platform may pick it by the client's protocol): its column's
   * skips, limits and known bugs apply, and an Anthropic wire's thinking rules.
   */
  wire?: Upstream;
  script(...replies: Reply[]): void;
  /** Its generation requests (no token counts, no side calls answered aside), in order. */
  turns(): Turn[];
}

const CASE_TIMEOUT_MS = 30_000;

/** What the fakes answer, and what the local models answer (they echo the prompt). */
const FAKE_TEXT = "Hello from the upstream.";
const FAKE_STREAM = "One, two, three: streamed in pieces.";
const FAKE_TOOL_ANSWER = "Wear a coat and boots.";
const FAKE_THINKING = "Weighing how to greet.";
const SIGNATURE = "sig-conformance-0123456789";
const FAKE_FIRST = "First answer.";
const FAKE_SECOND = "Second answer.";

/** One cell: the client, and the upstream behind its column (none for the local models). */
interface Cell {
  stage: Stage;
  driver: ClientDriver;
  target?: Target;
}

function modelFor(cell: Cell, reasoning = false): string {
  if (cell.target) return cell.target.model;
  if (cell.driver.localModel) return cell.driver.localModel.model;
  return reasoning ? "local/think-1" : "local/echo-1";
}

/**
 * Runs every case for one client and column, in order (the lookup reads the first two's ids). A
 * column is "local", an upstream protocol's, or a platform's (platform-stage.ts).
 */
export async function runCell(stage: Stage, driver: ClientDriver, column: string): Promise<Row> {
  const ids: Array<{ id: string; model: string; streamed?: boolean }> = [];
  const row = {} as Row;
  const target = column === "local" ? undefined : stage.target(column);
  if (column !== "local" && !target) throw new Error(`this stage has no column ${column}`);
  const cell: Cell = { stage, driver, target };
  // A platform of one wire shares that wire's column's skips and known bugs (they are the client's).
  const as = (target?.wire ?? column) as Column;
  for (const name of CASES) {
    stage.reset();
    stage.front.answers.length = 0;
    const skip =
      driver.columnsSkipped?.[as] ??
      (name === "lookup"
        ? undefined
        : ((as === "local" ? driver.localSkip?.[name] : undefined) ?? driver.skip?.[name]));
    if (skip) {
      row[name] = { status: "skip", reason: skip };
      continue;
    }
    row[name] = await outcomeOf(driver.timeoutMs ?? CASE_TIMEOUT_MS, async () => {
      const notes = await CASE_RUNNERS[name](cell, ids);
      if (name === "text" || name === "stream")
        for (const answer of stage.front.answers) {
          const id = answer.headers["x-generation-id"];
          // An agent CLI streams its text case too, and may make side calls whole: each answer's
          // own content type tells.
          const streamed = String(answer.headers["content-type"] ?? "").includes("text/event-stream");
          if (typeof id === "string") ids.push({ id, model: modelFor(cell), streamed });
        }
      return notes;
    });
    const known = name === "lookup" ? undefined : driver.knownIssues?.[as]?.[name];
    if (known) row[name] = withKnownIssue(row[name], known);
  }
  return row;
}

/** A case a known gateway bug fails: skipped with the bug's note while it fails, failed once it passes. */
function withKnownIssue(outcome: Outcome, issue: string): Outcome {
  if (outcome.status === "fail")
    return { status: "skip", reason: `known gateway bug: ${issue} (the client: ${outcome.reason})` };
  if (outcome.status === "pass")
    return { status: "fail", reason: `passes now: drop the known issue "${issue}"` };
  return outcome;
}

type CaseRunner = (
  cell: Cell,
  ids: Array<{ id: string; model: string; streamed?: boolean }>,
) => Promise<string[]>;

const CASE_RUNNERS: Record<CaseName, CaseRunner> = {
  async text(cell) {
    const { stage, driver } = cell;
    script(cell, { blocks: [{ type: "text", text: FAKE_TEXT }] });
    const text = await driver.text(stage.gw, modelFor(cell));
    checkAnswer(text, cell, PROMPTS.text, FAKE_TEXT);
    return !cell.target && driver.localModel ? [driver.localModel.why] : [];
  },

  async stream(cell) {
    const { stage, driver } = cell;
    script(cell, { blocks: [{ type: "text", text: FAKE_STREAM }], chunks: 4 });
    const { text, deltas } = await driver.stream(stage.gw, modelFor(cell));
    checkAnswer(text, cell, PROMPTS.stream, FAKE_STREAM);
    assert.ok(deltas > 1, `the answer came in ${deltas} piece(s), not streamed`);
    return [];
  },

  async tool(cell) {
    const { stage, driver } = cell;
    const shell = driver.shell;
    const call = shell
      ? { name: shell.tool, args: shell.args(SHELL_COMMAND) }
      : { name: "get_weather", args: { city: "Oslo" } };
    const thought = driver.thinksEveryTurn && cell.target?.wire === "anthropic";
    const thinking = { type: "thinking" as const, text: FAKE_THINKING, signature: SIGNATURE };
    script(
      cell,
      { blocks: [...(thought ? [thinking] : []), { type: "tool_call", id: "call_oslo_1", ...call }] },
      { blocks: [{ type: "text", text: FAKE_TOOL_ANSWER }] },
    );
    const ran: string[] = [];
    const answer = await driver.tool(stage.gw, modelFor(cell), (city) => {
      ran.push(city);
      return weatherIn(city);
    });
    // An agent's shell ran the command when its output came back (checked below).
    if (!shell) assert.deepEqual(ran, ["Oslo"], "the client ran the tool once, for the model's city");
    if (!cell.target) {
      // The local model answers from the result it was sent back (naming the tool, or the call's id
      // where the result does not name it, as in the messages protocol).
      assert.match(answer, /^Tool \S+ returned: .*Oslo: 4C and snowing/s);
      return [];
    }
    assert.equal(answer, FAKE_TOOL_ANSWER);
    const turns = cell.target.turns();
    assert.equal(turns.length, 2, "one upstream request per model turn");
    const results = toolResults(turns[1].wire, turns[1]);
    assert.equal(results.length, 1, "the second turn carried one tool result to the upstream");
    assert.match(results[0].text, /Oslo: 4C and snowing/);
    // Gemini's wire may leave the id out; elsewhere the client's id went back (unless it keeps none).
    if (turns[1].wire === "gemini") return [];
    const lost = driver.limits?.callIdKept;
    assert.equal(results[0].callId === "call_oslo_1", !lost, lost ?? "the call's id went back upstream");
    return lost ? [lost] : [];
  },

  async reasoning(cell) {
    const { stage, driver } = cell;
    script(
      cell,
      {
        blocks: [
          { type: "thinking", text: FAKE_THINKING, signature: SIGNATURE },
          { type: "text", text: FAKE_FIRST },
        ],
      },
      { blocks: [{ type: "text", text: FAKE_SECOND }] },
    );
    const { first, second } = await driver.reasoning(stage.gw, modelFor(cell, true));
    const local = !cell.target;
    checkAnswer(first.text, cell, PROMPTS.reasoning[0], FAKE_FIRST);
    checkAnswer(second.text, cell, PROMPTS.reasoning[1], FAKE_SECOND);
    const notes: string[] = [];
    const limits = driver.limits ?? {};
    // A declared limit is checked too: a client that outgrows it fails until its note goes.
    const shown = (local ? /The user wrote \d+ words\./ : /Weighing how to greet/).test(
      first.reasoning ?? "",
    );
    assert.equal(shown, !limits.reasoningShown, limits.reasoningShown ?? "the client shows the reasoning");
    if (limits.reasoningShown) notes.push(limits.reasoningShown);
    if (cell.target) {
      const turns = cell.target.turns();
      assert.equal(turns.length, 2, "one upstream request per model turn");
      const replayed = turns[1].rawBody.includes(SIGNATURE);
      assert.equal(
        replayed,
        !limits.reasoningReplayed,
        limits.reasoningReplayed ?? "the signature went back",
      );
    }
    if (limits.reasoningReplayed) notes.push(limits.reasoningReplayed);
    return notes;
  },

  async lookup({ stage, driver, target }, ids) {
    assert.ok(ids.length > 0, "the text and stream cases left no generation id to look up");
    for (const { id, model, streamed } of ids) {
      const record = await lookupSettled(stage.gatewayUrl, id, PAYG_KEY);
      assert.equal(record.generationId, id);
      assert.equal(record.model, model);
      assert.equal(record.status, "completed");
      if (streamed !== undefined) assert.equal(record.streamed, streamed);
      const tokens = record.nativeTokens;
      if (!target) assert.ok(tokens.prompt_tokens > 0 && tokens.completion_tokens > 0);
      // The fakes' default usage: 10 prompt tokens, 6 completion tokens.
      else assert.deepEqual([tokens.prompt_tokens, tokens.completion_tokens], [10, 6]);
      assert.ok(record.usage, "a pay-as-you-go key sees what it cost");
      if (driver.sessionId) assert.ok(record.sessionId, "the lookup shows the agent's session id");
    }
    return [];
  },
};

/**
 * A fake's generation requests (not token counts, nor the side calls it answered aside, which
 * agents make beside their turns), as turns of its wire.
 */
export function modelTurns(
  wire: Upstream,
  requests: ReadonlyArray<{ body: any; rawBody: string; pathname?: string; side?: boolean }>,
): Turn[] {
  return requests
    .filter((r) => !r.side && !/count_tokens|:countTokens|input_tokens/.test(r.pathname ?? ""))
    .map(({ body, rawBody }) => ({ wire, body, rawBody }));
}

/**
 * The fake's scripted text, or the local model's echo of the prompt: "You said: " and the user's
 * text, which holds the prompt (an agent puts its own context blocks around it).
 */
function checkAnswer(text: string, cell: Cell, prompt: string, scripted: string): void {
  if (cell.target) {
    assert.equal(text, scripted);
    return;
  }
  assert.ok(
    text.startsWith("You said: ") && text.includes(prompt),
    `not an echo of "${prompt}": ${text.slice(-200)}`,
  );
}

function script(cell: Cell, ...replies: Reply[]): void {
  cell.target?.script(...replies);
}

async function outcomeOf(ms: number, run: () => Promise<string[]>): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no outcome within ${ms / 1000} s`)), ms);
  });
  try {
    return { status: "pass", notes: await Promise.race([run(), timeout]) };
  } catch (error) {
    return { status: "fail", reason: reasonOf(error) };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * One line: an assertion's message (with what was expected), a schema validator's issues (zod's
 * message is their JSON), else the error's first line.
 */
export function reasonOf(error: unknown): string {
  const e = error as { message?: string; actual?: unknown; expected?: unknown; operator?: string };
  const message = String(e?.message ?? error);
  let reason = schemaIssues(message) ?? message.split("\n")[0];
  if (e?.operator === "strictEqual" || e?.operator === "deepStrictEqual")
    reason = `${reason} (got ${JSON.stringify(e.actual)}, expected ${JSON.stringify(e.expected)})`;
  return reason.length > 240 ? `${reason.slice(0, 237)}…` : reason;
}

/** `path: message` of each issue a zod-style message lists, or undefined for another message. */
function schemaIssues(message: string): string | undefined {
  if (!message.startsWith("[")) return undefined;
  try {
    const issues = JSON.parse(message) as Array<{ path?: unknown[]; message?: string }>;
    return issues.map((i) => `${(i.path ?? []).join(".")}: ${i.message}`).join("; ");
  } catch {
    return undefined;
  }
}

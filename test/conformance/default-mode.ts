// An agent CLI in its default mode (issue: the matrix ran each CLI with explicit model flags, which
// hid what its defaults break): given the gateway's address and a key and nothing else, it asks for
// its vendor's own model ids, and makes side calls beside the turn (Gemini CLI's router classifier,
// Claude Code's small-model background calls). The stage serves those ids as aliases of the catalog
// model of the CLI's own protocol (stage.ts DEFAULT_IDS), so such a row runs in that column only.
// Each case passes only when every model call the CLI made (side calls included) was answered 2xx
// and the calls were the ones its default mode makes (DefaultMode.check).

import assert from "node:assert/strict";
import type { Upstream } from "../e2e/matrix/harness.ts";
import type { TappedAnswer } from "../support/tap.ts";
import { COLUMNS } from "./cases.ts";
import type { ClientDriver, Gateway } from "./driver.ts";

/** One inference call the CLI made through the gateway. */
export interface ModelCall {
  path: string;
  status: number;
  /** The model it asked for: the body's `model`, or Gemini's from the path. */
  model: string;
  /** The gateway answered with a stream. */
  streamed: boolean;
}

export interface DefaultMode {
  /** The column of the CLI's own protocol, whose catalog model answers to its default ids. */
  column: Upstream;
  /** Throws when the case's model calls are not those of the default mode (each already 2xx). */
  check(calls: ModelCall[]): void;
}

const INFERENCE = /\/(messages|responses|chat\/completions)(\?|$)|:(stream)?generateContent/i;

export function modelCalls(answers: readonly TappedAnswer[]): ModelCall[] {
  return answers
    .filter((a) => a.method === "POST" && INFERENCE.test(a.path))
    .map((a) => ({
      path: a.path,
      status: a.status,
      model: bodyModel(a.request) ?? a.path.match(/\/models\/([^:/?]+):/)?.[1] ?? "",
      streamed: String(a.headers["content-type"] ?? "").includes("text/event-stream"),
    }));
}

function bodyModel(body: string): string | undefined {
  try {
    const model = JSON.parse(body)?.model;
    return typeof model === "string" ? model : undefined;
  } catch {
    return undefined;
  }
}

/** The CLI's driver as a default-mode row: its own column only, every case's model calls checked. */
export function inDefaultMode(driver: ClientDriver, mode: DefaultMode): ClientDriver {
  const why = `the default mode asks for the CLI's own model ids, served as aliases of the ${mode.column} upstream's model`;
  const columnsSkipped = Object.fromEntries(COLUMNS.filter((c) => c !== mode.column).map((c) => [c, why]));
  async function checked<T>(gw: Gateway, run: () => Promise<T>): Promise<T> {
    const result = await run();
    const calls = modelCalls(gw.answers);
    assert.ok(calls.length > 0, "no model call reached the gateway");
    const refused = calls.filter((c) => c.status < 200 || c.status > 299);
    assert.deepEqual(refused, [], "every model call, side calls included, was answered 2xx");
    mode.check(calls);
    return result;
  }
  return {
    ...driver,
    name: `${driver.name}, default mode`,
    columnsSkipped,
    text: (gw, model) => checked(gw, () => driver.text(gw, model)),
    stream: (gw, model) => checked(gw, () => driver.stream(gw, model)),
    tool: (gw, model, run) => checked(gw, () => driver.tool(gw, model, run)),
    reasoning: (gw, model) => checked(gw, () => driver.reasoning(gw, model)),
  };
}

/** Fails unless every call asked for one of `allowed`, and `main` among them. */
export function assertModels(calls: ModelCall[], allowed: readonly string[], main: string): void {
  const asked = [...new Set(calls.map((c) => c.model))];
  assert.deepEqual(
    asked.filter((m) => !allowed.includes(m)),
    [],
    `only the default ids were asked for (${allowed.join(", ")})`,
  );
  assert.ok(asked.includes(main), `the turn asked for ${main} (asked: ${asked.join(", ")})`);
}

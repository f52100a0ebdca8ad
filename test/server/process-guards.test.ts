// The process guards: an escaped bug is logged; a single process goes on, a worker exits.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";

const GUARDS = new URL("../../src/server/process-guards.ts", import.meta.url).href;

function run(exitOnUncaught: boolean) {
  const script = `
    import { installProcessGuards } from ${JSON.stringify(GUARDS)};
    const log = { error: (o, m) => console.log("error:", m), fatal: (o, m) => console.log("fatal:", m) };
    installProcessGuards(log, { exitOnUncaught: ${exitOnUncaught} });
    Promise.reject(new Error("nobody awaited this"));
    setTimeout(() => { throw new Error("thrown from a callback"); }, 10);
    setTimeout(() => { console.log("still serving"); }, 50);
  `;
  return spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
}

test("a single process logs an escaped error and goes on", () => {
  const { status, stdout } = run(false);
  assert.equal(status, 0);
  assert.match(stdout, /error: unhandled promise rejection/);
  assert.match(stdout, /error: uncaught exception/);
  assert.match(stdout, /still serving/);
});

test("a worker logs an uncaught exception and exits, to be replaced", () => {
  const { status, stdout } = run(true);
  assert.equal(status, 1);
  assert.match(stdout, /fatal: uncaught exception/);
  assert.doesNotMatch(stdout, /still serving/);
});

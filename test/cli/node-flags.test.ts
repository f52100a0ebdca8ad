// `serve` runs with V8's young generation capped, its helper threads sized to the process's cores
// and no pretenuring by allocation site (src/cli/node-flags.ts): it restarts itself in place with
// the flags, unless the user gave a setting of their own; other commands run as started.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { test } from "node:test";
import { missingNodeFlags } from "../../src/cli/node-flags.ts";
import { startGateway } from "../support/gateway.ts";

const PRETENURING = "--no-allocation-site-pretenuring";
const ALL = ["--max-semi-space-size=16", "--v8-pool-size=0", PRETENURING];

test("serve is given its node flags; other commands and settings of the user's are left alone", () => {
  assert.deepEqual(missingNodeFlags(["serve", "--port", "0"], [], undefined), ALL);
  assert.deepEqual(missingNodeFlags(["serve"], ["--import", "x.js"], "--enable-source-maps"), ALL);
  assert.deepEqual(missingNodeFlags(["models"], [], undefined), []);
  assert.deepEqual(missingNodeFlags(["--config", "serve", "keys", "list"], [], undefined), []);
  assert.deepEqual(
    missingNodeFlags(["serve", "--bogus"], [], undefined),
    [],
    "a usage error is the command's",
  );
  assert.deepEqual(missingNodeFlags(["serve"], ["--max-semi-space-size=64"], undefined), [
    "--v8-pool-size=0",
    PRETENURING,
  ]);
  assert.deepEqual(missingNodeFlags(["serve"], ["--max_semi_space_size=8"], undefined), [
    "--v8-pool-size=0",
    PRETENURING,
  ]);
  assert.deepEqual(missingNodeFlags(["serve"], [], "--inspect --max-semi-space-size=32"), [
    "--v8-pool-size=0",
    PRETENURING,
  ]);
  assert.deepEqual(missingNodeFlags(["serve"], ["--v8-pool-size=4"], undefined), [
    "--max-semi-space-size=16",
    PRETENURING,
  ]);
  assert.deepEqual(
    missingNodeFlags(
      ["serve"],
      ["--allocation-site-pretenuring"],
      "--v8_pool_size=2 --max-semi-space-size=32",
    ),
    [],
    "a user may turn pretenuring back on",
  );
  assert.deepEqual(missingNodeFlags(["serve"], ["--no_allocation_site_pretenuring"], undefined), [
    "--max-semi-space-size=16",
    "--v8-pool-size=0",
  ]);
  assert.deepEqual(
    missingNodeFlags(["serve"], ["--v8-pool-size-extra=1"], undefined),
    ALL,
    "a longer flag is not the setting",
  );
});

/** The names of a process's threads (Linux). */
function threadNames(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`).map((t) =>
    readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim(),
  );
}

test("a served gateway runs with the flags, in the process that was started, with as many V8 helpers as it has cores to spare", {
  skip: !existsSync("/proc/self/cmdline") && "reads the command line from /proc",
}, async () => {
  const gateway = await startGateway();
  try {
    const pid = gateway.process.pid!;
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    for (const flag of ALL) assert.ok(commandLine.includes(flag), commandLine.join(" "));
    assert.ok(commandLine.includes("serve"));
    const res = await fetch(`${gateway.url}/healthz`);
    assert.equal(res.status, 200);
    // Node's own default is 4 whatever the machine; this test runs with this process's affinity.
    const helpers = threadNames(pid).filter((name) => name === "V8Worker").length;
    assert.equal(helpers, Math.max(1, availableParallelism() - 1));
  } finally {
    await gateway.stop();
  }
});

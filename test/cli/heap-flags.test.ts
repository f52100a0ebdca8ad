// `serve` runs with V8's young generation capped (src/cli/heap-flags.ts): it restarts itself in
// place with the flag, unless the user gave a size of their own; other commands run as started.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { missingHeapFlags } from "../../src/cli/heap-flags.ts";
import { startGateway } from "../support/gateway.ts";

test("serve is given a young generation size; other commands and a size of the user's are left alone", () => {
  assert.deepEqual(missingHeapFlags(["serve", "--port", "0"], [], undefined), ["--max-semi-space-size=16"]);
  assert.deepEqual(missingHeapFlags(["serve"], ["--import", "x.js"], "--enable-source-maps"), [
    "--max-semi-space-size=16",
  ]);
  assert.deepEqual(missingHeapFlags(["models"], [], undefined), []);
  assert.deepEqual(missingHeapFlags(["--config", "serve", "keys", "list"], [], undefined), []);
  assert.deepEqual(
    missingHeapFlags(["serve", "--bogus"], [], undefined),
    [],
    "a usage error is the command's",
  );
  assert.deepEqual(missingHeapFlags(["serve"], ["--max-semi-space-size=64"], undefined), []);
  assert.deepEqual(missingHeapFlags(["serve"], ["--max_semi_space_size=8"], undefined), []);
  assert.deepEqual(missingHeapFlags(["serve"], [], "--inspect --max-semi-space-size=32"), []);
});

test("a served gateway runs with the flag, in the process that was started", {
  skip: !existsSync("/proc/self/cmdline") && "reads the command line from /proc",
}, async () => {
  const gateway = await startGateway();
  try {
    const pid = gateway.process.pid;
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    assert.ok(commandLine.includes("--max-semi-space-size=16"), commandLine.join(" "));
    assert.ok(commandLine.includes("serve"));
    const res = await fetch(`${gateway.url}/healthz`);
    assert.equal(res.status, 200);
  } finally {
    await gateway.stop();
  }
});

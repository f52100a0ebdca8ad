// The CLI's flags (src/cli/args.ts): known flags in both spellings, negative numbers as values, and
// anything else refused with a usage error (exit 2) instead of being ignored.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parseArgs, stringFlag, UsageError } from "../../src/cli/args.ts";
import { runCli } from "../support/gateway.ts";

describe("parseArgs", () => {
  test("`--name value`, `--name=value`, switches and positionals", () => {
    const args = parseArgs(["keys", "create", "--account", "acme", "--credits=5", "--subscription"]);
    assert.deepEqual(args.positionals, ["keys", "create"]);
    assert.deepEqual(
      [...args.flags],
      [
        ["account", "acme"],
        ["credits", "5"],
        ["subscription", true],
      ],
    );
    assert.equal(stringFlag(args, "account"), "acme");
    assert.equal(stringFlag(args, "config"), undefined);
  });

  test("a negative number is a value, as a positional and as a flag's value", () => {
    assert.deepEqual(parseArgs(["accounts", "credit", "acme", "-2.5"]).positionals, [
      "accounts",
      "credit",
      "acme",
      "-2.5",
    ]);
    assert.equal(parseArgs(["keys", "create", "--credits", "-5"]).flags.get("credits"), "-5");
  });

  for (const [argv, named] of [
    [["serve", "--prot", "0"], "--prot"],
    [["serve", "-x"], "-x"],
    [["serve", "--port"], "--port"],
    [["serve", "--port", "--host", "h"], "--port"],
    [["keys", "create", "--subscription=yes"], "--subscription"],
  ] as const)
    test(`refused, naming ${named}: ${argv.join(" ")}`, () => {
      assert.throws(
        () => parseArgs([...argv]),
        (err: unknown) => err instanceof UsageError && err.message.includes(`'${named}`),
      );
    });
});

test("switchyard with an unknown flag exits 2 and names it, before doing anything", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-args-"));
  const run = await runCli(["serve", "--prot", "0"], dir);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /switchyard: Unknown option '--prot'/);
  assert.equal(run.stdout, "");
});

// `switchyard keys create --rpm … --tpm … --concurrency … --budget 5/day`: stored with the key, listed,
// and enforced by a gateway on the same store.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import OpenAI from "openai";
import { stringify } from "yaml";
import { runCli, spawnGateway } from "../../support/gateway.ts";

test("keys create with limits and a budget: listed, and enforced", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cli-limits-"));
  const file = join(dir, "switchyard.yaml");
  writeFileSync(file, stringify({ storage: { url: `sqlite:${join(dir, "s.db")}` } }));
  const args = ["keys", "create", "--account", "acme", "--credits", "5", "--config", file];
  const created = await runCli(
    [...args, "--rpm", "1", "--tpm", "100000", "--concurrency", "3", "--budget", "5/day"],
    dir,
  );
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim();

  const listed = await runCli(["keys", "list", "--config", file], dir);
  assert.match(listed.stdout, /\trpm=1 tpm=100000 concurrency=3 budget=5\/day\n/);

  for (const [flag, value] of [
    ["--budget", "5/week"],
    ["--rpm", "0"],
    ["--tpm", "1.5"],
  ]) {
    const bad = await runCli([...args, flag, value], dir);
    assert.equal(bad.code, 2, `${flag} ${value}: ${bad.stderr}`);
    assert.match(bad.stderr, new RegExp(flag));
  }

  const gw = await spawnGateway(["serve", "--config", file, "--port", "0"], dir, file);
  try {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] });
    await ask();
    await assert.rejects(ask(), OpenAI.RateLimitError);
  } finally {
    await gw.stop();
  }
});

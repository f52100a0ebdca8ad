// The operator's commands: keys, credits and a generation's record, on the same store the server uses.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import OpenAI from "openai";
import { stringify } from "yaml";
import { runCli, spawnGateway } from "../support/gateway.ts";

test("keys create → the key works; list shows it hashed; revoke stops it; credit and show", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cli-"));
  const file = join(dir, "switchyard.yaml");
  writeFileSync(file, stringify({ storage: { url: `sqlite:${join(dir, "s.db")}` } }));

  const created = await runCli(
    ["keys", "create", "--account", "acme", "--credits", "5", "--config", file],
    dir,
  );
  assert.equal(created.code, 0, created.stderr);
  const key = created.stdout.trim();
  assert.match(key, /^sk-sy-/);
  const sub = await runCli(["keys", "create", "--account", "acme", "--subscription", "--config", file], dir);
  assert.match(sub.stdout.trim(), /^sk-ss-v1-/);

  const listed = await runCli(["keys", "list", "--config", file], dir);
  assert.equal(listed.code, 0);
  assert.ok(!listed.stdout.includes(key), "the plaintext key is never listed");
  assert.match(listed.stdout, /payg\tacme/);
  assert.match(listed.stdout, /subscription\tacme/);

  const credited = await runCli(["accounts", "credit", "acme", "2.5", "--config", file], dir);
  assert.equal(credited.stdout.trim(), "account acme balance 7.5");
  const bad = await runCli(["accounts", "credit", "acme", "lots", "--config", file], dir);
  assert.notEqual(bad.code, 0);

  const gw = await spawnGateway(["serve", "--config", file, "--port", "0"], dir, file);
  let id: string;
  try {
    const client = new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "cli" }],
    });
    id = res.id;
  } finally {
    await gw.stop();
  }

  const shown = await runCli(["generations", "show", id, "--config", file], dir);
  assert.equal(shown.code, 0, shown.stderr);
  const record = JSON.parse(shown.stdout);
  assert.equal(record.generationId, id);
  assert.equal(record.accountId, "acme");
  assert.ok(record.nativeTokens.prompt_tokens > 0);

  const keyId = /^(key_\w+)\t\S+\tpayg/m.exec(listed.stdout)?.[1];
  assert.ok(keyId);
  const revoked = await runCli(["keys", "revoke", keyId, "--config", file], dir);
  assert.equal(revoked.code, 0, revoked.stderr);
  const again = await spawnGateway(["serve", "--config", file, "--port", "0"], dir, file);
  try {
    const client = new OpenAI({ apiKey: key, baseURL: `${again.url}/v1`, maxRetries: 0 });
    await assert.rejects(
      client.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: "x" }] }),
      OpenAI.AuthenticationError,
    );
  } finally {
    await again.stop();
  }
});

test("unknown commands and missing arguments are usage errors (exit 2)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cli-"));
  assert.equal((await runCli(["frobnicate"], dir)).code, 2);
  assert.equal((await runCli(["keys", "create"], dir)).code, 2);
  assert.equal((await runCli([], dir)).code, 2);
});

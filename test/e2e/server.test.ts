// Starting the gateway as a user does: the embedded default, health endpoints, and configuration
// errors that name the key at fault with exit code 2 and no stack trace.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  baseConfig,
  PAYG_KEY,
  type RunningGateway,
  runCli,
  spawnGateway,
  startGateway,
} from "../support/gateway.ts";

describe("serve", () => {
  test("with no file: embedded store, local models, a printed demo key that works", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-default-"));
    const gw = await spawnGateway(["serve", "--port", "0"], dir, "");
    try {
      const key = /Demo API key[^:]*: (\S+)/.exec(gw.output())?.[1];
      assert.ok(key, gw.output());
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "Hello" }] }),
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as any).choices[0].message.content, "You said: Hello");
    } finally {
      await gw.stop();
    }
    // A second start on the same directory prints the same key (it is kept beside the database).
    const again = await spawnGateway(["serve", "--port", "0"], dir, "");
    try {
      assert.ok(again.output().includes("Demo API key"));
    } finally {
      await again.stop();
    }
  });

  // One default gateway for the tests that only read it (each start costs two Node processes). Only
  // the overhead test sends a generation, so its counts of 1 hold whatever the order.
  describe("a default gateway", () => {
    let gw: RunningGateway;
    before(async () => {
      gw = await startGateway();
    });
    after(() => gw?.stop());

    test("HEAD /, /healthz and /readyz answer", async () => {
      assert.equal((await fetch(`${gw.url}/`, { method: "HEAD" })).status, 200);
      assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
      const ready = await fetch(`${gw.url}/readyz`);
      assert.equal(ready.status, 200);
      assert.deepEqual((await ready.json()) as any, { status: "ok", pending_generation_writes: 0 });
    });

    test("the gateway reports its own overhead: a response header and a /metrics histogram", async () => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "measure me" }] }),
      });
      await res.json();
      const overhead = Number(res.headers.get("x-switchyard-overhead-ms"));
      assert.ok(Number.isFinite(overhead) && overhead >= 0 && overhead < 1000, String(overhead));
      const metrics = await (await fetch(`${gw.url}/metrics`)).text();
      assert.match(metrics, /# TYPE switchyard_overhead_seconds histogram/);
      assert.match(metrics, /switchyard_overhead_seconds_count\{api="chat.completions",mode="whole"\} 1/);
      assert.match(metrics, /switchyard_generations_total\{api="chat.completions",status="completed"\} 1/);
    });

    test("an unknown route is a 404 in the chat error shape", async () => {
      const res = await fetch(`${gw.url}/v2/nothing`);
      assert.equal(res.status, 404);
      assert.equal(typeof ((await res.json()) as any).error.message, "string");
    });
  });

  test("inference routes answer their edge errors in the caller's protocol", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-edge-"));
    const gw = await startGateway(baseConfig(dir, { server: { body_limit_bytes: 2048 } }), { dir });
    try {
      const unknownMethod = await fetch(`${gw.url}/v1beta/models/local/echo-1:predictLongRunning`, {
        method: "POST",
        headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
        body: "{}",
      });
      assert.equal(unknownMethod.status, 404);
      assert.equal(((await unknownMethod.json()) as any).error.status, "NOT_FOUND");

      const big = JSON.stringify({
        model: "local/echo-1",
        max_tokens: 5,
        messages: [{ role: "user", content: "x".repeat(4000) }],
      });
      const tooLarge = await fetch(`${gw.url}/v1/messages`, {
        method: "POST",
        headers: {
          "x-api-key": PAYG_KEY,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
        },
        body: big,
      });
      assert.equal(tooLarge.status, 413);
      const body = (await tooLarge.json()) as any;
      assert.equal(body.type, "error");
      assert.equal(body.error.type, "request_too_large");

      // Whatever the content type (fetch sends text/plain here), the body is read as JSON.
      const bare = await fetch(`${gw.url}/v1/chat/completions?ignored=1`, {
        method: "POST",
        headers: { authorization: `Bearer ${PAYG_KEY}` },
        body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "bare" }] }),
      });
      assert.equal(bare.status, 200);
    } finally {
      await gw.stop();
    }
  });
});

describe("configuration errors", () => {
  const cases: Array<[string, string, RegExp]> = [
    ["not YAML", "server: [unclosed", /not valid YAML/],
    ["unknown top-level key", "servers: {}", /servers: unknown key/],
    ["bad port", "server: { port: 99999 }", /server\.port: must be an integer between 0 and 65535/],
    ["bad storage url", 'storage: { url: "mysql://x" }', /storage\.url: must start with sqlite: or postgres/],
    [
      "provider without protocol",
      "providers: [{ id: mine, base_url: 'http://x' }]",
      /providers\[0\]\.protocol: is required/,
    ],
    [
      "bad protocol",
      "providers: [{ id: mine, protocol: soap, base_url: 'http://x' }]",
      /providers\[0\]\.protocol: must be one of/,
    ],
    ["key without account", "keys: [{ key: sk-abcdefgh }]", /keys\[0\]\.account: is required/],
    [
      "bad model pricing",
      "models: [{ id: local/echo-1, pricings: { prompt: [{ value: 1, unit: perYear, currency: USD }] } }]",
      /models\[0\]\.pricings\.prompt\[0\]\.unit/,
    ],
  ];
  for (const [name, yaml, message] of cases) {
    test(`${name}: one clear line naming the key, exit code 2`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "switchyard-badconf-"));
      const file = join(dir, "bad.yaml");
      writeFileSync(file, yaml);
      const { code, stderr, stdout } = await runCli(["serve", "--config", file, "--port", "0"], dir);
      assert.equal(code, 2, stdout + stderr);
      assert.match(stderr, message);
      assert.ok(stderr.includes(file), "names the file");
      assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
    });
  }

  test("a missing file is a clear error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-nofile-"));
    const { code, stderr } = await runCli(["serve", "--config", join(dir, "nope.yaml")], dir);
    assert.equal(code, 2);
    assert.match(stderr, /cannot read the file \(ENOENT\)/);
  });

  test("env substitution: ${ENV} fills values from the environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-env-"));
    const file = join(dir, "env.yaml");
    writeFileSync(
      file,
      'server: { port: "${SY_TEST_PORT}" }\nstorage: { url: "sqlite:${SY_TEST_DIR}/x.db" }\n',
    );
    const gw = await spawnGateway(["serve", "--config", file, "--port", "0"], dir, file, {
      SY_TEST_DIR: dir,
      SY_TEST_PORT: "0",
    });
    try {
      assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    } finally {
      await gw.stop();
    }
  });
});

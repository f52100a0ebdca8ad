// The unmodified `@anthropic-ai/sdk` 1.x sends `anthropic-version: 2026-10-21`. By default the
// gateway serves only 2023-06-01 and answers any other version with a 400 that names the fix; an
// operator may name newer versions in `clients.anthropic_versions`, which are then served with
// 2023-06-01 semantics (and an Anthropic upstream is still called with 2023-06-01).

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk-1";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

describe("by default", () => {
  let gw: RunningGateway;
  before(async () => {
    gw = await startGateway();
  });
  after(() => gw?.stop());

  test("every call is a 400 naming the header to send and the setting that accepts the SDK's version", async () => {
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const err = await client.messages
      .create({ model: "local/echo-1", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })
      .then(
        () => assert.fail("the call succeeded"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof Anthropic.BadRequestError, String(err));
    const message = (err.error as any).error.message as string;
    assert.match(message, /version "2026-10-21" is not supported/);
    assert.match(message, /anthropic-version: 2023-06-01/);
    assert.match(message, /clients\.anthropic_versions/);
  });
});

describe("with clients.anthropic_versions naming the SDK's version", () => {
  let gw: RunningGateway;
  let fake: FakeUpstream;
  let client: Anthropic;
  before(async () => {
    fake = await startFakeUpstream("anthropic", { apiKey: "k-anthropic" });
    const dir = mkdtempSync(join(tmpdir(), "switchyard-sdk1-"));
    gw = await startGateway(
      baseConfig(dir, {
        clients: { anthropic_versions: ["2026-10-21"] },
        providers: [{ id: "fa", protocol: "anthropic", base_url: fake.url, api_key: "k-anthropic" }],
        models: [{ id: "fa/claude", endpoints: [{ provider: "fa", model: "claude-sonnet-4-5" }] }],
      }),
      { dir },
    );
    client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
  });
  after(async () => {
    await gw?.stop();
    await fake?.close();
  });

  test("messages.create", async () => {
    const message = await client.messages.create({
      model: "local/echo-1",
      max_tokens: 50,
      messages: [{ role: "user", content: "Hello, version 1" }],
    });
    assert.deepEqual(
      message.content.map((b) => (b.type === "text" ? b.text : b.type)),
      ["You said: Hello, version 1"],
    );
    assert.match(message.id, /^gen-/);
  });

  test("messages.stream", async () => {
    const stream = client.messages.stream({
      model: "local/think-1",
      max_tokens: 2000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "Stream, version 1" }],
    });
    const final = await stream.finalMessage();
    assert.deepEqual(
      final.content.map((b) => b.type),
      ["thinking", "text"],
    );
    assert.equal(final.stop_reason, "end_turn");
  });

  test("models.list", async () => {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    assert.ok(ids.includes("local/echo-1"), ids.join());
  });

  test("an Anthropic upstream is called with 2023-06-01, the semantics the gateway serves", async () => {
    fake.reset();
    const message = await client.messages.create({
      model: "fa/claude",
      max_tokens: 50,
      messages: [{ role: "user", content: "relayed" }],
    });
    assert.equal(message.type, "message");
    assert.equal(fake.requests.length, 1);
    assert.equal(fake.requests[0].headers["anthropic-version"], "2023-06-01");
  });

  test("a version the operator did not name is still a 400", async () => {
    const other = new Anthropic({
      apiKey: PAYG_KEY,
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { "anthropic-version": "2027-01-01" },
    });
    const err = await other.messages
      .create({ model: "local/echo-1", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })
      .then(
        () => assert.fail("the call succeeded"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof Anthropic.BadRequestError, String(err));
    assert.match((err.error as any).error.message, /version "2027-01-01" is not supported/);
  });
});

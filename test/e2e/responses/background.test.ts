// Background responses through the openai SDK against a running gateway: answered queued at once
// and polled to completion; cancelled while the upstream hangs (its connection closed, the
// generation recorded cancelled, priced on the prompt the upstream read); a streamed run resumed after event N with exactly the later
// events; a run left by a process that died is failed when the gateway starts again.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";

let gw: RunningGateway;
let client: OpenAI;
let anthropic: FakeUpstream;
let config: Record<string, unknown>;
let dir: string;
const ONE_AT_A_TIME = "sk-test-one-at-a-time-0123456789";

before(async () => {
  anthropic = await startFakeUpstream("anthropic");
  dir = mkdtempSync(join(tmpdir(), "switchyard-background-"));
  const base = baseConfig(dir);
  config = baseConfig(dir, {
    keys: [...(base.keys as object[]), { key: ONE_AT_A_TIME, account: "acme", limits: { concurrency: 1 } }],
    providers: [fakeProvider("fa", anthropic)],
    models: [fakeModel("fa/claude", ["fa"], { upstream: "claude-sonnet-4-5" })],
  });
  gw = await startGateway(config, { dir });
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await anthropic?.close();
});
beforeEach(() => anthropic.reset());

/** Polls until the response leaves queued and in_progress. */
async function settled(id: string): Promise<OpenAI.Responses.Response> {
  for (let i = 0; i < 200; i++) {
    const response = await client.responses.retrieve(id);
    if (response.status !== "queued" && response.status !== "in_progress") return response;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`response ${id} never finished`);
}

/** The response id a stream's first event names. */
function id(events: any[]): string {
  return events[0].response.id;
}

async function generationStatus(id: string): Promise<string> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${gw.url}/api/v1/management/generation?id=${id}`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    const body: any = res.status === 200 ? await res.json() : undefined;
    if ((body && body.status !== "pending") || i > 100) return body?.status;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("background responses", () => {
  test("answered queued at once, polled to completion", async () => {
    const queued = await client.responses.create({
      model: "local/echo-1",
      input: "Later please",
      background: true,
    });
    assert.equal(queued.status, "queued");
    assert.equal(queued.background, true);
    assert.deepEqual(queued.output, []);
    const done = await settled(queued.id);
    assert.equal(done.status, "completed");
    assert.equal(done.output_text, "You said: Later please");
    assert.equal(done.background, true);
    assert.equal(await generationStatus(queued.id), "completed");
  });

  test("cancel while the upstream hangs: its connection is closed, the generation cancelled", async () => {
    anthropic.script({ fault: "hang" });
    const queued = await client.responses.create({
      model: "fa/claude",
      input: "Take your time",
      background: true,
    });
    await anthropic.until(() => anthropic.requests.length === 1);
    const cancelled = await client.responses.cancel(queued.id);
    assert.equal(cancelled.status, "cancelled");
    await anthropic.until(() => anthropic.requests[0]!.aborted);
    assert.equal((await client.responses.retrieve(queued.id)).status, "cancelled");
    assert.equal(await generationStatus(queued.id), "cancelled");
    // The upstream had read the prompt: priced on its estimate (docs/architecture.md §5).
    const rec = await lookupSettled(gw.url, queued.id, PAYG_KEY);
    assert.equal(rec.usageEstimated, true);
    assert.ok(rec.nativeTokens.prompt_tokens > 0 && Number(rec.usage) > 0, JSON.stringify(rec.nativeTokens));
    // Cancelling again, or a finished response, answers it as it stands.
    assert.equal((await client.responses.cancel(queued.id)).status, "cancelled");
  });

  test("a streamed run is resumed after event N with exactly the later events", async () => {
    const stream = await client.responses.create({
      model: "local/echo-1",
      input: "Stream in the background, then resume me",
      background: true,
      stream: true,
    });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.equal(events.at(-1)?.type, "response.completed");
    const id = (events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const resumed: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.retrieve(id, { stream: true, starting_after: 3 }))
      resumed.push(event);
    assert.deepEqual(resumed, events.slice(4));
    assert.equal(
      (await client.responses.retrieve(id)).output_text,
      "You said: Stream in the background, then resume me",
    );
  });

  test("a run holds the key's concurrency until it ends, like any request", async () => {
    anthropic.script({ fault: "hang" });
    const limited = new OpenAI({ apiKey: ONE_AT_A_TIME, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const queued = await limited.responses.create({ model: "fa/claude", input: "Slow", background: true });
    await anthropic.until(() => anthropic.requests.length === 1);
    await assert.rejects(
      limited.responses.create({ model: "local/echo-1", input: "Meanwhile" }),
      OpenAI.RateLimitError,
    );
    await limited.responses.cancel(queued.id);
    await anthropic.until(() => anthropic.requests[0]!.aborted);
    for (let i = 0; ; i++) {
      const answer = await limited.responses
        .create({ model: "local/echo-1", input: "Now" })
        .catch((e: unknown) => e);
      if (!(answer instanceof OpenAI.RateLimitError)) {
        assert.equal((answer as OpenAI.Responses.Response).output_text, "You said: Now");
        break;
      }
      assert.ok(i < 50, "the slot came back");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  test("a streamed run cancelled while its client follows: the client's stream ends, the run is cancelled", async () => {
    anthropic.script({
      blocks: [{ type: "text", text: "Slowly, word by word, forever." }],
      chunks: 8,
      chunkDelayMs: 200,
    });
    const stream = await client.responses.create({
      model: "fa/claude",
      input: "Slow stream",
      background: true,
      stream: true,
    });
    const events: any[] = [];
    let cancelled = false;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "response.output_text.delta" && !cancelled) {
        cancelled = true;
        await client.responses.cancel(id(events));
      }
    }
    assert.ok(cancelled);
    assert.ok(!events.some((e) => e.type === "response.completed"), "the stream ended at the cancel");
    assert.equal((await client.responses.retrieve(id(events))).status, "cancelled");
    await anthropic.until(() => anthropic.requests[0]!.aborted);
  });

  test("background without store is a 400 naming background", async () => {
    const err = await client.responses
      .create({ model: "local/echo-1", input: "x", background: true, store: false })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal(err.param, "background");
  });

  test("a run whose gateway stops (SIGTERM) is aborted and stored failed as it stops", async () => {
    anthropic.script({ fault: "hang" });
    const queued = await client.responses.create({
      model: "fa/claude",
      input: "Interrupted",
      background: true,
    });
    await anthropic.until(() => anthropic.requests.length === 1);
    await gw.stop("SIGTERM");
    await anthropic.until(() => anthropic.requests[0]!.aborted);
    gw = await startGateway(config, { dir });
    client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    assert.doesNotMatch(gw.output(), /unfinished background/);
    const failed = await client.responses.retrieve(queued.id);
    assert.equal(failed.status, "failed");
    assert.match(failed.error?.message ?? "", /stopped before it ended/);
  });

  test("a run whose gateway died is failed when the gateway starts again", async () => {
    anthropic.script({ fault: "hang" });
    const queued = await client.responses.create({
      model: "fa/claude",
      input: "Never finished",
      background: true,
    });
    await anthropic.until(() => anthropic.requests.length === 1);
    await gw.stop("SIGKILL");
    gw = await startGateway(config, { dir });
    client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    assert.match(gw.output(), /marked 1 unfinished background response\(s\) as failed/);
    const failed = await client.responses.retrieve(queued.id);
    assert.equal(failed.status, "failed");
    assert.equal(failed.error?.code, "server_error");
  });
});

// A client that goes away aborts the upstream request at once (the fake sees its request aborted
// within 100 ms of the client's abort), streamed and not, on the relay and the translated path; the
// generation is recorded as cancelled, with what was produced so far: the upstream's usage, or, when
// it reported none before the cut, the gateway's own estimate (settled, and marked estimated).

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";
import { fakeProvider, latestGenerationId, model, record } from "./support.ts";

// Long enough that nothing but the client's abort ends these requests.
const PATIENT = { connect_ms: 2000, first_byte_ms: 10000, request_ms: 10000, idle_ms: 10000 };
const SLOW_STREAM = {
  blocks: [{ type: "text" as const, text: "one two three four five six seven eight nine ten" }],
  chunks: 10,
  chunkDelayMs: 300,
};
const LIMIT = { timeout: 5000 };

let gw: RunningGateway;
let a: FakeUpstream;
let x: FakeUpstream;
let r: FakeUpstream;

before(async () => {
  [a, x, r] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("anthropic"),
    startFakeUpstream("openai-responses"),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-disconnect-"));
  const models = [];
  for (const provider of ["a", "x", "r"])
    for (const mode of ["s", "w"]) models.push(model(`dc/${provider}-${mode}`, [provider, "fallback"]));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        fakeProvider("a", a, PATIENT),
        fakeProvider("x", x, PATIENT),
        fakeProvider("r", r, PATIENT),
        // Never reached: a cancelled request must not fall back.
        { id: "fallback", protocol: "openai", base_url: "http://127.0.0.1:9/v1", api_key: "k" },
      ],
      models,
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all([a?.close(), x?.close(), r?.close()]);
});

function post(modelId: string, stream: boolean, signal: AbortSignal) {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: modelId, stream, messages: [{ role: "user", content: "hi" }] }),
    signal,
  });
}

for (const [name, fake] of [
  ["relay", () => a],
  ["translated", () => x],
] as const) {
  const provider = name === "relay" ? "a" : "x";
  describe(`${name} path`, () => {
    test(
      "streamed: the upstream request is aborted within 100 ms; recorded as cancelled",
      LIMIT,
      async () => {
        const upstream = fake();
        upstream.script(SLOW_STREAM);
        const seen = upstream.requests.length;
        const controller = new AbortController();
        const res = await post(`dc/${provider}-s`, true, controller.signal);
        assert.equal(res.status, 200);
        const id = res.headers.get("x-generation-id")!;
        const reader = res.body!.getReader();
        assert.ok((await reader.read()).value, "the first chunk arrived");
        const abortedAt = Date.now();
        controller.abort();
        const sent = upstream.requests[seen];
        await upstream.until(() => sent.aborted, 1000);
        assert.ok(
          sent.abortedAt! - abortedAt < 100,
          `upstream aborted ${sent.abortedAt! - abortedAt} ms later`,
        );
        const rec = await record(gw, id);
        assert.equal(rec.status, "cancelled");
        assert.equal(rec.provider, provider);
        assert.equal(rec.requestRetryTimes, 0);
        assert.equal(rec.streamed, true);
        // What was produced so far: a messages upstream reports the prompt's tokens as it starts
        // (a chat upstream reports usage only at its end: the gateway's estimate stands in for it;
        // its output past message_start's one token: cancel-pricing.test.ts).
        if (name === "translated") assert.equal(rec.nativeTokens.prompt_tokens, 10);
        else assert.equal(rec.usageEstimated, true);
      },
    );

    test(
      "not streamed: the upstream request is aborted within 100 ms; recorded as cancelled",
      LIMIT,
      async () => {
        const upstream = fake();
        upstream.script({ fault: "hang" });
        const seen = upstream.requests.length;
        const controller = new AbortController();
        const pending = post(`dc/${provider}-w`, false, controller.signal);
        await upstream.until(() => upstream.requests.length > seen);
        const abortedAt = Date.now();
        controller.abort();
        await assert.rejects(pending, { name: "AbortError" });
        const sent = upstream.requests[seen];
        await upstream.until(() => sent.aborted, 1000);
        assert.ok(
          sent.abortedAt! - abortedAt < 100,
          `upstream aborted ${sent.abortedAt! - abortedAt} ms later`,
        );
        // The client never saw the x-generation-id header: the id comes from the ledger file.
        let id: string | undefined;
        for (let i = 0; i < 50 && !id; i++) {
          id = latestGenerationId(gw, `dc/${provider}-w`);
          if (!id) await new Promise((r) => setTimeout(r, 20));
        }
        const rec = await record(gw, id!);
        assert.equal(rec.status, "cancelled");
        assert.equal(rec.provider, provider);
        assert.equal(rec.requestRetryTimes, 0, "a cancelled request is not retried elsewhere");
        assert.equal(rec.streamed, false);
      },
    );
  });
}

// A chat or Responses upstream reports usage only at its end: a stream cut before then would settle
// nothing, though the upstream read the prompt and wrote tokens. The gateway's estimate stands in:
// the prompt as admission estimated it, the output from the text streamed so far.
describe("a stream cancelled before its upstream reported usage", () => {
  for (const [how, provider, fake] of [
    ["relayed (chat upstream)", "a", () => a],
    ["translated (Responses upstream)", "r", () => r],
  ] as const)
    test(`${how}: settled on the gateway's estimate, marked estimated`, LIMIT, async () => {
      fake().script(SLOW_STREAM);
      const controller = new AbortController();
      const res = await post(`dc/${provider}-s`, true, controller.signal);
      assert.equal(res.status, 200);
      const id = res.headers.get("x-generation-id")!;
      const reader = res.body!.getReader();
      let text = "";
      while ((text.match(/"content":"[^"]+"/g) ?? []).length < 3)
        text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      const rec = await lookupSettled(gw.url, id, PAYG_KEY);
      assert.equal(rec.status, "cancelled");
      assert.equal(rec.usageEstimated, true);
      const tokens = rec.nativeTokens;
      assert.ok(tokens.prompt_tokens > 0, `prompt ${tokens.prompt_tokens}`);
      // Three of ten words ("one two three …", 48 characters, 12 tokens at four a token) had gone.
      assert.ok(
        tokens.completion_tokens >= 2 && tokens.completion_tokens <= 12,
        `completion ${tokens.completion_tokens}`,
      );
      assert.ok(Number(rec.usage) > 0, `cost ${rec.usage}`);
    });
});

// A whole (non-streamed) answer comes only when the generation is done, so its wait is bounded by
// `timeouts.request_ms`, not by a stream's `first_byte_ms`: a slow reasoning answer is not cut off.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let fake: FakeUpstream;

before(async () => {
  fake = await startFakeUpstream("openai");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-slow-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        fakeProvider("patient", fake, { first_byte_ms: 200, request_ms: 5000 }),
        fakeProvider("hasty", fake, { first_byte_ms: 5000, request_ms: 300 }),
      ],
      models: [fakeModel("patient/m", ["patient"]), fakeModel("hasty/m", ["hasty"])],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await fake?.close();
});

const ask = (modelId: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: modelId, messages: [{ role: "user", content: "think long" }] }),
  });

test("a whole answer slower than first_byte_ms but within request_ms arrives", async () => {
  fake.script({ blocks: [{ type: "text", text: "done thinking" }], answerDelayMs: 700 });
  const res = await ask("patient/m");
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as any).choices[0].message.content, "done thinking");
});

test("a whole answer slower than request_ms is a clean 504", async () => {
  fake.script({ blocks: [{ type: "text", text: "too late" }], answerDelayMs: 1500 });
  const started = Date.now();
  const res = await ask("hasty/m");
  assert.equal(res.status, 504);
  assert.equal(((await res.json()) as any).error.type, "timeout_error");
  assert.ok(Date.now() - started < 1400, "cut at request_ms, not when the upstream answered");
});

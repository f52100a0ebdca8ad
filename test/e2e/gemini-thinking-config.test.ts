// Thinking settings a content-generation client may not ask of its model, refused at the edge with
// Gemini's own 400 (they were passed on): a thinkingBudget outside every tier, a thinkingConfig on a
// model that does not think, a budget outside the model's tier.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
let fake: FakeUpstream;

before(async () => {
  fake = await startFakeUpstream("gemini");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-thinking-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("fg", fake)],
      models: [{ ...fakeModel("fg/gemini-2.5-flash-lite", ["fg"]), reasoning: true }],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await fake?.close();
});

async function generate(model: string, thinkingConfig: unknown) {
  const res = await fetch(`${gw.url}/v1beta/models/${model}:generateContent`, {
    method: "POST",
    headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ parts: [{ text: "Hi" }] }], generationConfig: { thinkingConfig } }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

function assertRefused(answer: { status: number; body: any }, field: string) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error.code, 400);
  assert.equal(answer.body.error.status, "INVALID_ARGUMENT");
  assert.ok(answer.body.error.message.startsWith(`${field}: `), answer.body.error.message);
}

test("thinkingBudget 100000 (outside every tier) is a 400 naming it, on any model", async () => {
  for (const model of ["local/think-1", "fg/gemini-2.5-flash-lite"])
    assertRefused(
      await generate(model, { thinkingBudget: 100000 }),
      "generationConfig.thinkingConfig.thinkingBudget",
    );
  assert.equal(fake.requests.length, 0, "nothing reached the upstream");
});

// The checks below need the resolved model: the pipeline calls `protocol.checkModel` once it has
// resolved it (src/protocols/types.ts ClientFace.checkModel).

test("a thinkingConfig on a model that does not think is a 400", async () => {
  assertRefused(await generate("local/echo-1", { thinkingBudget: 1024 }), "generationConfig.thinkingConfig");
});

test("a budget outside the model's tier is a 400; 0 and -1 pass", async () => {
  assertRefused(
    await generate("fg/gemini-2.5-flash-lite", { thinkingBudget: 100 }),
    "generationConfig.thinkingConfig.thinkingBudget",
  );
  for (const budget of [0, -1, 512]) {
    const answer = await generate("fg/gemini-2.5-flash-lite", { thinkingBudget: budget });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }
});

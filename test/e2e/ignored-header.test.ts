// `x-switchyard-ignored` names exactly the fields the answering upstream never saw: what the client
// face set aside plus what a translation could not express; a messages relay forwards every byte
// but the fields the API does not support, and names only those.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
let fo: FakeUpstream;
let fa: FakeUpstream;

before(async () => {
  [fo, fa] = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("anthropic")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-ignored-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("fo", fo), fakeProvider("fa", fa)],
      models: [fakeModel("fo/m", ["fo"]), fakeModel("fa/m", ["fa"])],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all([fo?.close(), fa?.close()]);
});

function messages(modelId: string, extra: Record<string, unknown>, stream = false) {
  return fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({
      model: modelId,
      max_tokens: 50,
      stream,
      messages: [{ role: "user", content: "hi" }],
      ...extra,
    }),
  });
}

test("a translation names what the client face set aside and what the encoder could not express", async () => {
  for (const stream of [false, true]) {
    const res = await messages("fo/m", { top_k: 5, metadata: { user_id: "u-1" } }, stream);
    await res.text();
    assert.equal(res.status, 200);
    const names = (res.headers.get("x-switchyard-ignored") ?? "").split(", ").sort();
    assert.deepEqual(names, ["metadata", "top_k"], `stream=${stream}`);
    const sent = fo.requests.at(-1)!.body as Record<string, unknown>;
    assert.equal("top_k" in sent || "metadata" in sent || "user" in sent, false);
  }
});

test("a messages relay forwards what it can and names only what the API does not support (metadata)", async () => {
  const res = await messages("fa/m", { top_k: 5, metadata: { user_id: "u-1" } });
  await res.text();
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-switchyard-ignored"), "metadata");
  const sent = fa.requests.at(-1)!.body as Record<string, unknown>;
  assert.equal(sent.top_k, 5);
  assert.equal("metadata" in sent, false);
});

test("a request that uses nothing untranslatable gets no header", async () => {
  const res = await messages("fo/m", {});
  await res.text();
  assert.equal(res.headers.get("x-switchyard-ignored"), null);
});

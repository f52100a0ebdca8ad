// Upstream keys never reach clients: an upstream that refuses the gateway's own credential is a 502
// naming the provider (the client's key was fine), and an upstream message quoting the key is redacted.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const SECRET = "sk-upstream-secret-0123456789abcdef";
let gw: RunningGateway;
let fake: FakeUpstream;

before(async () => {
  fake = await startFakeUpstream("openai");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-creds-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [{ id: "fo", protocol: "openai", base_url: fake.url, api_key: SECRET }],
      models: [fakeModel("fo/m", ["fo"])],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await fake?.close();
});

const ask = async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fo/m", messages: [{ role: "user", content: "hi" }] }),
  });
  return { status: res.status, text: await res.text() };
};

test("an upstream 401 is a 502 naming the provider, without the upstream's message", async () => {
  fake.script({
    status: 401,
    errorBody: {
      error: {
        message: `Incorrect API key provided: ${SECRET}`,
        type: "invalid_request_error",
        code: "invalid_api_key",
      },
    },
  });
  const { status, text } = await ask();
  assert.equal(status, 502);
  assert.match(text, /Provider 'fo' refused the gateway's credentials/);
  assert.ok(!text.includes(SECRET) && !text.includes("sk-upstream"), text);
  assert.equal(fake.requests.at(-1)?.headers.authorization, `Bearer ${SECRET}`, "the key did go upstream");
});

test("any other upstream error quoting the key has it redacted", async () => {
  fake.script({
    status: 400,
    errorBody: { error: { message: `bad request for key ${SECRET}`, type: "invalid_request_error" } },
  });
  const { status, text } = await ask();
  assert.equal(status, 400);
  assert.ok(!text.includes(SECRET), text);
  assert.match(text, /\[redacted\]/);
});

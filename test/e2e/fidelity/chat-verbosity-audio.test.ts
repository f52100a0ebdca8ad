// Issue 12 item 12: chat `verbosity` reaches the upstreams that take it (chat `verbosity`, Responses
// `text.verbosity`) and is named in `x-switchyard-ignored` by those that do not; an assistant
// message's `audio` (the id of an audio answer the gateway never gives) is dropped and named on
// every route, the relay included.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
const fakes: Record<string, FakeUpstream> = {};
let client: OpenAI;

before(async () => {
  const protocols = { fo: "openai", fa: "anthropic", fg: "gemini", fr: "openai-responses" } as const;
  for (const [id, protocol] of Object.entries(protocols)) fakes[id] = await startFakeUpstream(protocol);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-chat-verbosity-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: Object.entries(fakes).map(([id, fake]) => fakeProvider(id, fake)),
      models: Object.keys(fakes).map((id) => fakeModel(`${id}/m`, [id])),
    }),
    { dir },
  );
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
});

async function ask(model: string, body: Record<string, unknown>) {
  const { response } = await client.chat.completions
    .create({ model, messages: [{ role: "user", content: "hi" }], ...body })
    .withResponse();
  return (response.headers.get("x-switchyard-ignored") ?? "").split(", ").filter(Boolean);
}

function sent(id: string): Record<string, any> {
  return fakes[id].requests.at(-1)!.body as Record<string, any>;
}

test("verbosity goes to chat and responses upstreams and is named by the others", async () => {
  assert.deepEqual(await ask("fo/m", { verbosity: "low" }), []);
  assert.equal(sent("fo").verbosity, "low");
  assert.deepEqual(await ask("fr/m", { verbosity: "high" }), []);
  assert.equal(sent("fr").text.verbosity, "high");
  for (const id of ["fa", "fg"]) {
    assert.deepEqual(await ask(`${id}/m`, { verbosity: "low" }), ["verbosity"], id);
    assert.equal(JSON.stringify(sent(id)).includes("verbosity"), false, id);
  }
});

test("an assistant message's audio is dropped and named on every route", async () => {
  const messages = [
    { role: "user", content: "Say hi" },
    { role: "assistant", content: "Hi", audio: { id: "audio_abc123" } },
    { role: "user", content: "Again" },
  ];
  for (const id of ["fo", "fa", "fg", "fr"]) {
    assert.deepEqual(await ask(`${id}/m`, { messages }), ["messages[1].audio"], id);
    assert.equal(JSON.stringify(sent(id)).includes("audio_abc123"), false, id);
  }
  assert.equal(sent("fo").messages[1].content, "Hi");
});

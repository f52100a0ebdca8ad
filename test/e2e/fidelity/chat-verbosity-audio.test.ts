// Issue 12 item 12: chat `verbosity` reaches the upstreams that take it (chat `verbosity`, Responses
// `text.verbosity`) and is named in `x-switchyard-ignored` by those that do not; an assistant
// message's `audio` (the id of an audio answer the gateway never gives) is dropped and named on
// every route, the relay included.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type OpenAI from "openai";
import type { FakeUpstream } from "../../fakes/index.ts";
import type { RunningGateway } from "../../support/gateway.ts";
import { type FakesGateway, openaiClient, startFakesGateway } from "./support.ts";

let setup: FakesGateway;
let gw: RunningGateway;
let fakes: Record<string, FakeUpstream>;
let client: OpenAI;

before(async () => {
  setup = await startFakesGateway({ fo: "openai", fa: "anthropic", fg: "gemini", fr: "openai-responses" });
  ({ gw, fakes } = setup);
  client = openaiClient(gw);
});
after(() => setup?.stop());

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

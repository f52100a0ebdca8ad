// Issue 12 item 11: the API lists `metadata` and `service_tier` as unsupported on the messages face
// and the code-execution tool as unavailable. Through the official SDK, on every route (the relay
// to a messages upstream included): the two fields never reach the upstream and are named in
// `x-switchyard-ignored`, never a 400 (Claude Code sends `metadata.user_id`); a code_execution
// tool is a 400 naming it, and nothing is sent.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import type { FakeUpstream } from "../../fakes/index.ts";
import type { RunningGateway } from "../../support/gateway.ts";
import { anthropicClient, type FakesGateway, startFakesGateway } from "./support.ts";

let setup: FakesGateway;
let gw: RunningGateway;
let fakes: Record<string, FakeUpstream>;
let client: Anthropic;

before(async () => {
  setup = await startFakesGateway({ fa: "anthropic", fo: "openai", fg: "gemini", fr: "openai-responses" });
  ({ gw, fakes } = setup);
  client = anthropicClient(gw);
});
after(() => setup?.stop());

for (const id of ["fa", "fo", "fg", "fr"]) {
  for (const stream of [false, true]) {
    test(`metadata and service_tier are dropped and named (${id}, stream=${stream})`, async () => {
      const { response, data } = await client.messages
        .create({
          model: `${id}/m`,
          max_tokens: 64,
          stream,
          metadata: { user_id: "user_abc_account_1_session_2" },
          service_tier: "auto",
          messages: [{ role: "user", content: "hi" }],
        } as Anthropic.MessageCreateParams)
        .withResponse();
      if (stream) for await (const _ of data as AsyncIterable<unknown>);
      const named = (response.headers.get("x-switchyard-ignored") ?? "").split(", ").sort();
      assert.deepEqual(named, ["metadata", "service_tier"]);
      const sent = JSON.stringify(fakes[id].requests.at(-1)!.body);
      assert.equal(sent.includes("user_abc_account_1_session_2"), false);
      assert.equal(sent.includes("service_tier"), false);
    });
  }

  test(`a code_execution tool is refused with a 400 naming it (${id})`, async () => {
    const before = fakes[id].requests.length;
    await assert.rejects(
      client.messages.create({
        model: `${id}/m`,
        max_tokens: 64,
        tools: [{ type: "code_execution_20250825", name: "code_execution" }],
        messages: [{ role: "user", content: "run 1+1" }],
      } as unknown as Anthropic.MessageCreateParams),
      (error: unknown) =>
        error instanceof Anthropic.BadRequestError && /tools\[0\]\.type/.test(error.message),
    );
    assert.equal(fakes[id].requests.length, before);
  });
}

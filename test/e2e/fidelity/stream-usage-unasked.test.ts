// Mistral's OpenAI-style API refuses any request field it does not know, `stream_options` among
// them (a 422), and puts a stream's usage on its last chunk without being asked. The built-in
// `mistral` provider is called without `stream_options` (`stream_usage: always`), relayed and
// translated, and its streams are still metered; any other chat upstream is still asked for usage.
// The fake speaks Mistral's differences (test/fakes/openai.ts, `vendor: "mistral"`).

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";

let gw: RunningGateway;
let mistral: FakeUpstream;
let openaiFake: FakeUpstream;
let openai: OpenAI;

before(async () => {
  [mistral, openaiFake] = await Promise.all([
    startFakeUpstream("openai", { vendor: "mistral" }),
    startFakeUpstream("openai"),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-stream-usage-"));
  gw = await startGateway(
    baseConfig(dir, {
      // The built-in id: its defaults (max_tokens, stream usage unasked) apply to this base URL.
      providers: [fakeProvider("mistral", mistral), fakeProvider("fo", openaiFake)],
      models: [fakeModel("mistral/m", ["mistral"]), fakeModel("fo/m", ["fo"])],
    }),
    { dir },
  );
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all([mistral?.close(), openaiFake?.close()]);
});

function sent(fake: FakeUpstream): Record<string, unknown> {
  return fake.requests.at(-1)!.body as Record<string, unknown>;
}

test("the fake refuses stream_options as Mistral does (422), so a gateway that sent it would fail", async () => {
  const res = await fetch(`${mistral.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  assert.equal(res.status, 422);
  const body = (await res.json()) as any;
  assert.deepEqual(body.message.detail[0].loc, ["body", "stream_options"]);
  assert.equal(body.message.detail[0].type, "extra_forbidden");
});

test("a relayed chat stream reaches Mistral without stream_options, the client's own included, and is metered", async () => {
  const stream = await openai.chat.completions.create({
    model: "mistral/m",
    messages: [{ role: "user", content: "hi" }],
    max_completion_tokens: 50,
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  let id = "";
  let usage: OpenAI.CompletionUsage | undefined | null;
  for await (const chunk of stream) {
    id = chunk.id;
    text += chunk.choices[0]?.delta?.content ?? "";
    usage = chunk.usage ?? usage;
  }
  assert.ok(text.length > 0);
  assert.equal("stream_options" in sent(mistral), false);
  assert.equal(sent(mistral).max_tokens, 50);
  assert.ok(usage && usage.completion_tokens > 0, "the client asked for usage and has it");
  const record = await lookupSettled(gw.url, id, PAYG_KEY);
  assert.equal(record.nativeTokens.completion_tokens, usage.completion_tokens);
  assert.equal(record.nativeTokens.prompt_tokens, usage.prompt_tokens);
  assert.ok(record.usage !== undefined, "rated: the upstream's usage reached the meter");
});

test("a translated stream (messages client) reaches Mistral without stream_options and is metered", async () => {
  const anthropic = new Anthropic({
    apiKey: PAYG_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { "anthropic-version": "2023-06-01" },
  });
  const stream = anthropic.messages.stream({
    model: "mistral/m",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
  });
  const message = await stream.finalMessage();
  assert.equal("stream_options" in sent(mistral), false);
  assert.ok(message.usage.output_tokens > 0);
  const record = await lookupSettled(gw.url, message.id, PAYG_KEY);
  assert.equal(record.nativeTokens.completion_tokens, message.usage.output_tokens);
  assert.ok(record.usage !== undefined, "rated: the upstream's usage reached the meter");
});

test("any other chat upstream is still asked for the stream's usage", async () => {
  const stream = await openai.chat.completions.create({
    model: "fo/m",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  for await (const _ of stream);
  assert.deepEqual(sent(openaiFake).stream_options, { include_usage: true });
});

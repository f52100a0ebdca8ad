// Issue 12 items 9 and 10, the chat→chat relay: every field of the gateway's `reasoning` object
// reaches the upstream as the chat protocol's own `reasoning_effort`, `exclude` keeps the upstream's
// reasoning out of the answer (whole and streamed), and a client's `max_tokens` goes upstream as
// `max_completion_tokens` (OpenAI's reasoning models refuse `max_tokens`).

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

let gw: RunningGateway;
let fo: FakeUpstream;
let fd: FakeUpstream;
/** A provider that takes only `max_tokens` (Mistral's kind: `max_tokens_field: max_tokens`). */
let fm: FakeUpstream;
let client: OpenAI;

before(async () => {
  [fo, fd, fm] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("openai", { reasoningField: "reasoning_content" }),
    startFakeUpstream("openai"),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-chat-relay-reasoning-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        fakeProvider("fo", fo),
        fakeProvider("fd", fd),
        { ...fakeProvider("fm", fm), max_tokens_field: "max_tokens" },
      ],
      models: [fakeModel("fo/m", ["fo"]), fakeModel("fd/m", ["fd"]), fakeModel("fm/m", ["fm"])],
    }),
    { dir },
  );
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all([fo?.close(), fd?.close(), fm?.close()]);
});

const THINKING = {
  blocks: [
    { type: "thinking" as const, text: "Let me think about it.", signature: "sig-1" },
    { type: "text" as const, text: "The answer is 4." },
  ],
};

function sent(fake: FakeUpstream): Record<string, unknown> {
  return fake.requests.at(-1)!.body as Record<string, unknown>;
}

test("reasoning {enabled: true} alone asks the upstream for reasoning (reasoning_effort medium)", async () => {
  await client.chat.completions.create({
    model: "fo/m",
    messages: [{ role: "user", content: "2+2?" }],
    // @ts-expect-error the gateway's OpenRouter-style field, not in the SDK's types
    reasoning: { enabled: true },
  });
  assert.equal(sent(fo).reasoning_effort, "medium");
  assert.equal("reasoning" in sent(fo), false);
});

test("reasoning {max_tokens} and {effort} map to reasoning_effort as on a translated route", async () => {
  for (const [reasoning, effort] of [
    [{ max_tokens: 2000 }, "low"],
    [{ max_tokens: 20000 }, "high"],
    [{ effort: "high" }, "high"],
  ] as const) {
    await client.chat.completions.create({
      model: "fo/m",
      messages: [{ role: "user", content: "2+2?" }],
      // @ts-expect-error the gateway's field
      reasoning,
    });
    assert.equal(sent(fo).reasoning_effort, effort, JSON.stringify(reasoning));
  }
});

for (const fake of ["fo", "fd"] as const) {
  test(`reasoning.exclude keeps the upstream's reasoning out of a whole answer (${fake})`, async () => {
    const upstream = fake === "fo" ? fo : fd;
    for (const exclude of [false, true]) {
      upstream.script(THINKING);
      const answer = await client.chat.completions.create({
        model: `${fake}/m`,
        messages: [{ role: "user", content: "2+2?" }],
        // @ts-expect-error the gateway's field
        reasoning: { enabled: true, exclude },
      });
      const message = answer.choices[0].message as unknown as Record<string, unknown>;
      assert.equal(message.content, "The answer is 4.");
      const shown =
        "reasoning" in message || "reasoning_content" in message || "reasoning_details" in message;
      assert.equal(shown, !exclude, `exclude=${exclude}`);
      assert.equal("reasoning" in sent(upstream), false);
    }
  });

  test(`reasoning.exclude keeps the upstream's reasoning out of a stream (${fake})`, async () => {
    const upstream = fake === "fo" ? fo : fd;
    for (const exclude of [false, true]) {
      upstream.script(THINKING);
      const stream = await client.chat.completions.create({
        model: `${fake}/m`,
        stream: true,
        messages: [{ role: "user", content: "2+2?" }],
        // @ts-expect-error the gateway's field
        reasoning: { enabled: true, exclude },
      });
      let content = "";
      let reasoningSeen = false;
      for await (const chunk of stream) {
        const delta = (chunk.choices[0]?.delta ?? {}) as Record<string, unknown>;
        content += (delta.content as string | undefined) ?? "";
        if ("reasoning" in delta || "reasoning_content" in delta || "reasoning_details" in delta)
          reasoningSeen = true;
      }
      assert.equal(content, "The answer is 4.");
      assert.equal(reasoningSeen, !exclude, `exclude=${exclude}`);
    }
  });
}

test("max_tokens goes upstream as max_completion_tokens", async () => {
  await client.chat.completions.create({
    model: "fo/m",
    max_tokens: 77,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(sent(fo).max_completion_tokens, 77);
  assert.equal("max_tokens" in sent(fo), false);
  await client.chat.completions.create({
    model: "fo/m",
    max_completion_tokens: 55,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(sent(fo).max_completion_tokens, 55);
});

test("a provider set to max_tokens_field: max_tokens gets max_tokens, relayed and translated", async () => {
  await client.chat.completions.create({
    model: "fm/m",
    max_completion_tokens: 66,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(sent(fm).max_tokens, 66);
  assert.equal("max_completion_tokens" in sent(fm), false);
  const anthropic = new Anthropic({
    apiKey: PAYG_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { "anthropic-version": "2023-06-01" },
  });
  await anthropic.messages.create({
    model: "fm/m",
    max_tokens: 44,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(sent(fm).max_tokens, 44);
  assert.equal("max_completion_tokens" in sent(fm), false);
});

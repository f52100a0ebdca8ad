// qwen-code in Anthropic mode sends `max_tokens: 32000` with `thinking.budget_tokens: 32000` and
// `anthropic-beta: interleaved-thinking-2025-05-14`. With that beta the provider lets the budget
// exceed max_tokens, up to the model's context window (its thinking spans several turns between tool
// calls); without it the rule is budget_tokens < max_tokens. Driven here by @anthropic-ai/sdk's beta
// client, which sends the beta header (and posts to /v1/messages?beta=true) as qwen-code does.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const INTERLEAVED = "interleaved-thinking-2025-05-14";

let gw: RunningGateway;
let fake: FakeUpstream;
let client: Anthropic;

before(async () => {
  fake = await startFakeUpstream("anthropic", { apiKey: "k-anthropic" });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-interleaved-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [{ id: "fa", protocol: "anthropic", base_url: fake.url, api_key: "k-anthropic" }],
      models: [
        {
          id: "fa/claude",
          reasoning: true,
          context_length: 200_000,
          max_output_tokens: 64_000,
          endpoints: [{ provider: "fa", model: "claude-sonnet-4-5" }],
        },
        // The local thinking model behind a small window, to find the window's edge.
        {
          id: "local/small-window",
          reasoning: true,
          context_length: 40_000,
          endpoints: [{ provider: "local", model: "think-1" }],
        },
      ],
    }),
    { dir },
  );
  // A timeout of its own: the SDK refuses an unstreamed call whose max_tokens might run past 10 minutes.
  client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0, timeout: 60_000 });
});
after(async () => {
  await gw?.stop();
  await fake?.close();
});

/** What qwen-code sends: the budget equal to max_tokens. */
const qwenCode = (model: string, budget = 32_000) => ({
  model,
  max_tokens: 32_000,
  thinking: { type: "enabled" as const, budget_tokens: budget },
  messages: [{ role: "user" as const, content: "Think it through" }],
});

describe("with anthropic-beta: interleaved-thinking-2025-05-14", () => {
  test("budget_tokens equal to max_tokens is served by the local thinking model", async () => {
    const message = await client.beta.messages.create({ ...qwenCode("local/think-1"), betas: [INTERLEAVED] });
    assert.deepEqual(
      message.content.map((b) => b.type),
      ["thinking", "text"],
    );
  });

  test("streamed, too", async () => {
    const stream = client.beta.messages.stream({ ...qwenCode("local/think-1"), betas: [INTERLEAVED] });
    const final = await stream.finalMessage();
    assert.equal(final.stop_reason, "end_turn");
  });

  test("relayed to an Anthropic upstream with the beta and the budget as sent", async () => {
    fake.reset();
    const message = await client.beta.messages.create({ ...qwenCode("fa/claude"), betas: [INTERLEAVED] });
    assert.equal(message.type, "message");
    const sent = fake.requests[0];
    assert.equal(sent.body.thinking.budget_tokens, 32_000);
    assert.match(String(sent.headers["anthropic-beta"]), /interleaved-thinking-2025-05-14/);
  });

  test("a budget past the model's context window is a 400 naming the window", async () => {
    const err = await client.beta.messages
      .create({ ...qwenCode("local/small-window", 40_001), betas: [INTERLEAVED] })
      .then(
        () => assert.fail("the call succeeded"),
        (e: unknown) => e,
      );
    assert.ok(err instanceof Anthropic.BadRequestError, String(err));
    assert.match((err.error as any).error.message, /thinking\.budget_tokens.*context window \(40000\)/);
  });
});

describe("without the beta", () => {
  test("budget_tokens must stay below max_tokens", async () => {
    const err = await client.messages.create(qwenCode("local/think-1")).then(
      () => assert.fail("the call succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Anthropic.BadRequestError, String(err));
    assert.match((err.error as any).error.message, /must be less than max_tokens \(32000\)/);
  });
});

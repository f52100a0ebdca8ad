// Accounts pay for what they use: settlement debits a pay-as-you-go account by the exact cost, a
// subscription key's usage leaves the balance alone, and an account with no credit left gets a
// native 402 before any upstream call.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { type RunningGateway, runCli, startGateway } from "../../support/gateway.ts";
import { lookupSettled, rawNumber } from "../../support/lookup.ts";

const PAYG = "sk-balance-payg-0123456789";
const SUB = "sk-ss-v1-balance-0123456789";
const DISC = "sk-balance-disc-0123456789";

let gw: RunningGateway;
let fake: FakeUpstream;

before(async () => {
  fake = await startFakeUpstream("openai");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-balance-"));
  gw = await startGateway(
    {
      storage: { url: `sqlite:${join(dir, "s.db")}` },
      providers: [{ id: "fo", protocol: "openai", base_url: fake.url, api_key: "k" }],
      models: [
        {
          id: "fo/m",
          display_name: "M",
          created: "2025-01-01",
          input_modalities: ["text"],
          output_modalities: ["text"],
          context_length: 100000,
          max_output_tokens: 4096,
          pricings: {
            prompt: [{ value: 2, unit: "perMTokens", currency: "USD" }],
            completion: [{ value: 8, unit: "perMTokens", currency: "USD" }],
          },
          endpoints: [{ provider: "fo", model: "m" }],
        },
      ],
      keys: [
        { key: PAYG, account: "small", credits: "0.01" },
        { key: SUB, account: "small" },
        { key: DISC, account: "disc", credits: 1 },
      ],
    },
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await fake?.close();
});

async function balance(): Promise<string> {
  const { stdout } = await runCli(["accounts", "credit", "small", "0", "--config", gw.configFile], gw.dir);
  return /balance (\S+)/.exec(stdout)?.[1] ?? stdout;
}

test("debits exactly, spares subscription usage, then refuses with 402 when the credit is gone", async () => {
  const payg = new OpenAI({ apiKey: PAYG, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const sub = new OpenAI({ apiKey: SUB, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const ask = (client: OpenAI) =>
    client.chat.completions.create({ model: "fo/m", messages: [{ role: "user", content: "x" }] });

  // 1000 prompt × $2/M + 750 completion × $8/M = 0.002 + 0.006 = 0.008
  fake.script({ blocks: [{ type: "text", text: "a" }], usage: { input: 1000, output: 750 } });
  await lookupSettled(gw.url, (await ask(payg)).id, PAYG);
  assert.equal(await balance(), "0.002");

  fake.script({ blocks: [{ type: "text", text: "b" }], usage: { input: 1000, output: 750 } });
  const subId = (await ask(sub)).id;
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(await balance(), "0.002", "subscription usage is not debited");
  assert.equal("usage" in (await lookupSettled(gw.url, subId, SUB)), false);

  fake.script({ blocks: [{ type: "text", text: "c" }], usage: { input: 1000, output: 750 } });
  await lookupSettled(gw.url, (await ask(payg)).id, PAYG);
  assert.equal(await balance(), "-0.006", "the last call may take the balance below zero");

  const before = fake.requests.length;
  await assert.rejects(ask(payg), (err: unknown) => err instanceof OpenAI.APIError && err.status === 402);
  assert.equal(fake.requests.length, before, "no upstream call was made");
  // The subscription key is not refused for the account's balance.
  fake.script({ blocks: [{ type: "text", text: "d" }] });
  assert.equal((await ask(sub)).choices[0].message.content, "d");
});

test("an account discount shows in the rating: origin, discount and bill amounts", async () => {
  const set = await runCli(["accounts", "discount", "disc", "0.25", "--config", gw.configFile], gw.dir);
  assert.equal(set.stdout.trim(), "account disc discount 0.25", set.stderr);
  const bad = await runCli(["accounts", "discount", "disc", "1.5", "--config", gw.configFile], gw.dir);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /FRACTION/);

  fake.script({ blocks: [{ type: "text", text: "e" }], usage: { input: 1000, output: 750 } });
  const client = new OpenAI({ apiKey: DISC, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const res = await client.chat.completions.create({
    model: "fo/m",
    messages: [{ role: "user", content: "x" }],
  });
  const body = await lookupSettled(gw.url, res.id, DISC);
  assert.equal(rawNumber(body, "originAmount"), "0.008");
  assert.equal(rawNumber(body, "discountAmount"), "0.002");
  assert.equal(rawNumber(body, "billAmount"), "0.006");
  assert.equal(rawNumber(body, "usage"), "0.006");
  const prompt = body.ratingResponses.ratingDetails.find((d: any) => d.feeItemCode === "prompt");
  assert.deepEqual(prompt, {
    feeItemCode: "prompt",
    rate: 2,
    originAmount: 0.002,
    discountAmount: 0.0005,
    billAmount: 0.0015,
  });
});

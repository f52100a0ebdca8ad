// billing.settle_delay_ms: until a generation is settled its lookup carries metering only; after
// the delay the billing fields appear and the account is debited once.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import OpenAI from "openai";
import { baseConfig, PAYG_KEY, startGateway } from "../../support/gateway.ts";

test("billing fields appear only after the settle delay", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-delay-"));
  const gw = await startGateway(baseConfig(dir, { billing: { settle_delay_ms: 600 } }), { dir });
  try {
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "later" }],
    });
    const read = async () =>
      (await (
        await fetch(`${gw.url}/api/v1/management/generation?id=${res.id}`, {
          headers: { authorization: `Bearer ${PAYG_KEY}` },
        })
      ).json()) as any;
    await new Promise((r) => setTimeout(r, 150));
    const early = await read();
    assert.equal(early.status, "completed");
    assert.equal(early.nativeTokens.prompt_tokens, res.usage!.prompt_tokens);
    assert.equal("usage" in early || "ratingResponses" in early, false, "not settled yet");
    let late = early;
    for (let i = 0; i < 60 && !("usage" in late); i++) {
      await new Promise((r) => setTimeout(r, 50));
      late = await read();
    }
    assert.ok(late.usage > 0, "settled after the delay");
    assert.equal(late.ratingResponses.ratingDetails.length, 2);
  } finally {
    await gw.stop();
  }
});

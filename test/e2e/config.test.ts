// The configuration as a user meets it through `switchyard serve --config`: a typo anywhere stops
// the start with exit code 2 and one line naming the key and the closest valid one, and a model
// that is not in the built-in catalog needs only an id and where it is served.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { stringify } from "yaml";
import { baseConfig, PAYG_KEY, runCli, startGateway } from "../support/gateway.ts";
import { lookupSettled, rawNumber } from "../support/lookup.ts";

describe("a typo in the file stops `serve` with exit code 2 and the closest valid key", () => {
  const cases: Array<[string, object, string]> = [
    [
      "providers[0].api-key (it used to start with the provider silently disabled)",
      { providers: [{ id: "openai", "api-key": "sk-real-key" }] },
      "providers[0].api-key: unknown key; did you mean api_key?",
    ],
    [
      "models[0].pricings.promt (a catalog record nested in the config)",
      {
        models: [
          {
            id: "acme/house-model",
            endpoints: [{ provider: "local" }],
            pricings: { promt: [{ value: 1, unit: "perMTokens" }] },
          },
        ],
      },
      "models[0].pricings.promt: unknown key; did you mean prompt?",
    ],
  ];
  for (const [name, doc, message] of cases) {
    test(name, async () => {
      const dir = mkdtempSync(join(tmpdir(), "switchyard-typo-"));
      const file = join(dir, "switchyard.yaml");
      writeFileSync(file, stringify(doc));
      const { code, stdout, stderr } = await runCli(["serve", "--config", file, "--port", "0"], dir);
      assert.equal(code, 2, stdout + stderr);
      assert.equal(stderr, `switchyard: ${file}: ${message}\n`);
      assert.equal(stdout, "");
    });
  }
});

test("a model not in the built-in catalog needs only id and endpoints: listed three ways, served, rated at 0", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-custom-"));
  const config = baseConfig(dir, {
    models: [{ id: "acme/house-model", endpoints: [{ provider: "local", model: "echo-1" }] }],
  });
  const gw = await startGateway(config, { dir });
  try {
    assert.match(gw.output(), /note: acme\/house-model has no prices: its generations are rated at 0 USD\n/);
    assert.doesNotMatch(gw.output(), /note: local\//, "priced models get no note");

    const chat = (await (
      await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${PAYG_KEY}` } })
    ).json()) as any;
    assert.deepEqual(
      chat.data.find((m: any) => m.id === "acme/house-model"),
      {
        id: "acme/house-model",
        object: "model",
        display_name: "acme/house-model",
        created: 0,
        owned_by: "acme",
        input_modalities: ["text"],
        output_modalities: ["text"],
        capabilities: { reasoning: false },
        context_length: 128000,
        pricings: {},
      },
    );

    const messages = (await (
      await fetch(`${gw.url}/v1/models?limit=1000`, {
        headers: { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01" },
      })
    ).json()) as any;
    const record = messages.data.find((m: any) => m.id === "acme/house-model");
    assert.equal(record.type, "model");
    assert.equal(record.created_at, "1970-01-01");

    const gemini = (await (
      await fetch(`${gw.url}/v1beta/models?pageSize=1000`, { headers: { "x-goog-api-key": PAYG_KEY } })
    ).json()) as any;
    const model = gemini.models.find((m: any) => m.name === "models/acme/house-model");
    assert.equal(model.displayName, "acme/house-model");
    assert.equal(model.inputTokenLimit, 128000);
    assert.equal(model.outputTokenLimit, 4096);

    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "acme/house-model", messages: [{ role: "user", content: "Hello" }] }),
    });
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.choices[0].message.content, "You said: Hello");

    const generation = await lookupSettled(gw.url, body.id, PAYG_KEY);
    assert.equal(generation.model, "acme/house-model");
    assert.ok(generation.nativeTokens.prompt_tokens > 0, "metered");
    assert.equal(rawNumber(generation, "usage"), "0");
    assert.equal(rawNumber(generation, "billAmount"), "0");
    assert.deepEqual(generation.ratingResponses.ratingDetails, [], JSON.stringify(generation));
  } finally {
    await gw.stop();
  }
});

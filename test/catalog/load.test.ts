import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { CatalogError, loadCatalogDir, parseCatalogYaml, parseModels } from "../../src/catalog/load.ts";
import { rawModel } from "./fixtures.ts";

/** Asserts that parsing throws a CatalogError with exactly this message. */
function rejects(doc: unknown, message: string): void {
  assert.throws(
    () => parseModels(doc, "catalog/test.yaml"),
    (err: unknown) => {
      assert.ok(err instanceof CatalogError, `expected a CatalogError, got ${err}`);
      assert.equal(err.message, message);
      return true;
    },
  );
}

const tier = (value: number, bounds: Record<string, number | null>) => ({
  value,
  unit: "perMTokens",
  currency: "USD",
  conditions: { prompt_tokens: { unit: "kTokens", ...bounds } },
});

describe("parseModels: a complete record", () => {
  test("every field is read and renamed; created becomes unix seconds at UTC midnight", () => {
    const [model] = parseModels(
      {
        models: [
          rawModel("acme/m-1", {
            routing: { type: "round_robin", fallback: "true" },
            quality_rank: 7,
            aliases: ["m-1-20250414"],
          }),
        ],
      },
      "catalog/test.yaml",
    );
    assert.deepEqual(model, {
      id: "acme/m-1",
      displayName: "Model acme/m-1",
      description: "About acme/m-1",
      created: 1744588800,
      ownedBy: "acme",
      inputModalities: ["text", "image"],
      outputModalities: ["text"],
      reasoning: false,
      contextLength: 100000,
      maxOutputTokens: 8192,
      pricings: {
        prompt: [{ value: 1.25, unit: "perMTokens", currency: "USD" }],
        completion: [{ value: 10, unit: "perMTokens", currency: "USD" }],
      },
      endpoints: [{ provider: "acme", model: "m-1" }],
      routing: { type: "round_robin", fallback: "true" },
      qualityRank: 7,
      aliases: ["m-1-20250414"],
    });
  });

  test("description, owned_by and reasoning have defaults; created may be unix seconds", () => {
    const [model] = parseModels(
      [
        rawModel("acme/m-1", {
          description: undefined,
          owned_by: undefined,
          reasoning: undefined,
          created: 86400,
        }),
      ],
      "x",
    );
    assert.equal(model.description, "");
    assert.equal(model.ownedBy, "acme");
    assert.equal(model.reasoning, false);
    assert.equal(model.created, 86400);
  });

  test("tiers with conditions (and lt: null) are kept exactly as written", () => {
    const prompt = [tier(1.25, { lte: 200 }), tier(2.5, { gt: 200, lt: null })];
    const [model] = parseModels([rawModel("acme/m-1", { pricings: { prompt, completion: prompt } })], "x");
    assert.deepEqual(model.pricings.prompt, prompt);
  });

  test("records are frozen: the shared catalog cannot be edited by accident", () => {
    const [model] = parseModels([rawModel("acme/m-1")], "x");
    assert.ok(Object.isFrozen(model));
    assert.ok(Object.isFrozen(model.pricings.prompt![0]));
    assert.throws(() => {
      (model.endpoints as unknown[]).push({});
    }, TypeError);
  });
});

describe("parseModels: errors name the source, the key path and the problem", () => {
  const withPricing = (pricings: unknown) => ({
    models: [rawModel("acme/ok"), rawModel("acme/m", { pricings })],
  });

  test("document shape", () => {
    rejects(null, "catalog/test.yaml: models: expected a document with a top-level `models:` list");
    rejects({ models: {} }, "catalog/test.yaml: models: must be a list of model records");
    rejects({ models: [], extra: 1 }, "catalog/test.yaml: extra: unknown key; valid keys are models");
    rejects({ models: ["x"] }, "catalog/test.yaml: models[0]: must be a mapping (a model record)");
  });

  test("pricing unit, currency, value, category", () => {
    rejects(
      withPricing({
        prompt: [
          { value: 1, unit: "perMTokens", currency: "USD" },
          { value: 1, unit: "perToken" },
        ],
      }),
      "catalog/test.yaml: models[1].pricings.prompt[1].unit: must be one of perMTokens, perCount, perSecond",
    );
    rejects(
      withPricing({ prompt: [{ value: 1, unit: "perMTokens", currency: "EUR" }] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].currency: must be USD",
    );
    rejects(
      withPricing({ prompt: [{ value: -1, unit: "perMTokens", currency: "USD" }] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].value: must be a number >= 0 (USD per unit; 0 means free)",
    );
    rejects(
      withPricing({ prompt: [{ value: "1", unit: "perMTokens", currency: "USD" }] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].value: must be a number >= 0 (USD per unit; 0 means free)",
    );
    rejects(
      withPricing({ input_cache_hit: [{ value: 1, unit: "perMTokens", currency: "USD" }] }),
      "catalog/test.yaml: models[1].pricings.input_cache_hit: unknown key; valid keys are prompt, completion, " +
        "input_cache_read, input_cache_write_5_min, input_cache_write_1_h, input_cache_write, web_search, " +
        "internal_reasoning, image, audio, video, audio_and_video",
    );
    rejects(
      withPricing({ prompt: [] }),
      "catalog/test.yaml: models[1].pricings.prompt: must be a non-empty list of pricing items",
    );
    rejects(
      withPricing({ prompt: [{ value: 1, unit: "perMTokens", currency: "USD", discount: 2 }] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].discount: unknown key; valid keys are value, unit, currency, conditions",
    );
  });

  test("conditions", () => {
    const item = (conditions: unknown) => ({ value: 1, unit: "perMTokens", currency: "USD", conditions });
    rejects(
      withPricing({ prompt: [item({ prompt_tokens: { unit: "tokens", lte: 200 } })] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].conditions.prompt_tokens.unit: must be kTokens",
    );
    rejects(
      withPricing({ prompt: [item({ input_tokens: { unit: "kTokens", lte: 200 } })] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].conditions.input_tokens: unknown key; " +
        "valid keys are prompt_tokens, completion_tokens",
    );
    rejects(
      withPricing({ prompt: [item({})] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].conditions: must name prompt_tokens or completion_tokens",
    );
    rejects(
      withPricing({ prompt: [item({ prompt_tokens: { unit: "kTokens", lt: null } })] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].conditions.prompt_tokens: needs at least one bound (gte, lte, gt or lt)",
    );
    rejects(
      withPricing({ prompt: [item({ prompt_tokens: { unit: "kTokens", gte: null } })] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].conditions.prompt_tokens.gte: must be a number >= 0 (thousands of tokens)",
    );
    rejects(
      withPricing({ prompt: [item({ prompt_tokens: { unit: "kTokens", gt: 200, lte: 200 } })] }),
      "catalog/test.yaml: models[1].pricings.prompt[0].conditions.prompt_tokens: its bounds exclude every token count, " +
        "so the item never applies",
    );
  });

  test("tiers: nothing after a catch-all, no unpriced gap", () => {
    rejects(
      withPricing({ prompt: [{ value: 1, unit: "perMTokens", currency: "USD" }, tier(2, { gt: 200 })] }),
      "catalog/test.yaml: models[1].pricings.prompt[1]: never applies: item [0] has no conditions and always applies",
    );
    rejects(
      withPricing({ prompt: [tier(1, { lt: 200 }), tier(2, { gt: 200 })] }),
      "catalog/test.yaml: models[1].pricings.prompt: tiers on prompt_tokens leave counts from 200 kTokens unpriced",
    );
    rejects(
      withPricing({ prompt: [tier(1, { lte: 200 })] }),
      "catalog/test.yaml: models[1].pricings.prompt: tiers on prompt_tokens leave counts above 200 kTokens unpriced",
    );
    rejects(
      withPricing({ prompt: [tier(1, { gte: 10 }), tier(2, { lt: 5 })] }),
      "catalog/test.yaml: models[1].pricings.prompt: tiers on prompt_tokens leave counts from 5 kTokens unpriced",
    );
    // A specific tier before a catch-all is allowed (the biller takes the first that applies).
    assert.doesNotThrow(() =>
      parseModels(
        withPricing({ prompt: [tier(2, { gt: 200 }), { value: 1, unit: "perMTokens", currency: "USD" }] }),
        "x",
      ),
    );
    assert.doesNotThrow(() =>
      parseModels(withPricing({ prompt: [tier(1, { lt: 200 }), tier(2, { gte: 200 })] }), "x"),
    );
  });

  test("model fields", () => {
    const bad = (overrides: Record<string, unknown>) => ({ models: [rawModel("acme/m", overrides)] });
    rejects(
      bad({ id: "no-slash" }),
      "catalog/test.yaml: models[0].id: must be <provider>/<model_name> (letters, digits, '.', '_', '-'; no spaces or ':')",
    );
    rejects(
      bad({ id: "acme/m:generate" }),
      "catalog/test.yaml: models[0].id: must be <provider>/<model_name> (letters, digits, '.', '_', '-'; no spaces or ':')",
    );
    rejects({ models: [{ display_name: "x" }] }, "catalog/test.yaml: models[0].id: is required");
    rejects(
      bad({ display_name: "" }),
      "catalog/test.yaml: models[0].display_name: must be a non-empty string",
    );
    rejects(
      bad({ created: "2025-02-30" }),
      "catalog/test.yaml: models[0].created: must be a date YYYY-MM-DD or unix seconds",
    );
    rejects(
      bad({ created: "April 2025" }),
      "catalog/test.yaml: models[0].created: must be a date YYYY-MM-DD or unix seconds",
    );
    rejects(
      bad({ input_modalities: ["text", "pdf"] }),
      "catalog/test.yaml: models[0].input_modalities[1]: must be one of text, image, video, audio, file",
    );
    rejects(
      bad({ output_modalities: [] }),
      "catalog/test.yaml: models[0].output_modalities: must be a non-empty list of text, image, video, audio, file, embeddings",
    );
    rejects(
      bad({ input_modalities: ["text", "text"] }),
      "catalog/test.yaml: models[0].input_modalities[1]: repeats text",
    );
    rejects(bad({ reasoning: "yes" }), "catalog/test.yaml: models[0].reasoning: must be true or false");
    rejects(
      bad({ context_length: 1.5 }),
      "catalog/test.yaml: models[0].context_length: must be a positive integer",
    );
    rejects(
      bad({ max_output_tokens: 0 }),
      "catalog/test.yaml: models[0].max_output_tokens: must be a positive integer",
    );
    rejects(
      bad({ max_output_tokens: 200000 }),
      "catalog/test.yaml: models[0].max_output_tokens: 200000 exceeds context_length 100000 of acme/m",
    );
    rejects(
      bad({ max_output_token: 10 }),
      "catalog/test.yaml: models[0].max_output_token: unknown key; did you mean max_output_tokens?",
    );
    rejects(bad({ endpoints: undefined }), "catalog/test.yaml: models[0].endpoints: is required");
    rejects(
      bad({ endpoints: [] }),
      "catalog/test.yaml: models[0].endpoints: must be a non-empty list of {provider, model} (which provider serves it, under which name)",
    );
    rejects(
      bad({ endpoints: [{ model: "m" }] }),
      "catalog/test.yaml: models[0].endpoints[0].provider: is required",
    );
    rejects(
      bad({ endpoints: [{ provider: "acme", model: " " }] }),
      "catalog/test.yaml: models[0].endpoints[0].model: must be a non-empty string",
    );
    rejects(
      bad({
        endpoints: [
          { provider: "a", model: "m" },
          { provider: "a", model: "m" },
        ],
      }),
      "catalog/test.yaml: models[0].endpoints[1]: repeats provider a with model m",
    );
    rejects(
      bad({ routing: { type: "random" } }),
      "catalog/test.yaml: models[0].routing.type: must be one of priority, round_robin, least_latency",
    );
    rejects(
      bad({ routing: { fallback: 1 } }),
      "catalog/test.yaml: models[0].routing.fallback: must be true, false or a provider id",
    );
    rejects(bad({ quality_rank: "high" }), "catalog/test.yaml: models[0].quality_rank: must be a number");
    rejects(bad({ aliases: "m-1" }), "catalog/test.yaml: models[0].aliases: must be a list of model names");
    rejects(
      bad({ aliases: ["m 1"] }),
      "catalog/test.yaml: models[0].aliases[0]: must be a model name (letters, digits, '.', '_', '-', '/'; no spaces or ':')",
    );
  });

  test("a repeated id", () => {
    rejects(
      { models: [rawModel("acme/a"), rawModel("acme/b"), rawModel("acme/a")] },
      "catalog/test.yaml: models[2].id: repeats acme/a (first at models[0])",
    );
  });
});

describe("parseCatalogYaml and loadCatalogDir", () => {
  test("YAML dates stay dates: an unquoted 2025-04-14 is read as the release date", () => {
    const text = `models:\n  - id: acme/m\n    display_name: M\n    created: 2025-04-14\n    input_modalities: [text]\n    output_modalities: [text]\n    context_length: 10\n    max_output_tokens: 5\n    pricings:\n      prompt: [{ value: 0.15, unit: perMTokens, currency: USD }]\n    endpoints: [{ provider: acme, model: m }]\n`;
    const [model] = parseCatalogYaml(text, "catalog/acme.yaml");
    assert.equal(model.created, 1744588800);
    assert.equal(model.pricings.prompt![0].value, 0.15);
  });

  test("a YAML syntax error names the file and line", () => {
    assert.throws(
      () => parseCatalogYaml("models:\n  - id: acme/m\n    display_name: [unclosed\n", "catalog/acme.yaml"),
      (err: unknown) => err instanceof CatalogError && /^catalog\/acme\.yaml: line \d+: /.test(err.message),
    );
  });

  test("files are read in order, ids sorted, and an id in two files is refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "catalog-"));
    try {
      const yamlOf = (ids: string[]) => JSON.stringify({ models: ids.map((id) => rawModel(id)) });
      writeFileSync(join(dir, "b.yaml"), yamlOf(["zeta/z", "acme/b"]));
      writeFileSync(join(dir, "a.yaml"), yamlOf(["acme/c"]));
      writeFileSync(join(dir, "notes.txt"), "not a catalog file");
      assert.deepEqual(
        loadCatalogDir(dir, "catalog").map((m) => m.id),
        ["acme/b", "acme/c", "zeta/z"],
      );
      writeFileSync(join(dir, "c.yaml"), yamlOf(["acme/x", "zeta/z"]));
      assert.throws(() => loadCatalogDir(dir, "catalog"), {
        name: "CatalogError",
        message: "catalog/c.yaml: models[1].id: repeats zeta/z, already in catalog/b.yaml",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

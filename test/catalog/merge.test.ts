import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CatalogError, mergeModels, parseModels } from "../../src/catalog/load.ts";
import { rawModel } from "./fixtures.ts";

const base = parseModels(
  [
    rawModel("acme/b", {
      pricings: {
        prompt: [{ value: 1, unit: "perMTokens", currency: "USD" }],
        completion: [{ value: 2, unit: "perMTokens", currency: "USD" }],
        input_cache_read: [{ value: 0.1, unit: "perMTokens", currency: "USD" }],
      },
      endpoints: [
        { provider: "acme", model: "b" },
        { provider: "backup", model: "acme-b" },
      ],
      routing: { type: "priority" },
    }),
    rawModel("acme/a"),
  ],
  "catalog/acme.yaml",
);

describe("mergeModels", () => {
  test("a partial override of an existing id changes only the keys it gives", () => {
    const merged = mergeModels(
      base,
      [{ id: "acme/b", display_name: "B, renamed", context_length: 50000 }],
      "cfg.yaml",
    );
    const b = merged.find((m) => m.id === "acme/b")!;
    const original = base.find((m) => m.id === "acme/b")!;
    assert.deepEqual(b, { ...original, displayName: "B, renamed", contextLength: 50000 });
  });

  test("pricings, endpoints and routing given replace the old ones whole", () => {
    const merged = mergeModels(
      base,
      [
        {
          id: "acme/b",
          pricings: { prompt: [{ value: 3, unit: "perMTokens", currency: "USD" }] },
          endpoints: [{ provider: "other", model: "b2" }],
          routing: { primary_factor: "cost" },
        },
      ],
      "cfg.yaml",
    );
    const b = merged.find((m) => m.id === "acme/b")!;
    assert.deepEqual(b.pricings, { prompt: [{ value: 3, unit: "perMTokens", currency: "USD" }] });
    assert.deepEqual(b.endpoints, [{ provider: "other", model: "b2" }]);
    assert.deepEqual(b.routing, { primary_factor: "cost" });
  });

  test("a new id needs endpoints, and is added in id order", () => {
    const merged = mergeModels(base, [rawModel("acme/aa")], "cfg.yaml");
    assert.deepEqual(
      merged.map((m) => m.id),
      ["acme/a", "acme/aa", "acme/b"],
    );
    assert.throws(() => mergeModels(base, [{ id: "acme/new", display_name: "New" }], "cfg.yaml"), {
      name: "CatalogError",
      message:
        "cfg.yaml: models[0].endpoints: is required: acme/new is not in the built-in catalog, " +
        "so it needs endpoints (which provider serves it)",
    });
  });

  test("a new id with only id and endpoints gets every other key's documented default", () => {
    const merged = mergeModels(
      base,
      [{ id: "vllm/meta-llama/Llama-3.1-8B", endpoints: [{ provider: "vllm" }] }],
      "cfg.yaml",
    );
    assert.deepEqual(
      merged.find((m) => m.id === "vllm/meta-llama/Llama-3.1-8B"),
      {
        id: "vllm/meta-llama/Llama-3.1-8B",
        displayName: "vllm/meta-llama/Llama-3.1-8B",
        description: "",
        created: 0,
        ownedBy: "vllm",
        inputModalities: ["text"],
        outputModalities: ["text"],
        reasoning: false,
        contextLength: 128000,
        maxOutputTokens: 4096,
        pricings: {},
        endpoints: [{ provider: "vllm", model: "meta-llama/Llama-3.1-8B" }],
      },
    );
  });

  test("defaulted limits never contradict a given one", () => {
    const [small] = mergeModels(
      [],
      [{ id: "a/small", context_length: 2048, endpoints: [{ provider: "a" }] }],
      "c",
    );
    assert.equal(small.maxOutputTokens, 2048);
    const [long] = mergeModels(
      [],
      [{ id: "a/long", max_output_tokens: 200000, endpoints: [{ provider: "a" }] }],
      "c",
    );
    assert.equal(long.contextLength, 200000);
  });

  test("override values are validated with the same key paths", () => {
    assert.throws(
      () =>
        mergeModels(
          base,
          [
            { id: "acme/a" },
            { id: "acme/b", pricings: { prompt: [{ value: 1, unit: "perToken", currency: "USD" }] } },
          ],
          "cfg.yaml",
        ),
      {
        message:
          "cfg.yaml: models[1].pricings.prompt[0].unit: must be one of perMTokens, perCount, perSecond",
      },
    );
    // The override is checked against the merged record: a smaller context than the old output limit.
    assert.throws(() => mergeModels(base, [{ id: "acme/b", context_length: 1000 }], "cfg.yaml"), {
      message: "cfg.yaml: models[0].max_output_tokens: 8192 exceeds context_length 1000 of acme/b",
    });
    assert.throws(() => mergeModels(base, [{ id: "acme/a" }, { id: "acme/a" }], "cfg.yaml"), {
      message: "cfg.yaml: models[1].id: repeats acme/a (first at models[0])",
    });
    assert.throws(() => mergeModels(base, { "acme/a": {} }, "cfg.yaml"), CatalogError);
  });

  test("no overrides: the same models; the base list itself is never changed", () => {
    const before = base.map((m) => m.id);
    assert.deepEqual(
      mergeModels(base, undefined, "cfg.yaml").map((m) => m.id),
      ["acme/a", "acme/b"],
    );
    mergeModels(base, [{ id: "acme/b", display_name: "X" }], "cfg.yaml");
    assert.deepEqual(
      base.map((m) => m.id),
      before,
    );
    assert.equal(base.find((m) => m.id === "acme/b")!.displayName, "Model acme/b");
  });
});

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { stringify } from "yaml";
import { BUILTIN_CATALOG_DIR, loadBuiltinCatalog } from "../../src/catalog/load.ts";
import { isEmbeddingModel } from "../../src/catalog/types.ts";
import { loadConfig } from "../../src/config/load.ts";
import { providersFromEnv } from "../../src/config/providers.ts";
import { ModelIndex } from "../../src/gateway/models.ts";
import { bedrockFamily } from "../../src/providers/platforms/bedrock.ts";
import { vertexFamily } from "../../src/providers/platforms/vertex.ts";

const catalog = loadBuiltinCatalog();
/** The provider ids the built-in catalog's cloud endpoints name (docs/clouds.md, "Built-in endpoints"). */
const CLOUD_PROVIDER_IDS = ["bedrock", "vertex", "azure"];
/** Vendors with no API of their own among the built-in providers: their models are served by a cloud. */
const PLATFORM_ONLY_VENDORS = new Set(["amazon", "meta", "cohere"]);
const byId = new Map(catalog.map((m) => [m.id, m]));
const perM = (value: number) => ({ value, unit: "perMTokens", currency: "USD" });
const promptTier = (value: number, bounds: Record<string, number>) => ({
  ...perM(value),
  conditions: { prompt_tokens: { unit: "kTokens", ...bounds } },
});

describe("the built-in catalog", () => {
  test("loads (every file passes the validator), once, sorted by id", () => {
    assert.ok(catalog.length >= 30, `only ${catalog.length} models`);
    assert.equal(loadBuiltinCatalog(), catalog);
    const ids = catalog.map((m) => m.id);
    assert.deepEqual(ids, [...ids].sort());
    for (const family of ["openai.yaml", "anthropic.yaml", "google.yaml", "vendors.yaml", "local.yaml"]) {
      assert.ok(readdirSync(BUILTIN_CATALOG_DIR).includes(family), `catalog/${family} missing`);
    }
  });

  test("loads from any working directory", () => {
    const script = `import(${JSON.stringify(join(import.meta.dirname, "../../src/catalog/load.ts"))}).then((m) => console.log(m.loadBuiltinCatalog().length))`;
    const out = execFileSync(process.execPath, ["-e", script], { cwd: "/", encoding: "utf8" });
    assert.equal(Number(out.trim()), catalog.length);
  });

  test("each file names its source page and the date it was read", () => {
    for (const file of readdirSync(BUILTIN_CATALOG_DIR).filter(
      (f) => f.endsWith(".yaml") && f !== "local.yaml",
    )) {
      const head = readFileSync(join(BUILTIN_CATALOG_DIR, file), "utf8").split("\nmodels:")[0];
      assert.match(head, /https:\/\/\S+/, `${file}: no source page`);
      assert.match(head, /read 2026-\d{2}-\d{2}/, `${file}: no date read`);
    }
  });

  test("every model has prompt and completion prices (an embedding model: prompt only, and its vector length), a description, and an endpoint of its own provider (a cloud's, for a vendor reached only there)", () => {
    for (const model of catalog) {
      assert.ok(model.pricings.prompt?.length, `${model.id}: no prompt price`);
      if (isEmbeddingModel(model)) {
        assert.equal(
          model.pricings.completion,
          undefined,
          `${model.id}: an embedding model writes no tokens`,
        );
        assert.ok(model.dimensions! > 0, `${model.id}: no dimensions`);
      } else assert.ok(model.pricings.completion?.length, `${model.id}: no completion price`);
      assert.ok(model.description.length > 20, `${model.id}: no description`);
      const vendor = model.id.split("/")[0]!;
      const own = PLATFORM_ONLY_VENDORS.has(vendor) ? CLOUD_PROVIDER_IDS : [vendor];
      assert.ok(
        model.endpoints.some((e) => own.includes(e.provider)),
        `${model.id}: no endpoint on provider ${own.join(" or ")}`,
      );
      // Current models only; an embedding model stays current longer (Mistral's is from December 2023).
      const since = isEmbeddingModel(model) ? Date.UTC(2023, 0, 1) : Date.UTC(2024, 0, 1);
      assert.ok(model.created > since / 1000, `${model.id}: created ${model.created}`);
    }
  });

  test("gemini-2.5-pro has the ≤200k / >200k tiers on prompt, completion and cache reads", () => {
    const pro = byId.get("google/gemini-2.5-pro")!;
    assert.deepEqual(pro.pricings.prompt, [promptTier(1.25, { lte: 200 }), promptTier(2.5, { gt: 200 })]);
    assert.deepEqual(pro.pricings.completion, [promptTier(10, { lte: 200 }), promptTier(15, { gt: 200 })]);
    assert.deepEqual(pro.pricings.input_cache_read, [
      promptTier(0.125, { lte: 200 }),
      promptTier(0.25, { gt: 200 }),
    ]);
    assert.deepEqual(pro.endpoints, [
      { provider: "google", model: "gemini-2.5-pro" },
      { provider: "vertex", model: "gemini-2.5-pro" },
    ]);
    assert.equal(pro.contextLength, 1048576);
    assert.equal(pro.maxOutputTokens, 65536);
  });

  test("the brief's reference models are present with their list prices", () => {
    assert.deepEqual(byId.get("openai/gpt-4.1")!.pricings, {
      prompt: [perM(2)],
      completion: [perM(8)],
      input_cache_read: [perM(0.5)],
    });
    assert.deepEqual(byId.get("anthropic/claude-haiku-4-5")!.pricings, {
      prompt: [perM(1)],
      completion: [perM(5)],
      input_cache_read: [perM(0.1)],
      input_cache_write_5_min: [perM(1.25)],
      input_cache_write_1_h: [perM(2)],
      web_search: [{ value: 0.01, unit: "perCount", currency: "USD" }],
    });
    const sonnet = byId.get("anthropic/claude-sonnet-4-5")!;
    assert.deepEqual(sonnet.pricings.input_cache_write_1_h, [
      promptTier(6, { lte: 200 }),
      promptTier(12, { gt: 200 }),
    ]);
    assert.ok(byId.has("deepseek/deepseek-chat"));
  });

  test("every Anthropic model prices cache reads, both cache writes and web search", () => {
    for (const model of catalog.filter((m) => m.id.startsWith("anthropic/"))) {
      for (const category of [
        "input_cache_read",
        "input_cache_write_5_min",
        "input_cache_write_1_h",
      ] as const) {
        assert.ok(model.pricings[category], `${model.id}: no ${category}`);
      }
      assert.deepEqual(model.pricings.web_search, [{ value: 0.01, unit: "perCount", currency: "USD" }]);
    }
  });

  test("the local demo models", () => {
    const echo = byId.get("local/echo-1")!;
    assert.deepEqual(
      {
        input: echo.inputModalities,
        reasoning: echo.reasoning,
        endpoints: echo.endpoints,
        pricings: echo.pricings,
      },
      {
        input: ["text", "image"],
        reasoning: false,
        endpoints: [{ provider: "local", model: "echo-1" }],
        pricings: { prompt: [perM(1)], completion: [perM(2)], input_cache_read: [perM(0.1)] },
      },
    );
    const think = byId.get("local/think-1")!;
    assert.equal(think.reasoning, true);
    assert.deepEqual(think.endpoints, [{ provider: "local", model: "think-1" }]);
    assert.deepEqual(think.pricings.prompt, [promptTier(1, { lte: 200 }), promptTier(2, { gt: 200 })]);
    for (const model of [echo, think]) {
      assert.equal(model.contextLength, 1000000);
      assert.equal(model.maxOutputTokens, 8192);
    }
  });
});

describe("the built-in catalog's cloud endpoints (docs/clouds.md, Built-in endpoints)", () => {
  const endpointsOf = (provider: string) =>
    catalog.flatMap((m) =>
      m.endpoints.filter((e) => e.provider === provider).map((e) => ({ id: m.id, ...e })),
    );

  test("every endpoint names a built-in provider or one of the conventional cloud ids", () => {
    const known = new Set([...providersFromEnv({}).map((p) => p.id), ...CLOUD_PROVIDER_IDS]);
    for (const model of catalog)
      for (const e of model.endpoints)
        assert.ok(known.has(e.provider), `${model.id}: provider ${e.provider}`);
  });

  test("Claude reaches Bedrock and Vertex in their Anthropic family, Gemini Vertex, GPT Azure; Nova and Llama Converse", () => {
    const bedrock = endpointsOf("bedrock");
    for (const e of bedrock) {
      const claude = e.id.startsWith("anthropic/");
      assert.equal(bedrockFamily(e.model!), claude ? "anthropic" : "converse", e.id);
      // The global profiles are priced as Anthropic prices (the catalog file's comment).
      if (claude) assert.match(e.model!, /^global\.anthropic\./, e.id);
    }
    assert.ok(bedrock.some((e) => e.id === "amazon/nova-pro"));
    assert.ok(bedrock.some((e) => e.id === "meta/llama-4-maverick"));
    for (const e of endpointsOf("vertex"))
      assert.equal(vertexFamily(e.model!), e.id.startsWith("anthropic/") ? "anthropic" : "gemini", e.id);
    assert.ok(endpointsOf("vertex").some((e) => e.id === "google/gemini-2.5-pro"));
    assert.ok(endpointsOf("azure").every((e) => e.id.startsWith("openai/")));
    assert.ok(endpointsOf("azure").some((e) => e.id === "openai/gpt-4.1"));
    // Embedding endpoints only where the platform embeds (Bedrock's InvokeModel, Vertex's :predict).
    for (const e of endpointsOf("azure")) assert.ok(!isEmbeddingModel(byId.get(e.id)!), e.id);
    assert.deepEqual(
      [...endpointsOf("bedrock"), ...endpointsOf("vertex")]
        .filter((e) => isEmbeddingModel(byId.get(e.id)!))
        .map((e) => `${e.provider} ${e.model}`)
        .sort(),
      [
        "bedrock amazon.titan-embed-text-v2:0",
        "bedrock cohere.embed-english-v3",
        "bedrock cohere.embed-multilingual-v3",
        "vertex gemini-embedding-001",
      ],
    );
  });

  // google-gemini/gemini-cli packages/core/src/config/models.ts and defaultModelConfigs.ts: the main
  // models (DEFAULT_GEMINI_MODEL, the flash one it may be moved to, the previews), `flash-lite` for the
  // classifier, summarizers and edit corrector, and the side calls' gemini-3-flash-preview and
  // gemini-3-pro-preview (loop detection's double check, chat compression).
  const GEMINI_CLI_MODELS = [
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "gemini-2.5-flash-lite",
    "gemini-3.5-flash",
    "gemini-3.1-flash-lite",
    "gemini-3-flash-preview",
    "gemini-3-pro-preview",
    "gemini-3.1-pro-preview",
    "gemini-3.1-pro-preview-customtools",
  ];

  test("every model id Gemini CLI asks for by default is served, on a Gemini API key alone", () => {
    const config = loadConfig(configFile({}), { GEMINI_API_KEY: "k" });
    const index = new ModelIndex(config.models, config.providers);
    for (const id of GEMINI_CLI_MODELS) {
      const model = index.resolve(id);
      assert.ok(model.id.startsWith("google/"), `${id} → ${model.id}`);
      assert.ok(model.pricings.prompt?.length && model.pricings.completion?.length, `${id}: priced`);
    }
    // Google retired gemini-3-pro-preview and sends its calls to 3.1 Pro Preview; so does the gateway.
    assert.equal(index.resolve("gemini-3-pro-preview").id, "google/gemini-3.1-pro-preview");
  });

  test("a cloud endpoint is served only when a provider with its id is configured", () => {
    const served = (doc: object) => {
      const config = loadConfig(configFile(doc), {});
      return new ModelIndex(config.models, config.providers);
    };
    const bare = served({});
    assert.equal(bare.get("amazon/nova-pro"), undefined);
    assert.equal(
      bare.get("anthropic/claude-sonnet-4-6"),
      undefined,
      "no Anthropic key, no cloud: not served",
    );
    const clouds = served({
      providers: [
        { id: "bedrock", platform: "aws-bedrock", region: "us-east-1" },
        { id: "vertex", platform: "google-vertex", project: "p", location: "global" },
      ],
    });
    assert.deepEqual(clouds.get("anthropic/claude-sonnet-4-6")?.endpoints, [
      { provider: "bedrock", model: "global.anthropic.claude-sonnet-4-6" },
      { provider: "vertex", model: "claude-sonnet-4-6" },
    ]);
    assert.deepEqual(clouds.get("amazon/nova-pro")?.endpoints, [
      { provider: "bedrock", model: "us.amazon.nova-pro-v1:0" },
    ]);
    assert.equal(clouds.get("openai/gpt-4.1"), undefined, "no azure provider, no OpenAI key");
    const off = served({
      providers: [{ id: "bedrock", platform: "aws-bedrock", region: "us-east-1", enabled: false }],
    });
    assert.equal(off.get("amazon/nova-pro"), undefined);
  });
});

function configFile(doc: object): string {
  const file = join(mkdtempSync(join(tmpdir(), "switchyard-catalog-")), "switchyard.yaml");
  writeFileSync(file, stringify(doc));
  return file;
}

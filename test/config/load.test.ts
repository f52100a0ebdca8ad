// loadConfig: the whole file goes through one schema. Unknown keys at any depth are refused with the
// closest valid key, wrong values name their path and what is expected, and what is left out gets
// the documented default. (The CLI turns a ConfigError into exit code 2: test/e2e/config.test.ts.)

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { stringify } from "yaml";
import { type Config, ConfigError, loadConfig } from "../../src/config/load.ts";
import { DEFAULT_HEALTH } from "../../src/routing/settings.ts";

/** Writes `doc` (YAML text, or an object to serialize) to a fresh switchyard.yaml; returns its path. */
function configFile(doc: string | object): string {
  const file = join(mkdtempSync(join(tmpdir(), "switchyard-config-")), "switchyard.yaml");
  writeFileSync(file, typeof doc === "string" ? doc : stringify(doc));
  return file;
}

function load(doc: string | object, env: NodeJS.ProcessEnv = {}): Config {
  return loadConfig(configFile(doc), env);
}

/** Asserts the file is refused with exactly `${file}: ${message}`: one line, a ConfigError (exit 2). */
function refused(doc: string | object, message: string, env: NodeJS.ProcessEnv = {}): void {
  const file = configFile(doc);
  assert.throws(
    () => loadConfig(file, env),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError, `expected a ConfigError, got ${err}`);
      assert.equal(err.message, `${file}: ${message}`);
      assert.ok(!err.message.includes("\n"), "one line");
      return true;
    },
  );
}

const localModel = { id: "acme/mine", endpoints: [{ provider: "local", model: "echo-1" }] };

describe("typos at any depth are refused, naming the closest valid key (they used to start as if absent)", () => {
  test("providers[0].api-key: a typo for api_key used to leave the provider silently disabled", () => {
    refused(
      { providers: [{ id: "openai", "api-key": "sk-real" }] },
      "providers[0].api-key: unknown key; did you mean api_key?",
    );
  });

  test("server.prot: a typo for port used to start on the default port", () => {
    refused({ server: { prot: 9000 } }, "server.prot: unknown key; did you mean port?");
  });

  test("storage.uri: a typo for url used to start on the embedded SQLite file", () => {
    refused({ storage: { uri: "postgres://db/x" } }, "storage.uri: unknown key; did you mean url?");
  });

  test("providers[0].timeouts.first_bye_ms: a typo for first_byte_ms used to keep the default timeout", () => {
    refused(
      { providers: [{ id: "local", timeouts: { first_bye_ms: 10 } }] },
      "providers[0].timeouts.first_bye_ms: unknown key; did you mean first_byte_ms?",
    );
  });

  test("models[0].pricings.promt: a typo in a catalog record nested in the config", () => {
    refused(
      { models: [{ ...localModel, pricings: { promt: [{ value: 1, unit: "perMTokens" }] } }] },
      "models[0].pricings.promt: unknown key; did you mean prompt?",
    );
  });

  test("routing.health.cooldown: nested two levels down", () => {
    refused(
      { routing: { health: { cooldown: 5 } } },
      "routing.health.cooldown: unknown key; did you mean cooldown_ms?",
    );
  });

  test("a key far from every valid one lists the valid keys instead of guessing", () => {
    refused(
      { server: { workers: 4 } },
      "server.workers: unknown key; valid keys are host, port, body_limit_bytes",
    );
    refused(
      { dashboard: { enabled: true } },
      "dashboard: unknown key; valid keys are server, storage, redis, logging, telemetry, billing, clients, providers, models, routing, keys, admin",
    );
  });

  test("an unknown key is reported before the missing key it was probably meant to be", () => {
    refused(
      { keys: [{ key: "sk-abcdefgh", acount: "demo" }] },
      "keys[0].acount: unknown key; did you mean account?",
    );
  });
});

describe("wrong values name the path and what is expected", () => {
  const cases: Array<[string, object | string, string]> = [
    ["the document", "- a\n- b\n", "(top level): must be a mapping"],
    ["a section", { server: "here" }, "server: must be a mapping"],
    [
      "a port out of range",
      { server: { port: 99999 } },
      "server.port: must be an integer between 0 and 65535",
    ],
    [
      "a port that is not a number",
      { server: { port: "http" } },
      "server.port: must be an integer between 0 and 65535",
    ],
    [
      "a body limit of 0",
      { server: { body_limit_bytes: 0 } },
      "server.body_limit_bytes: must be a positive integer",
    ],
    [
      "a storage url",
      { storage: { url: "mysql://x" } },
      'storage.url: must start with sqlite: or postgres:// (got "mysql://x")',
    ],
    ["a redis url", { redis: { url: "http://x" } }, 'redis.url: must start with redis:// (got "http://x")'],
    [
      "a negative settle delay",
      { billing: { settle_delay_ms: -1 } },
      "billing.settle_delay_ms: must be an integer >= 0",
    ],
    ["providers as a mapping", { providers: { openai: {} } }, "providers: must be a list"],
    ["a provider without id", { providers: [{ protocol: "openai" }] }, "providers[0].id: is required"],
    [
      "an unknown protocol",
      { providers: [{ id: "mine", protocol: "soap", base_url: "http://x" }] },
      "providers[0].protocol: must be one of openai, openai-responses, anthropic, gemini, local",
    ],
    [
      "a new provider without protocol",
      { providers: [{ id: "mine", base_url: "http://x" }] },
      'providers[0].protocol: is required for a provider Switchyard does not know ("mine")',
    ],
    [
      "a new provider without base_url",
      { providers: [{ id: "mine", protocol: "openai" }] },
      "providers[0].base_url: is required",
    ],
    [
      "a base_url that is not http(s)",
      { providers: [{ id: "mine", protocol: "openai", base_url: "ftp://x" }] },
      "providers[0].base_url: must be an http(s) URL",
    ],
    [
      "enabled: yes-ish",
      { providers: [{ id: "local", enabled: "on" }] },
      "providers[0].enabled: must be true or false",
    ],
    [
      "a zero timeout",
      { providers: [{ id: "local", timeouts: { idle_ms: 0 } }] },
      "providers[0].timeouts.idle_ms: must be a positive integer",
    ],
    [
      "a chunk delay over a minute",
      { providers: [{ id: "local", chunk_delay_ms: 70000 }] },
      "providers[0].chunk_delay_ms: must be an integer between 0 and 60000",
    ],
    [
      "http2 as a word",
      { providers: [{ id: "openai", http2: "h2" }] },
      "providers[0].http2: must be true or false",
    ],
    [
      "no HTTP/2 streams a connection",
      { providers: [{ id: "openai", http2: true, http2_max_streams: 0 }] },
      "providers[0].http2_max_streams: must be an integer between 1 and 1000",
    ],
    [
      "a stream limit without http2",
      { providers: [{ id: "openai", http2_max_streams: 50 }] },
      "providers[0].http2_max_streams: is set but http2 is not true",
    ],
    [
      "http2 for the local provider",
      { providers: [{ id: "local", http2: true }] },
      "providers[0].http2: does not apply to the local provider (no connection)",
    ],
    ["a key without account", { keys: [{ key: "sk-abcdefgh" }] }, "keys[0].account: is required"],
    ["a short key", { keys: [{ key: "sk-a", account: "a" }] }, "keys[0].key: must be at least 8 characters"],
    [
      "credits that are not a number",
      { keys: [{ key: "sk-abcdefgh", account: "a", credits: "lots" }] },
      "keys[0].credits: must be a decimal number",
    ],
    ["routing as text", { routing: "yes" }, "routing: must be a mapping"],
    [
      "an anthropic version that is not a date",
      { clients: { anthropic_versions: ["latest"] } },
      "clients.anthropic_versions[0]: must be a version date YYYY-MM-DD",
    ],
    [
      "an anthropic version no newer than the one always served",
      { clients: { anthropic_versions: ["2026-10-21", "2023-01-01"] } },
      "clients.anthropic_versions[1]: must be newer than 2023-06-01, which is always served",
    ],
    [
      "a routing type",
      { routing: { type: "random" } },
      "routing.type: must be one of priority, round_robin, least_latency",
    ],
    [
      "a routing fallback",
      { routing: { fallback: 3 } },
      "routing.fallback: must be true, false or a provider id",
    ],
    [
      "an empty routing provider",
      { routing: { providers: [""] } },
      "routing.providers[0]: must be a non-empty string",
    ],
    [
      "a health threshold of 0",
      { routing: { health: { failure_threshold: 0 } } },
      "routing.health.failure_threshold: must be a positive integer",
    ],
    [
      "a model price unit",
      { models: [{ id: "local/echo-1", pricings: { prompt: [{ value: 1, unit: "perYear" }] } }] },
      "models[0].pricings.prompt[0].unit: must be one of perMTokens, perCount, perSecond",
    ],
    [
      "a new model without endpoints",
      { models: [{ id: "acme/mine" }] },
      "models[0].endpoints: is required: acme/mine is not in the built-in catalog, so it needs endpoints " +
        "(which provider serves it)",
    ],
    [
      "an endpoint naming no provider (a typo: the model would never be served)",
      { models: [{ id: "acme/mine", endpoints: [{ provider: "locl" }] }] },
      'models[0].endpoints[0].provider: no provider "locl"; did you mean local?',
    ],
    [
      "an override that breaks a limit",
      { models: [{ id: "local/echo-1", context_length: 100 }] },
      "models[0].max_output_tokens: 8192 exceeds context_length 100 of local/echo-1",
    ],
  ];
  for (const [name, doc, message] of cases) test(name, () => refused(doc, message));
});

describe("what is left out gets its documented default", () => {
  test("admin keys are kept hashed; short ones, and one that is also an API key, are refused", () => {
    const key = "sk-admin-config-0123456789";
    const config = load({ admin: { keys: [key, "${UNSET_ADMIN_KEY}"] } });
    assert.equal(config.admin.keyHashes.length, 1);
    assert.ok(!JSON.stringify(config).includes(key));
    refused({ admin: { keys: ["short"] } }, "admin.keys[0]: must be at least 16 characters");
    refused(
      { keys: [{ key, account: "a" }], admin: { keys: [key] } },
      "admin.keys[0]: is also in keys: an admin key cannot be an API key",
    );
  });

  test("storage.retention_days is a whole number of days, 1 or more", () => {
    assert.equal(load({ storage: { retention_days: 30 } }).storage.retentionDays, 30);
    assert.match(
      (() => {
        try {
          load({ storage: { retention_days: 0 } });
          return "";
        } catch (err) {
          return (err as Error).message;
        }
      })(),
      /storage\.retention_days: /,
    );
  });

  test("storage.encryption_key: one key or a list, each 32 bytes of base64", () => {
    const [a, b] = [Buffer.alloc(32, 1).toString("base64"), Buffer.alloc(32, 2).toString("base64")];
    assert.deepEqual(load({ storage: { encryption_key: a } }).storage.encryptionKeys, [a]);
    assert.deepEqual(load({ storage: { encryption_key: [a, b] } }).storage.encryptionKeys, [a, b]);
    assert.equal(load({ storage: { responses_retention_days: 7 } }).storage.responsesRetentionDays, 7);
    assert.throws(
      () => load({ storage: { encryption_key: "c2hvcnQ=" } }),
      /storage\.encryption_key.*32 bytes/,
    );
  });

  test("an empty file is the built-in setup on a file-given store", () => {
    const config = load("");
    const embedded = loadConfig(undefined, {});
    assert.deepEqual(config.server, { host: "127.0.0.1", port: 8080, bodyLimitBytes: 32 * 1024 * 1024 });
    assert.deepEqual(config.storage, {
      url: "sqlite:./.switchyard/switchyard.db",
      responsesRetentionDays: 30,
      encryptionKeys: [],
    });
    assert.equal(config.redis, undefined);
    assert.deepEqual(config.billing, { settleDelayMs: 0, priceVersion: "builtin" });
    assert.deepEqual(config.keys, []);
    assert.deepEqual(config.clients, { anthropicVersions: [] });
    assert.deepEqual(config.routing, { defaults: {}, health: DEFAULT_HEALTH });
    assert.deepEqual(config.admin, { keyHashes: [] });
    assert.equal(config.embeddedDefault, false);
    assert.equal(embedded.embeddedDefault, true);
    assert.deepEqual({ ...config, embeddedDefault: true }, embedded);
  });

  test("empty sections and values count as absent (everything under them commented out)", () => {
    const config = load("server:\nstorage:\n  url:\nrouting:\nproviders:\n");
    assert.equal(config.server.port, 8080);
    assert.equal(config.storage.url, "sqlite:./.switchyard/switchyard.db");
    assert.equal(config.providers.length, loadConfig(undefined, {}).providers.length);
  });

  test("a provider's timeouts default one by one", () => {
    const config = load({ providers: [{ id: "local", timeouts: { connect_ms: 10 } }] });
    assert.deepEqual(config.providers.find((p) => p.id === "local")!.timeouts, {
      connectMs: 10,
      firstByteMs: 60_000,
      requestMs: 600_000,
      idleMs: 120_000,
    });
  });

  /**
   * A chat provider's switch, per provider id: in the built-in providers, then with the built-in
   * mistral given `builtinSetting` and a self-hosted one `otherSetting` (a third left to the default).
   */
  function providerSwitch(
    flag: "legacyMaxTokens" | "streamUsageUnasked" | "requestFields",
    builtinSetting: Record<string, string>,
    otherSetting: Record<string, string>,
  ) {
    const on = (config: Config, ids: string[]) =>
      ids.map((id) => Boolean(config.providers.find((p) => p.id === id)![flag]));
    const builtins = on(loadConfig(undefined, {}), [
      "openai",
      "mistral",
      "deepseek",
      "together",
      "groq",
      "xai",
    ]);
    const config = load({
      providers: [
        { id: "mistral", ...builtinSetting },
        { id: "vllm", protocol: "openai", base_url: "http://127.0.0.1:9/v1", ...otherSetting },
        { id: "other", protocol: "openai", base_url: "http://127.0.0.1:9/v1" },
      ],
    });
    return { builtins, set: on(config, ["mistral", "vllm", "other"]) };
  }

  test("the output-limit field: max_tokens for the built-ins that refuse or ignore the newer one, settable per provider", () => {
    const { builtins, set } = providerSwitch(
      "legacyMaxTokens",
      { max_tokens_field: "max_completion_tokens" },
      { max_tokens_field: "max_tokens" },
    );
    assert.deepEqual(builtins, [false, true, true, true, false, false]);
    assert.deepEqual(set, [false, true, false]);
  });

  test("a stream's usage: asked for with stream_options, but for the built-in mistral; settable per provider", () => {
    const { builtins, set } = providerSwitch(
      "streamUsageUnasked",
      { stream_usage: "stream_options" },
      { stream_usage: "always" },
    );
    assert.deepEqual(builtins, [false, true, false, false, false, false]);
    assert.deepEqual(set, [false, true, false]);
  });

  test("request rules: the vendor's own for the built-in openai, mistral, groq and deepseek, none for the others; settable per provider", () => {
    const { builtins, set } = providerSwitch(
      "requestFields",
      { request_fields: "any" },
      { request_fields: "mistral" },
    );
    assert.deepEqual(builtins, [true, true, true, false, true, false]);
    assert.deepEqual(set, [false, true, false]);
    const builtin = (id: string) => loadConfig(undefined, {}).providers.find((p) => p.id === id);
    assert.equal(builtin("mistral")?.requestFields, "mistral");
    assert.equal(builtin("groq")?.requestFields, "groq");
    assert.equal(builtin("deepseek")?.requestFields, "deepseek");
    assert.equal(builtin("openai")?.requestFields, "openai");
    assert.throws(() => load({ providers: [{ id: "mistral", request_fields: "strict" }] }), /request_fields/);
  });

  test("http2: off unless set, 100 streams a connection unless told", () => {
    const config = load({
      providers: [
        { id: "openai", http2: true },
        { id: "anthropic", http2: "true", http2_max_streams: "250" },
        { id: "vllm", protocol: "openai", base_url: "http://127.0.0.1:9/v1", http2: false },
      ],
    });
    const http2 = (id: string) => config.providers.find((p) => p.id === id)!.http2;
    assert.deepEqual(["openai", "anthropic", "vllm", "google"].map(http2), [
      { maxStreams: 100 },
      { maxStreams: 250 },
      undefined,
      undefined,
    ]);
  });

  test("the routing section: the fields of provider.routing and the health rules", () => {
    const config = load({
      routing: {
        type: "round_robin",
        primary_factor: "cost",
        providers: ["a"],
        fallback: false,
        health: { cooldown_ms: 50 },
      },
    });
    assert.deepEqual(config.routing, {
      defaults: { type: "round_robin", primary_factor: "cost", providers: ["a"], fallback: false },
      health: { ...DEFAULT_HEALTH, cooldownMs: 50 },
    });
  });

  test("a model not in the catalog needs only id and endpoints", () => {
    const config = load({ models: [localModel] });
    const model = config.models.find((m) => m.id === "acme/mine");
    assert.deepEqual(model, {
      id: "acme/mine",
      displayName: "acme/mine",
      description: "",
      created: 0,
      ownedBy: "acme",
      inputModalities: ["text"],
      outputModalities: ["text"],
      reasoning: false,
      contextLength: 128000,
      maxOutputTokens: 4096,
      pricings: {},
      endpoints: [{ provider: "local", model: "echo-1" }],
    });
  });

  test("a price item's currency and a condition's unit have their only value as default", () => {
    const config = load({
      models: [
        {
          ...localModel,
          pricings: {
            prompt: [
              { value: 1, unit: "perMTokens", conditions: { prompt_tokens: { lte: 200 } } },
              { value: 2, unit: "perMTokens", conditions: { prompt_tokens: { gt: 200 } } },
            ],
          },
        },
      ],
    });
    assert.deepEqual(config.models.find((m) => m.id === "acme/mine")!.pricings.prompt![0], {
      value: 1,
      unit: "perMTokens",
      currency: "USD",
      conditions: { prompt_tokens: { unit: "kTokens", lte: 200 } },
    });
  });
});

describe("${VAR} substitution", () => {
  test("values from the environment, defaults after :-, numbers and flags from text", () => {
    const config = load(
      {
        server: { port: "${SY_PORT}" },
        storage: { url: "sqlite:${SY_DIR:-/tmp}/x.db" },
        providers: [{ id: "openai", api_key: "${SY_KEY}", enabled: "${SY_ON:-true}" }],
      },
      { SY_PORT: "9001", SY_KEY: "sk-from-env" },
    );
    assert.equal(config.server.port, 9001);
    assert.equal(config.storage.url, "sqlite:/tmp/x.db");
    const openai = config.providers.find((p) => p.id === "openai")!;
    assert.equal(openai.apiKey, "sk-from-env");
    assert.equal(openai.enabled, true);
  });

  test("an unset key leaves a remote provider off, not failing", () => {
    const config = load({ providers: [{ id: "openai", api_key: "${SY_UNSET_KEY}" }] });
    assert.equal(config.providers.find((p) => p.id === "openai")!.enabled, false);
  });

  test("an unset redis url means no redis", () => {
    assert.equal(load({ redis: { url: "${SY_UNSET_REDIS}" } }).redis, undefined);
  });

  test("a substituted value is checked like a written one", () => {
    refused({ server: { port: "${SY_PORT}" } }, "server.port: must be an integer between 0 and 65535", {
      SY_PORT: "eighty",
    });
  });
});

describe("cloud platforms: `platform` replaces `protocol`; each refuses a start without its keys", () => {
  const provider = (p: object) => ({ providers: [{ id: "cloud", ...p }] });

  test("each platform's required key is named; exit 2", () => {
    refused(
      provider({ platform: "aws-bedrock" }),
      "providers[0].region: is required for platform aws-bedrock",
    );
    refused(
      provider({ platform: "google-vertex", location: "us-east5" }),
      "providers[0].project: is required for platform google-vertex",
    );
    refused(
      provider({ platform: "google-vertex", project: "p" }),
      "providers[0].location: is required for platform google-vertex",
    );
    refused(
      provider({ platform: "azure-openai" }),
      "providers[0].base_url: is required for platform azure-openai",
    );
  });

  test("a key of another platform, or a protocol beside the platform, is refused", () => {
    refused(
      provider({ platform: "azure-openai", base_url: "https://r.openai.azure.com", region: "us-east-1" }),
      "providers[0].region: applies only to platform aws-bedrock",
    );
    refused(
      provider({ protocol: "openai", base_url: "https://x", project: "p" }),
      "providers[0].project: applies only to platform google-vertex",
    );
    refused(
      provider({ platform: "aws-bedrock", region: "us-east-1", protocol: "anthropic" }),
      "providers[0].protocol: cannot be set with platform (aws-bedrock picks it)",
    );
    refused(
      provider({ platform: "aws-bedrock", region: "us-east-1", aws: { access_key_id: "AKID" } }),
      "providers[0].aws: needs both access_key_id and secret_access_key, or neither",
    );
    refused(
      provider({ platform: "google-vertex", project: "p", location: "global", api_key: "k" }),
      "providers[0].api_key: does not apply to platform google-vertex (its credentials are Google's: google.credentials_file or ADC)",
    );
  });

  test("base URLs come from the region and location; a platform provider is on without a key", () => {
    const cloud = (p: object) => load(provider(p)).providers.find((x) => x.id === "cloud")!;
    const bedrock = cloud({ platform: "aws-bedrock", region: "eu-west-1", aws: { profile: "prod" } });
    assert.equal(bedrock.baseUrl, "https://bedrock-runtime.eu-west-1.amazonaws.com");
    assert.deepEqual(bedrock.platform, {
      kind: "aws-bedrock",
      region: "eu-west-1",
      aws: { profile: "prod" },
    });
    assert.equal(bedrock.enabled, true);
    assert.equal(
      cloud({ platform: "google-vertex", project: "p", location: "us-east5" }).baseUrl,
      "https://us-east5-aiplatform.googleapis.com",
    );
    const global = cloud({ platform: "google-vertex", project: "p", location: "global" });
    assert.equal(global.baseUrl, "https://aiplatform.googleapis.com");
    const azure = cloud({
      platform: "azure-openai",
      base_url: "https://r.openai.azure.com/",
      api_version: "2024-10-21",
    });
    assert.equal(azure.baseUrl, "https://r.openai.azure.com");
    assert.deepEqual(azure.platform, { kind: "azure-openai", apiVersion: "2024-10-21" });
  });
});

// The response objects and stream events the gateway answers, checked against the Open Responses
// specification's published schema (test/fixtures/open-responses/openapi.json): create, retrieve and
// every streamed event, on the local models, translated to each fake upstream (messages, Gemini,
// chat completions) and relayed to a Responses fake; with reasoning and a tool call where the
// upstream gives them, and with every echoed setting asked for.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import OpenAI from "openai-7";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

const spec = JSON.parse(
  readFileSync(new URL("../../fixtures/open-responses/openapi.json", import.meta.url), "utf8"),
);
// OpenAPI's `discriminator` and the spec's own keywords are annotations here: strict mode off.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(spec, "spec");
const responseResource = ajv.getSchema("spec#/components/schemas/ResponseResource")!;
const streamEvent = ajv.compile({
  $ref: "spec#/paths/~1responses/post/responses/200/content/text~1event-stream/schema",
});

function assertValid(validate: ValidateFunction, value: unknown, what: string): void {
  assert.ok(
    validate(value),
    `${what}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`,
  );
}

let gw: RunningGateway;
let client: OpenAI;
const fakes: FakeUpstream[] = [];

before(async () => {
  const [anthropic, gemini, responses, chat] = await Promise.all([
    startFakeUpstream("anthropic"),
    startFakeUpstream("gemini"),
    startFakeUpstream("openai-responses"),
    startFakeUpstream("openai"),
  ]);
  fakes.push(anthropic, gemini, responses, chat);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-open-responses-"));
  const config = baseConfig(dir, {
    providers: [
      fakeProvider("fa", anthropic),
      fakeProvider("fg", gemini),
      fakeProvider("fr", responses),
      fakeProvider("fo", chat),
    ],
    models: [
      fakeModel("fa/claude", ["fa"], { upstream: "claude-sonnet-4-5" }),
      fakeModel("fg/flash", ["fg"], { upstream: "gemini-2.5-flash" }),
      fakeModel("fr/gpt", ["fr"], { upstream: "gpt-5" }),
      fakeModel("fo/gpt", ["fo"], { upstream: "gpt-4.1" }),
    ],
  });
  gw = await startGateway(config, { dir });
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all(fakes.map((f) => f.close()));
});

const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: "function",
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    strict: false,
  },
];

/** A request asking for every echoed setting, reasoning (where the model has it) and a tool. */
function body(model: string, stream: boolean): OpenAI.Responses.ResponseCreateParams {
  return {
    model,
    input: "What is the weather in Paris? Call get_weather.",
    instructions: "Be brief.",
    tools: TOOLS,
    stream,
    temperature: 0.5,
    max_tool_calls: 3,
    top_logprobs: 2,
    safety_identifier: "user-42",
    prompt_cache_key: "weather-v1",
    metadata: { topic: "weather" },
    ...(model === "local/echo-1" || model === "fo/gpt"
      ? {}
      : { reasoning: { effort: "low", summary: "auto" } }),
  };
}

const MODELS = ["local/echo-1", "fa/claude", "fg/flash", "fo/gpt", "fr/gpt"];

describe("response objects pass the Open Responses schema", () => {
  for (const model of MODELS) {
    test(`${model}: create and retrieve`, async () => {
      const created = await client.responses.create(
        body(model, false) as OpenAI.Responses.ResponseCreateParamsNonStreaming,
      );
      assertValid(responseResource, created, "create");
      const retrieved = await client.responses.retrieve(created.id);
      assertValid(responseResource, retrieved, "retrieve");
      if (model === "fr/gpt") return; // a relay answers with the upstream's own object
      assert.equal(created.temperature, 0.5);
      assert.equal(created.top_p, 1);
      assert.equal(created.instructions, "Be brief.");
      assert.deepEqual(
        [created.max_tool_calls, created.top_logprobs, created.safety_identifier, created.prompt_cache_key],
        [3, 2, "user-42", "weather-v1"],
      );
      assert.equal(created.service_tier, "default");
      assert.deepEqual(created.metadata, { topic: "weather" });
      assert.equal(typeof created.completed_at, "number");
      if (model !== "local/echo-1" && model !== "fo/gpt")
        assert.deepEqual(created.reasoning, { effort: "low", summary: "auto" });
      assert.deepEqual(retrieved, created);
    });

    test(`${model}: every streamed event`, async () => {
      const stream = await client.responses.create(
        body(model, true) as OpenAI.Responses.ResponseCreateParamsStreaming,
      );
      const types: string[] = [];
      for await (const event of stream) {
        types.push(event.type);
        assertValid(streamEvent, event, event.type);
      }
      assert.deepEqual(types.slice(0, 2), ["response.created", "response.in_progress"]);
      assert.equal(types.at(-1), "response.completed");
    });
  }
});

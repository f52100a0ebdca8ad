// The response objects and stream events the gateway answers, checked against the Open Responses
// specification's published schema (test/fixtures/open-responses/openapi.json): create, retrieve and
// every streamed event, on the local models, translated to each fake upstream (messages, Gemini,
// chat completions) and relayed to a Responses fake; with reasoning and a tool call where the
// upstream gives them, and with every echoed setting asked for.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai-7";
import { PAYG_KEY } from "../../support/gateway.ts";
import { assertSchema } from "./schema.ts";
import { startUpstreamGateway, UPSTREAM_MODELS, type UpstreamGateway } from "./upstreams.ts";

let upstreams: UpstreamGateway;
let client: OpenAI;

before(async () => {
  upstreams = await startUpstreamGateway();
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${upstreams.gw.url}/v1`, maxRetries: 0 });
});
after(() => upstreams?.close());

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

describe("response objects pass the Open Responses schema", () => {
  for (const model of UPSTREAM_MODELS) {
    test(`${model}: create and retrieve`, async () => {
      const created = await client.responses.create(
        body(model, false) as OpenAI.Responses.ResponseCreateParamsNonStreaming,
      );
      assertSchema("ResponseResource", created, "create");
      const retrieved = await client.responses.retrieve(created.id);
      assertSchema("ResponseResource", retrieved, "retrieve");
      if (model === "fr/gpt") return; // a relay answers with the upstream's own object
      assert.equal(created.temperature, 0.5);
      assert.equal(created.top_p, 1);
      assert.equal(created.instructions, "Be brief.");
      assert.deepEqual(
        [created.max_tool_calls, created.top_logprobs, created.safety_identifier, created.prompt_cache_key],
        [3, 2, "user-42", "weather-v1"],
      );
      assert.equal(created.service_tier, "default");
      // `safety_identifier` is not `user`, though both reach the upstream as its end-user id.
      assert.equal((created as { user?: unknown }).user, null);
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
        assertSchema("StreamEvent", event, event.type);
      }
      assert.deepEqual(types.slice(0, 2), ["response.created", "response.in_progress"]);
      assert.equal(types.at(-1), "response.completed");
    });
  }
});

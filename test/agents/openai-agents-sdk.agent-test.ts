// The OpenAI Agents SDK (the pinned @openai/agents) in its default mode, the Responses API, with
// the gateway as its OpenAI base URL: an agent with one function tool runs its loop (the model
// calls the tool, the SDK runs it and sends the output back, the model answers), streamed and not,
// against the local models and against a fake upstream of each protocol; and a second run continues
// the first by `previousResponseId`, the gateway putting the stored chain back in.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type FakeProtocol, type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { requireClient } from "./clients.ts";
import { toolResults } from "./upstream-wire.ts";

const agents = requireClient("@openai/agents");
const OpenAI = requireClient("openai").default;
const { z } = requireClient("zod");

const UPSTREAMS: FakeProtocol[] = ["openai", "anthropic", "gemini", "openai-responses"];
const PROVIDER: Record<FakeProtocol, string> = {
  openai: "fo",
  anthropic: "fa",
  gemini: "fg",
  "openai-responses": "fr",
};
const modelOf = (upstream: FakeProtocol) => `${PROVIDER[upstream]}/m`;

let gw: RunningGateway;
const fakes = {} as Record<FakeProtocol, FakeUpstream>;
/** The paths the SDK's OpenAI client called, and the bodies it sent. */
const paths: string[] = [];
const bodies: any[] = [];
let runner: any;

before(async () => {
  for (const upstream of UPSTREAMS) fakes[upstream] = await startFakeUpstream(upstream, { apiKey: "k" });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-agents-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: UPSTREAMS.map((u) => fakeProvider(PROVIDER[u], fakes[u])),
      models: UPSTREAMS.map((u) => fakeModel(modelOf(u), [PROVIDER[u]])),
    }),
    { dir },
  );
  const openAIClient = new OpenAI({
    apiKey: PAYG_KEY,
    baseURL: `${gw.url}/v1`,
    maxRetries: 0,
    fetch: (url: string | URL, init?: RequestInit) => {
      paths.push(new URL(String(url)).pathname);
      bodies.push(typeof init?.body === "string" ? JSON.parse(init.body) : undefined);
      return fetch(url, init);
    },
  });
  agents.setTracingDisabled(true);
  // The SDK's default model API; named so that a change of default shows here.
  runner = new agents.Runner({
    modelProvider: new agents.OpenAIProvider({ openAIClient, useResponses: true }),
  });
});

after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
});

const executed: string[] = [];
const getWeather = () =>
  agents.tool({
    name: "get_weather",
    description: "Current weather for a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }: { city: string }) => {
      executed.push(city);
      return `${city}: 4C and snowing`;
    },
  });

/** Runs the agent once; returns the SDK's result with its final output. */
async function runAgent(model: string, stream: boolean, modelSettings: object = {}) {
  executed.length = 0;
  paths.length = 0;
  bodies.length = 0;
  const agent = new agents.Agent({
    name: "Weather",
    instructions: "Answer with the weather.",
    model,
    modelSettings,
    tools: [getWeather()],
  });
  const prompt = 'Use get_weather for "Oslo", then tell me what to wear.';
  if (!stream) return runner.run(agent, prompt);
  const result = await runner.run(agent, prompt, { stream: true });
  const kinds = new Set<string>();
  for await (const event of result) if (event.type === "raw_model_stream_event") kinds.add(event.data.type);
  await result.completed;
  assert.ok(kinds.has("output_text_delta"), `the answer was streamed: ${[...kinds]}`);
  return result;
}

function checkLoop(result: any): void {
  assert.deepEqual(executed, ["Oslo"], "the tool ran once, with the model's argument");
  const types = result.newItems.map((item: any) => item.type);
  assert.deepEqual(types, ["tool_call_item", "tool_call_output_item", "message_output_item"]);
  assert.ok(paths.length === 2 && paths.every((p) => p === "/v1/responses"), `paths: ${paths}`);
}

describe("the Agents SDK against the local models", () => {
  for (const stream of [false, true]) {
    test(`local/echo-1${stream ? ", streamed" : ""}: the tool runs and the model answers from its output`, async () => {
      const result = await runAgent("local/echo-1", stream);
      checkLoop(result);
      assert.equal(result.finalOutput, "Tool get_weather returned: Oslo: 4C and snowing");
    });
  }

  test("local/think-1 with reasoning, streamed: reasoning items come and go back", async () => {
    const result = await runAgent("local/think-1", true, { reasoning: { effort: "low", summary: "auto" } });
    assert.deepEqual(executed, ["Oslo"]);
    const types = result.newItems.map((item: any) => item.type);
    assert.deepEqual(types, [
      "reasoning_item",
      "tool_call_item",
      "tool_call_output_item",
      "reasoning_item",
      "message_output_item",
    ]);
    assert.equal(result.finalOutput, "Tool get_weather returned: Oslo: 4C and snowing");
    // The second request replays the first turn's reasoning item with its signature in
    // `encrypted_content`, which the local model checks against the thinking (a mismatch is a 400).
    const replayed = bodies[1].input.filter((item: any) => item.type === "reasoning");
    assert.equal(replayed.length, 1, JSON.stringify(bodies[1].input));
    assert.match(JSON.stringify(replayed[0].summary), /I will see whether a tool applies/);
    assert.ok(typeof replayed[0].encrypted_content === "string" && replayed[0].encrypted_content.length > 0);
  });
});

describe("the Agents SDK through the gateway to a fake upstream of each protocol", () => {
  for (const upstream of UPSTREAMS) {
    for (const stream of [false, true]) {
      test(`${upstream} upstream${stream ? ", streamed" : ""}: the tool loop runs`, async () => {
        const fake = fakes[upstream];
        fake.reset();
        fake.script(
          { blocks: [{ type: "tool_call", id: "call_oslo_1", name: "get_weather", args: { city: "Oslo" } }] },
          { blocks: [{ type: "text", text: "Wear a coat and boots." }] },
        );
        const result = await runAgent(modelOf(upstream), stream);
        checkLoop(result);
        assert.equal(result.finalOutput, "Wear a coat and boots.");
        assert.equal(fake.requests.length, 2);
        const results = toolResults(upstream, fake.requests[1]);
        assert.equal(results.length, 1, JSON.stringify(fake.requests[1].body));
        if (upstream !== "gemini") assert.equal(results[0].callId, "call_oslo_1");
        assert.match(results[0].text, /Oslo: 4C and snowing/);
      });
    }
  }
});

describe("the Agents SDK continues a run with previousResponseId (stored responses)", () => {
  for (const upstream of UPSTREAMS) {
    test(`${upstream} upstream: the second run sends only its new items and the upstream gets the whole history`, async () => {
      const fake = fakes[upstream];
      fake.reset();
      fake.script(
        { blocks: [{ type: "tool_call", id: "call_oslo_2", name: "get_weather", args: { city: "Oslo" } }] },
        { blocks: [{ type: "text", text: "Wear a coat and boots." }] },
        { blocks: [{ type: "text", text: "Bring gloves too." }] },
      );
      const first = await runAgent(modelOf(upstream), false);
      checkLoop(first);
      assert.ok(first.lastResponseId, "the first run names its last response");
      paths.length = 0;
      bodies.length = 0;
      const agent = new agents.Agent({ name: "Weather", instructions: "Answer.", model: modelOf(upstream) });
      const second = await runner.run(agent, "Anything else?", { previousResponseId: first.lastResponseId });
      assert.equal(second.finalOutput, "Bring gloves too.");
      // The SDK sent the id and its new message only; the gateway put the stored chain in.
      assert.equal(bodies[0].previous_response_id, first.lastResponseId);
      assert.equal(JSON.stringify(bodies[0].input).includes("Oslo"), false, JSON.stringify(bodies[0].input));
      const history = JSON.stringify(fake.requests.at(-1)!.body);
      for (const part of ["Use get_weather", "4C and snowing", "Wear a coat and boots.", "Anything else?"])
        assert.ok(history.includes(part), `${part} reached the upstream: ${history}`);
    });
  }
});

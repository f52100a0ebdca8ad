// The seam between the encoders and the pipeline's `x-switchyard-ignored`: the HTTP adapter hands
// the attempt's collector (Unsent) to the encoder, which names what the upstream's protocol could not
// express, before the answer (or the first streamed event) reaches the caller.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CatalogModel } from "../../src/catalog/types.ts";
import { DEFAULT_TIMEOUTS, type ProviderConfig } from "../../src/config/providers.ts";
import type { Request } from "../../src/ir/request.ts";
import { anthropic } from "../../src/protocols/anthropic/index.ts";
import { Unsent } from "../../src/protocols/shared/dropped-fields.ts";
import { HttpProvider } from "../../src/providers/http/adapter.ts";
import type { Target } from "../../src/providers/types.ts";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";

function request(overrides: Partial<Request> = {}): Request {
  return {
    model: "fa/m",
    system: [],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
    ...overrides,
  };
}

describe("HttpProvider reports what the upstream's protocol could not express", () => {
  let fake: FakeUpstream;
  let adapter: HttpProvider;
  let target: Target;

  before(async () => {
    fake = await startFakeUpstream("anthropic");
    const provider: ProviderConfig = {
      id: "fa",
      protocol: "anthropic",
      baseUrl: fake.url,
      apiKey: "k",
      enabled: true,
      timeouts: { ...DEFAULT_TIMEOUTS },
    };
    adapter = new HttpProvider(provider, anthropic);
    target = { provider, upstreamModel: "claude-x", model: { maxOutputTokens: 1000 } as CatalogModel };
  });
  after(() => fake.close());

  test("a whole answer: the report holds the names once the response is back", async () => {
    const report = new Unsent();
    await adapter.complete(
      request({ seed: 4, presencePenalty: 1 }),
      target,
      AbortSignal.timeout(5000),
      report,
    );
    assert.deepEqual(report.list(), ["presence_penalty", "seed"]);
    assert.equal(fake.requests.at(-1)?.body.seed, undefined, "and the upstream never saw them");
  });

  test("a stream: the report is filled by the time the first event arrives", async () => {
    const report = new Unsent();
    const events = adapter.stream(request({ logprobs: {} }), target, AbortSignal.timeout(5000), report);
    for await (const _ of events) {
      assert.deepEqual(report.list(), ["logprobs"]);
      break;
    }
    assert.deepEqual(report.list(), ["logprobs"]);
  });

  test("nothing dropped leaves the report empty; a caller may pass none at all", async () => {
    const report = new Unsent();
    await adapter.complete(request({ temperature: 0.5 }), target, AbortSignal.timeout(5000), report);
    assert.deepEqual(report.list(), []);
    const response = await adapter.complete(request({ seed: 1 }), target, AbortSignal.timeout(5000));
    assert.ok(response.content.length > 0);
  });
});

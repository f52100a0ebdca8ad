// A generation its client cancels is priced on what the upstream did, never on less
// (docs/architecture.md §5): official SDK clients abort against the fakes, and the generation lookup
// shows the counts it settled on, their exact cost, and whether the gateway estimated them.
// - A messages upstream reports the prompt and one output token as it starts: a stream cut after
//   more text than that settles on the text streamed, not on that one token.
// - A Gemini upstream reports running totals on every chunk: they count where larger.
// - A Converse upstream reports usage only at the end: the estimate alone.
// - A whole answer the client leaves while the upstream writes it: the prompt, as admission
//   estimated it, since the upstream read it; and the key's budget sees that spend.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeBedrock, startFakeBedrock } from "../../fakes/bedrock.ts";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { endpointsModel } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled, rawNumber } from "../../support/lookup.ts";
import { usd } from "../../support/money.ts";
import { fakeProvider, latestGenerationId, model } from "./support.ts";

// Long enough that nothing but the client's abort ends these requests.
const PATIENT = { connect_ms: 2000, first_byte_ms: 10000, request_ms: 10000, idle_ms: 10000 };
const WORDS = "alpha bravo charlie delta echo foxtrot golf hotel india juliet";
const SLOW_STREAM = { blocks: [{ type: "text" as const, text: WORDS }], chunks: 10, chunkDelayMs: 200 };
const LIMIT = { timeout: 8000 };
// The fake messages upstream's prompt count ($1 and $2 per million: fakeModel's prices).
const FAKE_INPUT = 10;
const BUDGET_KEY = "sk-test-cancel-budget-0123456789";
// "hi" is one token at admission (a token per four characters).
const PROMPT_ESTIMATE = 1;

let gw: RunningGateway;
let openai: FakeUpstream;
let anthropic: FakeUpstream;
let gemini: FakeUpstream;
let bedrock: FakeBedrock;

before(async () => {
  [openai, anthropic, gemini, bedrock] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("anthropic"),
    startFakeUpstream("gemini"),
    startFakeBedrock(),
  ]);
  const aws = { access_key_id: "AKIDEXAMPLE0123456789", secret_access_key: "secret" };
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cancel-pricing-"));
  const config = baseConfig(dir, {
    providers: [
      fakeProvider("o", openai, PATIENT),
      fakeProvider("x", anthropic, PATIENT),
      fakeProvider("g", gemini, PATIENT),
      {
        id: "b",
        platform: "aws-bedrock",
        region: "us-east-1",
        base_url: bedrock.url,
        aws,
        timeouts: PATIENT,
      },
    ],
    models: [
      model("cp/o", ["o"]),
      model("cp/x", ["x"]),
      model("cp/g", ["g"]),
      endpointsModel("cp/nova", [{ provider: "b", model: "amazon.nova-pro-v1:0" }]),
      // $1,000 per million: "hi" with max_tokens 1 holds $0.002 of the key's $0.0025 budget.
      model("cp/dear", ["o"], { prompt: 1000, completion: 1000 }),
    ],
  });
  (config.keys as object[]).push({
    key: BUDGET_KEY,
    account: "acme",
    credits: 10,
    budget: { usd: 0.0025, period: "day" },
  });
  gw = await startGateway(config, { dir });
});
after(async () => {
  await gw?.stop();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close(), bedrock?.close()]);
});

const openaiClient = (key = PAYG_KEY) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropicClient = () => new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });

/** The cost fakeModel's prices ($1 and $2 per million) give these counts, exactly. */
function costOf(prompt: number, completion: number): string {
  return usd.add(usd.perMillion(prompt, "1"), usd.perMillion(completion, "2"));
}

/** Streams `model` through an SDK, calling `onText` for each piece of text; the generation's id. */
type Streamer = (model: string, signal: AbortSignal, onText: () => void) => Promise<string>;

/** Each client protocol's SDK; a stream the caller aborts ends quietly. */
const streamers = {
  anthropic: (async (model, signal, onText) => {
    const { data, response } = await anthropicClient()
      .messages.create(
        { model, max_tokens: 100, stream: true, messages: [{ role: "user", content: "hi" }] },
        { signal },
      )
      .withResponse();
    const id = response.headers.get("x-generation-id")!;
    try {
      for await (const event of data) if (event.type === "content_block_delta") onText();
    } catch (err) {
      if (!signal.aborted) throw err;
    }
    return id;
  }) as Streamer,
  openai: (async (model, signal, onText) => {
    const { data, response } = await openaiClient()
      .chat.completions.create(
        { model, stream: true, messages: [{ role: "user", content: "hi" }] },
        { signal },
      )
      .withResponse();
    const id = response.headers.get("x-generation-id")!;
    try {
      for await (const chunk of data) if (chunk.choices[0]?.delta?.content) onText();
    } catch (err) {
      if (!signal.aborted) throw err;
    }
    return id;
  }) as Streamer,
  google: (async (model, signal, onText) => {
    const client = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const chunks = await client.models.generateContentStream({
      model,
      contents: "hi",
      config: { abortSignal: signal },
    });
    let id = "";
    try {
      for await (const chunk of chunks) {
        id ||= chunk.responseId ?? "";
        if (chunk.text) onText();
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
    return id;
  }) as Streamer,
};

/** Streams until four pieces of text arrived, then aborts; the generation as the lookup has it. */
async function cancelAfterFour(streamer: Streamer, model: string): Promise<any> {
  const controller = new AbortController();
  let pieces = 0;
  const id = await streamer(model, controller.signal, () => {
    if (++pieces === 4) controller.abort();
  });
  assert.equal(pieces, 4);
  const rec = await lookupSettled(gw.url, id, PAYG_KEY);
  assert.equal(rec.status, "cancelled");
  const { prompt_tokens: prompt, completion_tokens: completion } = rec.nativeTokens;
  assert.equal(usd.normalize(rawNumber(rec, "usage")), costOf(prompt, completion));
  return rec;
}

describe("a stream cancelled after its messages upstream reported its opening usage", () => {
  for (const [how, streamer] of [
    ["anthropic SDK, relayed (text deltas passed on undecoded)", streamers.anthropic],
    ["openai SDK, translated", streamers.openai],
  ] as const)
    test(`${how}: the output is the text streamed, not message_start's one token`, LIMIT, async () => {
      anthropic.script(SLOW_STREAM);
      const rec = await cancelAfterFour(streamer, "cp/x");
      assert.equal(rec.usageEstimated, true);
      const { prompt_tokens: prompt, completion_tokens: completion } = rec.nativeTokens;
      // The upstream's own prompt count stands (it counts the prompt whole before it writes).
      assert.equal(prompt, FAKE_INPUT);
      // Four words of about six characters had reached the client: more than message_start's 1.
      assert.ok(completion >= 4 && completion <= 20, `completion ${completion}`);
    });
});

// Google's streams carry the running totals in every chunk: a cut stream is priced on them where
// they are larger than the estimate (here the fake writes 20 tokens a chunk of a few words).
describe("a stream cancelled while its Gemini upstream reported running usage", () => {
  for (const [how, streamer] of [
    ["@google/genai SDK, relayed", streamers.google],
    ["openai SDK, translated", streamers.openai],
  ] as const)
    test(`${how}: the upstream's prompt and its running output count`, LIMIT, async () => {
      gemini.script({ ...SLOW_STREAM, usage: { input: 10, output: 200 }, runningUsage: true });
      const rec = await cancelAfterFour(streamer, "cp/g");
      const { prompt_tokens: prompt, completion_tokens: completion } = rec.nativeTokens;
      assert.equal(prompt, 10, "the upstream's own prompt count, not the estimate's 1");
      // The fourth chunk's running count (80), or a later one's that reached the gateway first.
      assert.ok(completion >= 80 && completion <= 140, `completion ${completion}`);
      // The estimate won nowhere.
      assert.equal(rec.usageEstimated, undefined);
    });
});

// Converse reports usage only in its last event (metadata, after messageStop): a cut stream is
// priced on the estimate alone.
test("a Converse stream cancelled midway: the prompt's estimate and the text streamed", LIMIT, async () => {
  bedrock.script(SLOW_STREAM);
  const rec = await cancelAfterFour(streamers.openai, "cp/nova");
  assert.equal(rec.usageEstimated, true);
  assert.equal(rec.nativeTokens.prompt_tokens, PROMPT_ESTIMATE);
  const completion = rec.nativeTokens.completion_tokens;
  assert.ok(completion >= 4 && completion <= 20, `completion ${completion}`);
});

/** The id of the latest generation of `modelId` (the client that left never saw its header). */
async function latestOf(modelId: string, other?: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const id = latestGenerationId(gw, modelId);
    if (id && id !== other) return id;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no generation of ${modelId}`);
}

/** Asks for a whole answer through the openai SDK and leaves once the upstream has the request. */
async function leaveWhole(fake: FakeUpstream, modelId: string, key = PAYG_KEY): Promise<void> {
  fake.script({ fault: "hang" });
  const seen = fake.requests.length;
  const controller = new AbortController();
  const pending = openaiClient(key).chat.completions.create(
    { model: modelId, max_tokens: 1, messages: [{ role: "user", content: "hi" }] },
    { signal: controller.signal },
  );
  await fake.until(() => fake.requests.length > seen);
  controller.abort();
  await assert.rejects(pending, OpenAI.APIUserAbortError);
  await fake.until(() => fake.requests[seen].aborted, 1000);
}

describe("a whole answer its client left while the upstream wrote it", () => {
  for (const [how, fake, modelId] of [
    ["relayed (chat upstream)", () => openai, "cp/o"],
    ["translated (messages upstream)", () => anthropic, "cp/x"],
  ] as const)
    test(`${how}: settled on the prompt's estimate, marked estimated`, LIMIT, async () => {
      const before = latestGenerationId(gw, modelId);
      await leaveWhole(fake(), modelId);
      const rec = await lookupSettled(gw.url, await latestOf(modelId, before), PAYG_KEY);
      assert.equal(rec.status, "cancelled");
      assert.equal(rec.streamed, false);
      assert.equal(rec.usageEstimated, true);
      assert.equal(rec.nativeTokens.prompt_tokens, PROMPT_ESTIMATE);
      assert.equal(rec.nativeTokens.completion_tokens, 0);
      assert.equal(usd.normalize(rawNumber(rec, "usage")), costOf(PROMPT_ESTIMATE, 0));
    });

  test("its key's budget sees what it settled at", LIMIT, async () => {
    // $0.001 settled of the $0.0025 budget leaves less than the next request's $0.002 hold
    // (had it settled at nothing, the next would be admitted).
    await leaveWhole(openai, "cp/dear", BUDGET_KEY);
    const id = await latestOf("cp/dear");
    const seen = openai.requests.length;
    openai.script({});
    await assert.rejects(
      openaiClient(BUDGET_KEY).chat.completions.create({
        model: "cp/dear",
        max_tokens: 1,
        messages: [{ role: "user", content: "hi" }],
      }),
      (err: { status?: number }) => err.status === 429,
    );
    assert.equal(openai.requests.length, seen, "the refused request reached the upstream");
    const rec = await lookupSettled(gw.url, id, BUDGET_KEY);
    assert.equal(usd.normalize(rawNumber(rec, "usage")), "0.001");
  });
});

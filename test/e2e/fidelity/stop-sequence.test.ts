// Issue 12 item 6: messages `stop_sequences` answered by an upstream of another protocol come back
// as `stop_reason: "stop_sequence"` with the matched sequence wherever it can be known: from
// OpenAI-compatible servers that name it (vLLM `stop_reason`, SGLang `matched_stop`), and from a
// Responses API upstream, which has no stop sequences, because the gateway cuts the answer itself.
// OpenAI's own chat-completions and Gemini say only "stop": there it cannot be known
// (docs/translation.md §5), and the answer stays `end_turn`.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { FakeUpstream } from "../../fakes/index.ts";
import { PAYG_KEY, type RunningGateway } from "../../support/gateway.ts";
import { anthropicClient, type FakesGateway, startFakesGateway } from "./support.ts";

let setup: FakesGateway;
let gw: RunningGateway;
let fakes: Record<string, FakeUpstream>;
let anthropic: Anthropic;

before(async () => {
  setup = await startFakesGateway({
    vllm: ["openai", { stopField: "stop_reason" }],
    sglang: ["openai", { stopField: "matched_stop" }],
    openai: "openai",
    responses: "openai-responses",
    gemini: "gemini",
  });
  ({ gw, fakes } = setup);
  anthropic = anthropicClient(gw);
});
after(() => setup?.stop());

const request = (model: string) => ({
  model,
  max_tokens: 100,
  stop_sequences: ["END", "4"],
  messages: [{ role: "user" as const, content: "Count to five." }],
});

async function both(model: string): Promise<Anthropic.Message[]> {
  const whole = await anthropic.messages.create(request(model));
  const streamed = await anthropic.messages.stream(request(model)).finalMessage();
  return [whole, streamed];
}

function text(message: Anthropic.Message): string {
  return message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

for (const server of ["vllm", "sglang"]) {
  test(`an OpenAI-compatible server that names the match (${server}): stop_sequence and the sequence`, async () => {
    fakes[server].script(
      ...[0, 1].map(() => ({
        blocks: [{ type: "text" as const, text: "1, 2, 3, " }],
        finish: "stop_sequence" as const,
        stopSequence: "4",
      })),
    );
    for (const message of await both(`${server}/m`)) {
      assert.equal(message.stop_reason, "stop_sequence");
      assert.equal(message.stop_sequence, "4");
      assert.equal(text(message), "1, 2, 3, ");
    }
    assert.deepEqual(fakes[server].requests.at(-1)!.body.stop, ["END", "4"]);
  });
}

test("a Responses upstream: the gateway cuts at the first sequence, whole and streamed across pieces", async () => {
  fakes.responses.script(
    ...[0, 1].map(() => ({ blocks: [{ type: "text" as const, text: "1, 2, 3, 4, 5. END" }], chunks: 9 })),
  );
  const { data, response } = await anthropic.messages.create(request("responses/m")).withResponse();
  assert.equal(response.headers.get("x-switchyard-ignored"), null, "stop is honoured, not dropped");
  const streamed = await anthropic.messages.stream(request("responses/m")).finalMessage();
  for (const message of [data, streamed]) {
    assert.equal(message.stop_reason, "stop_sequence");
    assert.equal(message.stop_sequence, "4");
    assert.equal(text(message), "1, 2, 3, ");
    assert.ok(message.usage.output_tokens > 0, "the upstream's usage is kept");
  }
});

test("a Responses upstream: a sequence split across streamed pieces still matches", async () => {
  fakes.responses.script({ blocks: [{ type: "text", text: "abcENDdef" }], chunks: 9 });
  const message = await anthropic.messages.stream(request("responses/m")).finalMessage();
  assert.equal(message.stop_reason, "stop_sequence");
  assert.equal(message.stop_sequence, "END");
  assert.equal(text(message), "abc");
});

test("a Responses upstream answering without a match: the whole text, end_turn", async () => {
  fakes.responses.script({ blocks: [{ type: "text", text: "one two three" }], chunks: 5 });
  const [message] = [await anthropic.messages.stream(request("responses/m")).finalMessage()];
  assert.equal(message.stop_reason, "end_turn");
  assert.equal(message.stop_sequence, null);
  assert.equal(text(message), "one two three");
});

test("a chat client's stop reaches a Responses upstream the same way", async () => {
  fakes.responses.script({ blocks: [{ type: "text", text: "alpha beta STOP gamma" }] });
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const answer = await openai.chat.completions.create({
    model: "responses/m",
    stop: ["STOP"],
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(answer.choices[0].message.content, "alpha beta ");
  assert.equal(answer.choices[0].finish_reason, "stop");
});

test("OpenAI's own chat-completions never says which sequence matched: end_turn, as documented", async () => {
  fakes.openai.script({
    blocks: [{ type: "text", text: "1, 2, 3, " }],
    finish: "stop_sequence",
    stopSequence: "4",
  });
  const message = await anthropic.messages.create(request("openai/m"));
  assert.equal(message.stop_reason, "end_turn");
  assert.equal(message.stop_sequence, null);
});

test("more stop sequences than Gemini takes (5): none sent, the gateway cuts at all of them", async () => {
  fakes.gemini.script({ blocks: [{ type: "text", text: "alpha HALT beta" }], chunks: 4 });
  const message = await anthropic.messages
    .stream({ ...request("gemini/m"), stop_sequences: ["s1", "s2", "s3", "s4", "s5", "HALT"] })
    .finalMessage();
  assert.equal(message.stop_reason, "stop_sequence");
  assert.equal(message.stop_sequence, "HALT");
  assert.equal(text(message), "alpha ");
  const config = fakes.gemini.requests.at(-1)!.body.generationConfig ?? {};
  assert.equal("stopSequences" in config, false);
});

test("more stop sequences than OpenAI's chat takes (4): none sent, the gateway cuts at all of them", async () => {
  const six = ["s1", "s2", "s3", "s4", "HALT", "s6"];
  const refused = await fetch(`${fakes.openai.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stop: six, messages: [{ role: "user", content: "hi" }] }),
  });
  assert.equal(refused.status, 400, "the fake refuses a fifth as OpenAI does");
  assert.equal(((await refused.json()) as { error: { code: string } }).error.code, "array_above_max_length");

  fakes.openai.script(
    ...[0, 1].map(() => ({ blocks: [{ type: "text" as const, text: "alpha HALT beta" }], chunks: 4 })),
  );
  const ask = { ...request("openai/m"), stop_sequences: six };
  const { data, response } = await anthropic.messages.create(ask).withResponse();
  assert.equal(response.headers.get("x-switchyard-ignored"), null, "stop is honoured, not dropped");
  const streamed = await anthropic.messages.stream(ask).finalMessage();
  for (const message of [data, streamed]) {
    assert.equal(message.stop_reason, "stop_sequence");
    assert.equal(message.stop_sequence, "HALT");
    assert.equal(text(message), "alpha ");
  }
  assert.equal("stop" in fakes.openai.requests.at(-1)!.body, false);
});

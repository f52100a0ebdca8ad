// Issue 12 item 14: the lookup's `finishReason` is the word the generation's own protocol used
// (`stop` / `length` for chat-completions, `end_turn` / `max_tokens` for messages, `STOP` /
// `MAX_TOKENS` for content-generation, `completed` / `max_output_tokens` for the Responses API),
// never the gateway's internal vocabulary. (After a cross-model fallback the record names the model
// that answered: test/e2e/routing/strategies.test.ts, "model-level fallback".)

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";

let gw: RunningGateway;

before(async () => {
  gw = await startGateway();
});
after(() => gw?.stop());

const MODEL = "local/echo-1";
const PROMPT = "Tell me a long story about a lighthouse keeper and the sea, please.";

async function finishReasonOf(id: string): Promise<string> {
  return (await lookupSettled(gw.url, id, PAYG_KEY)).finishReason;
}

test("chat-completions: stop, length", async () => {
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const messages = [{ role: "user" as const, content: PROMPT }];
  const whole = await openai.chat.completions.create({ model: MODEL, messages });
  assert.equal(await finishReasonOf(whole.id), whole.choices[0].finish_reason);
  assert.equal(await finishReasonOf(whole.id), "stop");
  const cut = await openai.chat.completions.create({ model: MODEL, messages, max_completion_tokens: 2 });
  assert.equal(cut.choices[0].finish_reason, "length");
  assert.equal(await finishReasonOf(cut.id), "length");
});

test("messages: end_turn, max_tokens", async () => {
  const anthropic = new Anthropic({
    apiKey: PAYG_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { "anthropic-version": "2023-06-01" },
  });
  const messages = [{ role: "user" as const, content: PROMPT }];
  const whole = await anthropic.messages.create({ model: MODEL, max_tokens: 500, messages });
  assert.equal(whole.stop_reason, "end_turn");
  assert.equal(await finishReasonOf(whole.id), "end_turn");
  const cut = await anthropic.messages.create({ model: MODEL, max_tokens: 2, messages });
  assert.equal(cut.stop_reason, "max_tokens");
  assert.equal(await finishReasonOf(cut.id), "max_tokens");
});

test("content-generation: STOP, MAX_TOKENS", async () => {
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const whole = await ai.models.generateContent({ model: MODEL, contents: PROMPT });
  assert.equal(await finishReasonOf(whole.responseId!), "STOP");
  const cut = await ai.models.generateContent({
    model: MODEL,
    contents: PROMPT,
    config: { maxOutputTokens: 2 },
  });
  assert.equal(cut.candidates?.[0].finishReason, "MAX_TOKENS");
  assert.equal(await finishReasonOf(cut.responseId!), "MAX_TOKENS");
});

test("Responses API: completed, max_output_tokens", async () => {
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const whole = await openai.responses.create({ model: MODEL, input: PROMPT, store: false });
  assert.equal(whole.status, "completed");
  assert.equal(await finishReasonOf(whole.id), "completed");
  const cut = await openai.responses.create({
    model: MODEL,
    input: PROMPT,
    store: false,
    max_output_tokens: 16,
  });
  assert.equal(cut.incomplete_details?.reason, "max_output_tokens");
  assert.equal(await finishReasonOf(cut.id), "max_output_tokens");
});

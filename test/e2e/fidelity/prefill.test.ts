// Issue 12 item 7: a client's prefill (the conversation ends with an assistant turn holding text)
// is continued on every route. Messages and content-generation upstreams continue a trailing
// assistant / model turn themselves; chat-completions and Responses upstreams answer it afresh, so
// they get a user turn after it asking for the continuation (the chat relay too); the local models
// continue it.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { FakeUpstream } from "../../fakes/index.ts";
import type { RunningGateway } from "../../support/gateway.ts";
import { anthropicClient, type FakesGateway, openaiClient, startFakesGateway } from "./support.ts";

let setup: FakesGateway;
let gw: RunningGateway;
let fakes: Record<string, FakeUpstream>;
let anthropic: Anthropic;
let openai: OpenAI;

before(async () => {
  setup = await startFakesGateway({ fa: "anthropic", fo: "openai", fg: "gemini", fr: "openai-responses" });
  ({ gw, fakes } = setup);
  anthropic = anthropicClient(gw);
  openai = openaiClient(gw);
});
after(() => setup?.stop());

const PREFILL = "The capital of France is";
const CONTINUE = /continue your last message/i;

function sent(id: string): any {
  return fakes[id].requests.at(-1)!.body;
}

function prefilled(model: string, stream = false) {
  return anthropic.messages.create({
    model,
    max_tokens: 100,
    stream: stream as false,
    messages: [
      { role: "user", content: "What is the capital of France?" },
      { role: "assistant", content: PREFILL },
    ],
  });
}

test("messages client → chat upstream: the prefill, then a user turn asking for its continuation", async () => {
  await prefilled("fo/m");
  const messages = sent("fo").messages;
  assert.deepEqual(messages.at(-2), { role: "assistant", content: PREFILL });
  assert.equal(messages.at(-1).role, "user");
  assert.match(messages.at(-1).content, CONTINUE);
});

test("messages client → Responses upstream: the same, as input items", async () => {
  await prefilled("fr/m");
  const input = sent("fr").input;
  assert.equal(input.at(-2).role, "assistant");
  assert.equal(input.at(-2).content[0].text, PREFILL);
  assert.equal(input.at(-1).role, "user");
  assert.match(input.at(-1).content[0].text, CONTINUE);
});

test("messages and content-generation upstreams get the trailing turn itself, and no instruction", async () => {
  await prefilled("fa/m");
  assert.deepEqual(sent("fa").messages.at(-1), { role: "assistant", content: PREFILL });
  await prefilled("fg/m");
  const last = sent("fg").contents.at(-1);
  assert.equal(last.role, "model");
  assert.equal(last.parts[0].text, PREFILL);
});

test("chat client → chat relay: the instruction is appended to the client's messages", async () => {
  await openai.chat.completions.create({
    model: "fo/m",
    messages: [
      { role: "user", content: "What is the capital of France?" },
      { role: "assistant", content: PREFILL },
    ],
  });
  const messages = sent("fo").messages;
  assert.equal(messages.length, 3);
  assert.deepEqual(messages[1], { role: "assistant", content: PREFILL });
  assert.match(messages[2].content, CONTINUE);
});

test("a conversation that ends with the user gets no instruction", async () => {
  await openai.chat.completions.create({ model: "fo/m", messages: [{ role: "user", content: "hi" }] });
  assert.equal(sent("fo").messages.length, 1);
});

test("the local models continue a prefill instead of answering afresh, whole and streamed", async () => {
  const messages = [
    { role: "user" as const, content: "Hello there" },
    { role: "assistant" as const, content: "You said: " },
  ];
  const whole = await anthropic.messages.create({ model: "local/echo-1", max_tokens: 100, messages });
  assert.deepEqual(whole.content, [{ type: "text", text: "Hello there" }]);
  const stream = anthropic.messages.stream({ model: "local/echo-1", max_tokens: 100, messages });
  const final = await stream.finalMessage();
  assert.equal(final.content[0].type === "text" && final.content[0].text, "Hello there");
  const chat = await openai.chat.completions.create({
    model: "local/echo-1",
    messages: [
      { role: "user", content: "Hello there" },
      { role: "assistant", content: "Sure:" },
    ],
  });
  assert.equal(chat.choices[0].message.content, " You said: Hello there");
});

// Stored responses through the unmodified `openai` SDK against a running gateway: create then
// retrieve, a previous_response_id chain whose upstream gets the whole history (on the local models,
// translated to the messages and Gemini fakes with their thinking signatures, relayed to a Responses
// fake), store: false, input_items paging, delete, item_reference, and another account's ids.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import OpenAI from "openai";
import { z } from "zod";
import type { FakeUpstream } from "../../fakes/index.ts";
import { fakeModel } from "../../support/config.ts";
import { OTHER_KEY, PAYG_KEY, type RunningGateway, SUB_KEY } from "../../support/gateway.ts";
import { startUpstreamGateway, type UpstreamGateway } from "./upstreams.ts";

let upstreams: UpstreamGateway;
let gw: RunningGateway;
let client: OpenAI;
let other: OpenAI;
let anthropic: FakeUpstream;
let gemini: FakeUpstream;
let responses: FakeUpstream;
let chat: FakeUpstream;
const ADMIN_KEY = "sk-admin-stored-0123456789abcdef";

before(async () => {
  upstreams = await startUpstreamGateway({
    config: { admin: { keys: [ADMIN_KEY] } },
    models: [
      {
        ...fakeModel("fa/small", ["fa"], { upstream: "claude-haiku-4-5" }),
        context_length: 80,
        max_output_tokens: 40,
      },
      // A model that reasons, relayed: a kept answer asks for reasoning's encrypted content.
      { ...fakeModel("fr/gpt5", ["fr"], { upstream: "gpt-5" }), reasoning: true },
      // A short window, for truncation: every other test's prompt fits it.
      { id: "local/echo-1", context_length: 300, max_output_tokens: 100 },
    ],
  });
  ({ gw, anthropic, gemini, responses, chat } = upstreams);
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(() => upstreams?.close());
beforeEach(() => {
  for (const fake of [anthropic, gemini, responses, chat]) fake.reset();
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

describe("stored responses on the local models", () => {
  test("create, then retrieve the same response at once: store true, the generation id", async () => {
    const created = await client.responses.create({ model: "local/echo-1", input: "Remember me" });
    assert.match(created.id, /^gen-/);
    assert.equal(storeOf(created), true);
    const retrieved = await client.responses.retrieve(created.id);
    assert.equal(retrieved.id, created.id);
    assert.equal(retrieved.output_text, created.output_text);
    assert.equal(retrieved.status, "completed");
    assert.deepEqual(retrieved.usage, created.usage);
  });

  test("a streamed response is stored before its last event reaches the client", async () => {
    const stream = client.responses.stream({ model: "local/echo-1", input: "Stream and keep" });
    const final = await stream.finalResponse();
    assert.equal(storeOf(final), true);
    const retrieved = await client.responses.retrieve(final.id);
    assert.equal(retrieved.output_text, final.output_text);
  });

  test("serve says at start that stored responses are kept in clear (no encryption key)", () => {
    assert.match(gw.output(), /stored responses .* are kept in clear/);
  });

  test("store: false keeps nothing and says so", async () => {
    const created = await client.responses.create({
      model: "local/echo-1",
      input: "Forget me",
      store: false,
    });
    assert.equal(storeOf(created), false);
    await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
    const err = await client.responses
      .create({ model: "local/echo-1", input: "again", previous_response_id: created.id })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal(err.code, "previous_response_not_found");
    assert.equal(err.param, "previous_response_id");
  });

  test("reasoning and a tool call on turn 1; turn 2 sends only the tool output, and the model checks the signature", async () => {
    const params = {
      model: "local/think-1",
      tools: TOOLS,
      reasoning: { effort: "low" as const, summary: "auto" as const },
    };
    const first = await client.responses.create({ ...params, input: 'Use get_weather for "Oslo"' });
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call && first.output.some((item) => item.type === "reasoning"));
    const second = await client.responses.create({
      ...params,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "-2C" }],
    });
    assert.match(second.output_text, /-2C/);
    assert.equal(second.previous_response_id, first.id);
    // A third turn continues the chain of two.
    const third = await client.responses.create({
      model: "local/echo-1",
      previous_response_id: second.id,
      input: "Thanks",
    });
    assert.equal(third.output_text, "You said: Thanks");
  });

  test("input_items: the turn's own items with ids, paged newest first, or oldest first", async () => {
    const created = await client.responses.create({
      model: "local/echo-1",
      input: [
        { role: "user", content: "one" },
        { role: "user", content: "two" },
        { role: "user", content: "three" },
      ],
    });
    const page = await client.responses.inputItems.list(created.id, { limit: 2 });
    assert.equal(page.data.length, 2);
    assert.equal(page.has_more, true);
    const texts = (items: any[]) => items.map((item) => item.content[0]?.text ?? item.content);
    assert.deepEqual(texts(page.data), ["three", "two"]);
    const all: any[] = [];
    for await (const item of client.responses.inputItems.list(created.id, { limit: 2, order: "asc" }))
      all.push(item);
    assert.deepEqual(texts(all), ["one", "two", "three"]);
    assert.ok(all.every((item) => typeof item.id === "string"));
  });

  test("the admin API shows what an account's stored responses hold, in bytes", async () => {
    const bytes = async () => {
      const res = await fetch(`${gw.url}/api/v1/admin/accounts/other`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      return ((await res.json()) as { storedResponseBytes: number }).storedResponseBytes;
    };
    const listed = async () => {
      const res = await fetch(`${gw.url}/api/v1/admin/accounts`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      const { data } = (await res.json()) as { data: Array<{ id: string; storedResponseBytes: number }> };
      return data.find((account) => account.id === "other")!.storedResponseBytes;
    };
    const before = await bytes();
    await other.responses.create({ model: "local/echo-1", input: "Count my bytes" });
    const after = await bytes();
    assert.ok(after > before);
    // The list (the dashboard's usage page) says the same, from one grouped read.
    assert.equal(await listed(), after);
  });

  test("a subscription key's stored responses carry no billing field, as its lookups carry none", async () => {
    const sub = new OpenAI({ apiKey: SUB_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const created = await sub.responses.create({ model: "local/echo-1", input: "Bill me nothing" });
    const retrieved = await sub.responses.retrieve(created.id);
    const items = await sub.responses.inputItems.list(created.id);
    const billing =
      /"(cost|cost_details|credits|balance|ratingResponses|total_cost|upstream_inference_cost)"/;
    for (const shown of [created, retrieved, items.data])
      assert.doesNotMatch(JSON.stringify(shown), billing, JSON.stringify(shown));
    const lookup = await fetch(`${gw.url}/api/v1/management/generation?id=${created.id}`, {
      headers: { authorization: `Bearer ${SUB_KEY}` },
    });
    const record = (await lookup.json()) as Record<string, unknown>;
    assert.equal(record.ratingResponses, undefined, "the lookup hides them too");
  });

  test("delete: gone for retrieve, continuation and a second delete", async () => {
    const created = await client.responses.create({ model: "local/echo-1", input: "Delete me" });
    const deleted: unknown = await client.responses.delete(created.id);
    assert.deepEqual(deleted, { id: created.id, object: "response.deleted", deleted: true });
    await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.delete(created.id), OpenAI.NotFoundError);
  });

  test("another account sees none of it: retrieve, input_items, delete are 404; continuing is a 400", async () => {
    const created = await client.responses.create({ model: "local/echo-1", input: "Mine only" });
    await assert.rejects(other.responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(other.responses.inputItems.list(created.id), OpenAI.NotFoundError);
    await assert.rejects(other.responses.delete(created.id), OpenAI.NotFoundError);
    const err = await other.responses
      .create({ model: "local/echo-1", input: "x", previous_response_id: created.id })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal(err.code, "previous_response_not_found");
    const message = created.output.find((item) => item.type === "message");
    const refErr = await other.responses
      .create({ model: "local/echo-1", input: [{ type: "item_reference", id: message!.id }] })
      .catch((e: unknown) => e);
    assert.ok(refErr instanceof OpenAI.BadRequestError);
    assert.ok(await client.responses.retrieve(created.id));
  });
});

/** Turn 2 of a tool loop: only the tool's output, continuing turn 1 by its id. */
async function answerTheCall(first: OpenAI.Responses.Response, output: string, extra: object = {}) {
  const call = first.output.find((item) => item.type === "function_call");
  assert.ok(call, "turn 1 called the tool");
  return client.responses.create({
    model: first.model,
    previous_response_id: first.id,
    input: [{ type: "function_call_output", call_id: call.call_id, output }],
    tools: TOOLS,
    ...extra,
  });
}

describe("continuations translated and relayed: the upstream gets the whole history", () => {
  test("messages upstream: thinking with its signature, the tool call and its result, not the old instructions", async () => {
    anthropic.script(
      {
        blocks: [
          { type: "thinking", text: "Look it up.", signature: "sig-anthropic-1" },
          { type: "tool_call", id: "toolu_1", name: "get_weather", args: { city: "Oslo" } },
        ],
      },
      { blocks: [{ type: "text", text: "It is -2C." }] },
    );
    const first = await client.responses.create({
      model: "fa/claude",
      instructions: "Only the first turn's rules.",
      input: "Weather in Oslo?",
      tools: TOOLS,
      reasoning: { effort: "low" },
    });
    const second = await answerTheCall(first, "-2C", { reasoning: { effort: "low" } });
    assert.equal(second.output_text, "It is -2C.");
    const body = anthropic.requests[1]!.body;
    assert.equal(body.system, undefined);
    assert.deepEqual(
      body.messages.map((m: any) => [m.role, m.content.map((b: any) => b.type)]),
      [
        ["user", ["text"]],
        ["assistant", ["thinking", "tool_use"]],
        ["user", ["tool_result"]],
      ],
    );
    assert.equal(body.messages[1].content[0].signature, "sig-anthropic-1");
    assert.equal(body.messages[2].content[0].tool_use_id, body.messages[1].content[1].id);
  });

  test("Gemini upstream, streamed: the thought signature comes back on turn 2", async () => {
    gemini.script(
      {
        blocks: [
          { type: "thinking", text: "Think." },
          { type: "tool_call", name: "get_weather", args: { city: "Oslo" }, signature: "sig-gemini-1" },
        ],
      },
      { blocks: [{ type: "text", text: "Cold." }] },
    );
    const first = await client.responses
      .stream({ model: "fg/flash", input: "Weather in Oslo?", tools: TOOLS, reasoning: { effort: "low" } })
      .finalResponse();
    const second = await answerTheCall(first, "-2C");
    assert.equal(second.output_text, "Cold.");
    const contents = gemini.requests[1]!.body.contents;
    assert.deepEqual(
      contents.map((c: any) => c.role),
      ["user", "model", "user"],
    );
    const callPart = contents[1].parts.find((p: any) => p.functionCall);
    assert.equal(callPart.thoughtSignature, "sig-gemini-1");
    assert.equal(contents[2].parts[0].functionResponse.name, "get_weather");
  });

  test("chat-completions upstream: the tool call and its result go up as messages", async () => {
    chat.script(
      { blocks: [{ type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } }] },
      { blocks: [{ type: "text", text: "Mild." }] },
    );
    const first = await client.responses.create({ model: "fo/gpt", input: "Weather in Oslo?", tools: TOOLS });
    const second = await answerTheCall(first, "12C");
    assert.equal(second.output_text, "Mild.");
    const messages = chat.requests[1]!.body.messages;
    assert.deepEqual(
      messages.map((m: any) => m.role),
      ["user", "assistant", "tool"],
    );
    assert.equal(messages[2].tool_call_id, messages[1].tool_calls[0].id);
  });

  test("Responses upstream (relay): the whole input goes up, never our id", async () => {
    responses.script(
      { blocks: [{ type: "text", text: "First answer." }] },
      { blocks: [{ type: "text", text: "Second." }] },
    );
    const first = await client.responses.create({ model: "fr/gpt", input: "Hello" });
    assert.equal(first.id.startsWith("gen-"), true);
    const second = await client.responses.create({
      model: "fr/gpt",
      previous_response_id: first.id,
      input: "More",
    });
    assert.equal(second.output_text, "Second.");
    assert.equal(second.previous_response_id, first.id);
    const body = responses.requests[1]!.body;
    assert.equal(body.previous_response_id, undefined);
    assert.deepEqual(
      body.input.map((item: any) => [item.role, item.content[0].text]),
      [
        ["user", "Hello"],
        ["assistant", "First answer."],
        ["user", "More"],
      ],
    );
    assert.ok(body.input.every((item: any) => item.id === undefined));
    assert.equal((await client.responses.retrieve(second.id)).output_text, "Second.");
  });

  test("Responses upstream (relay), streamed: its passed-on bytes are stored and continued", async () => {
    responses.script(
      { blocks: [{ type: "text", text: "Streamed ünïcode answer." }], chunks: 4 },
      { blocks: [{ type: "text", text: "Next." }] },
    );
    const first = await client.responses.stream({ model: "fr/gpt", input: "Stream it" }).finalResponse();
    assert.equal((await client.responses.retrieve(first.id)).output_text, "Streamed ünïcode answer.");
    await client.responses.create({ model: "fr/gpt", previous_response_id: first.id, input: "Go on" });
    const input = responses.requests[1]!.body.input;
    assert.equal(input[1].content[0].text, "Streamed ünïcode answer.");
  });

  test("a stream that fails midway is stored failed before its last event is sent", async () => {
    anthropic.script({
      blocks: [{ type: "text", text: "A long answer that breaks." }],
      chunks: 6,
      fault: "midstream-error",
    });
    const events: any[] = [];
    const stream = await client.responses.create({ model: "fa/claude", input: "Break", stream: true });
    await assert.rejects(async () => {
      for await (const event of stream) events.push(event);
    });
    const failed = events.find((e) => e.type === "response.failed");
    assert.ok(failed, "the stream told its failure");
    const stored = await client.responses.retrieve(failed.response.id);
    assert.equal(stored.status, "failed");
  });

  test("item_reference: a stored item of the account goes up as the item itself", async () => {
    responses.script({ blocks: [{ type: "text", text: "Referenced text." }] }, {});
    const first = await client.responses.create({ model: "fr/gpt", input: "Say something" });
    const message = first.output.find((item) => item.type === "message");
    assert.ok(message);
    await client.responses.create({
      model: "fr/gpt",
      input: [
        { type: "item_reference", id: message.id },
        { role: "user", content: "Go on" },
      ],
    });
    const input = responses.requests[1]!.body.input;
    assert.equal(input[0].type, "message");
    assert.equal(input[0].content[0].text, "Referenced text.");
    assert.equal(input[1].content, "Go on");
  });
});

describe("a Responses upstream (relay) keeps signed reasoning in what the gateway stores", () => {
  const SIGNED: Parameters<FakeUpstream["script"]>[0] = {
    blocks: [
      { type: "thinking", text: "Look it up.", signature: "enc-relay-1" },
      { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Oslo" } },
    ],
  };

  for (const stream of [false, true]) {
    test(`${stream ? "streamed" : "whole"}: include asked once; turn 2's chain carries the encrypted content`, async () => {
      responses.script(SIGNED, { blocks: [{ type: "text", text: "Cold." }] });
      const body = {
        model: "fr/gpt5",
        input: "Weather in Oslo?",
        tools: TOOLS,
        reasoning: { effort: "low" as const },
        include: ["message.output_text.logprobs" as const],
      };
      const first = stream
        ? await client.responses.stream(body).finalResponse()
        : await client.responses.create(body);
      assert.deepEqual(responses.requests[0]!.body.include, [
        "message.output_text.logprobs",
        "reasoning.encrypted_content",
      ]);
      // The client's own store goes up as it sent it (src/protocols/openai-responses/relay.ts).
      assert.equal(responses.requests[0]!.body.store, undefined);
      const stored = await client.responses.retrieve(first.id);
      const reasoning = stored.output.find((item) => item.type === "reasoning");
      assert.equal(reasoning?.encrypted_content, "enc-relay-1");
      await answerTheCall(first, "-2C");
      const input = responses.requests[1]!.body.input;
      assert.deepEqual(
        input.map((item: any) => item.type ?? item.role),
        ["message", "reasoning", "function_call", "function_call_output"],
      );
      assert.equal(input[1].encrypted_content, "enc-relay-1");
      assert.equal(input[1].id, undefined);
    });
  }

  test("item_reference to a stored reasoning item goes up with its encrypted content", async () => {
    responses.script(SIGNED, { blocks: [{ type: "text", text: "Cold." }] });
    const first = await client.responses.create({
      model: "fr/gpt5",
      input: "Weather in Oslo?",
      tools: TOOLS,
      include: ["reasoning.encrypted_content"],
    });
    assert.deepEqual(responses.requests[0]!.body.include, ["reasoning.encrypted_content"]);
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call);
    await client.responses.create({
      model: "fr/gpt5",
      tools: TOOLS,
      input: [
        { role: "user", content: "Weather in Oslo?" },
        ...first.output.map((item) => ({ type: "item_reference" as const, id: item.id! })),
        { type: "function_call_output", call_id: call.call_id, output: "-2C" },
      ],
    });
    const input = responses.requests[1]!.body.input;
    assert.equal(input[1].type, "reasoning");
    assert.equal(input[1].encrypted_content, "enc-relay-1");
  });

  test("nothing kept, or a model that does not reason: include goes up as the client sent it", async () => {
    responses.script(SIGNED, SIGNED, { blocks: [{ type: "text", text: "Hi." }] });
    await client.responses.create({ model: "fr/gpt5", input: "Hi", tools: TOOLS, store: false });
    await client.responses.create({
      model: "fr/gpt5",
      input: "Hi",
      tools: TOOLS,
      store: false,
      include: ["message.output_text.logprobs"],
    });
    // OpenAI refuses `reasoning.encrypted_content` of a model that does not reason, naming include.
    await client.responses.create({ model: "fr/gpt", input: "Hi" });
    assert.deepEqual(
      responses.requests.map((r) => r.body.include),
      [undefined, ["message.output_text.logprobs"], undefined],
    );
  });
});

describe("conversations: the items API, and a response that continues and extends one", () => {
  const text = (item: any) => item.content?.[0]?.text;

  test("create with items and metadata, read, update, add, list, get and delete items, delete", async () => {
    const conv = await client.conversations.create({
      metadata: { topic: "weather" },
      items: [{ type: "message", role: "user", content: "first" }],
    });
    assert.match(conv.id, /^conv_/);
    assert.deepEqual(conv.metadata, { topic: "weather" });
    assert.deepEqual(await client.conversations.retrieve(conv.id), conv);
    const updated = await client.conversations.update(conv.id, { metadata: { topic: "travel" } });
    assert.deepEqual(updated.metadata, { topic: "travel" });
    const added = await client.conversations.items.create(conv.id, {
      items: [
        { type: "message", role: "user", content: "second" },
        { type: "message", role: "user", content: "third" },
      ],
    });
    assert.deepEqual(added.data.map(text), ["second", "third"]);
    const newestFirst = await client.conversations.items.list(conv.id, { limit: 2 });
    assert.deepEqual(newestFirst.data.map(text), ["third", "second"]);
    assert.equal(newestFirst.has_more, true);
    const second = added.data[0]!;
    assert.equal(
      text(await client.conversations.items.retrieve(second.id!, { conversation_id: conv.id })),
      "second",
    );
    await client.conversations.items.delete(second.id!, { conversation_id: conv.id });
    const all: any[] = [];
    for await (const item of client.conversations.items.list(conv.id, { order: "asc" })) all.push(item);
    assert.deepEqual(all.map(text), ["first", "third"]);
    await assert.rejects(
      client.conversations.items.retrieve(second.id!, { conversation_id: conv.id }),
      OpenAI.NotFoundError,
    );
    await assert.rejects(other.conversations.retrieve(conv.id), OpenAI.NotFoundError);
    await assert.rejects(other.conversations.items.list(conv.id), OpenAI.NotFoundError);
    const deleted: unknown = await client.conversations.delete(conv.id);
    assert.deepEqual(deleted, { id: conv.id, object: "conversation.deleted", deleted: true });
    await assert.rejects(client.conversations.retrieve(conv.id), OpenAI.NotFoundError);
  });

  test("a response in a conversation gets its items upstream, then adds its input and output to it", async () => {
    responses.script(
      { blocks: [{ type: "text", text: "Noted." }] },
      { blocks: [{ type: "text", text: "Still noted." }] },
    );
    const conv = await client.conversations.create({
      items: [{ type: "message", role: "user", content: "My name is Ada." }],
    });
    const first = await client.responses.create({
      model: "fr/gpt",
      conversation: conv.id,
      input: "Remember it.",
    });
    assert.deepEqual((first as { conversation?: unknown }).conversation, { id: conv.id });
    const second = await client.responses.create({
      model: "fr/gpt",
      conversation: { id: conv.id },
      input: "What is my name?",
    });
    assert.equal(second.output_text, "Still noted.");
    const body = responses.requests[1]!.body;
    assert.equal(body.conversation, undefined);
    assert.deepEqual(body.input.map(text), ["My name is Ada.", "Remember it.", "Noted.", "What is my name?"]);
    const items: any[] = [];
    for await (const item of client.conversations.items.list(conv.id, { order: "asc" })) items.push(item);
    assert.deepEqual(items.map(text), [
      "My name is Ada.",
      "Remember it.",
      "Noted.",
      "What is my name?",
      "Still noted.",
    ]);
    // A translated upstream gets the same history in its own shape.
    anthropic.script({ blocks: [{ type: "text", text: "Ada." }] });
    await client.responses.create({ model: "fa/claude", conversation: conv.id, input: "Once more?" });
    const messages = anthropic.requests[0]!.body.messages;
    assert.deepEqual(
      messages.map((m: any) => m.role),
      ["user", "assistant", "user", "assistant", "user"],
    );
  });

  test("an unknown or another account's conversation is a 404 naming it; with previous_response_id a 400", async () => {
    const conv = await client.conversations.create({});
    const err = await other.responses
      .create({ model: "local/echo-1", conversation: conv.id, input: "x" })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.NotFoundError);
    assert.equal(err.param, "conversation");
    const first = await client.responses.create({ model: "local/echo-1", input: "x" });
    const both = await client.responses
      .create({ model: "local/echo-1", conversation: conv.id, previous_response_id: first.id, input: "y" })
      .catch((e: unknown) => e);
    assert.ok(both instanceof OpenAI.BadRequestError);
    assert.equal(both.param, "conversation");
  });
});

describe("the conversations' bodies pass the inference routes' front step", () => {
  const post = (body: string | Buffer) =>
    fetch(`${gw.url}/v1/conversations`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${PAYG_KEY}` },
      body,
    });

  test("past the body limit: the same 413 naming body as POST /v1/responses", async () => {
    const tooLarge = Buffer.alloc(33 * 1024 * 1024, " ");
    for (const path of ["/v1/conversations", "/v1/responses"]) {
      const res = await fetch(`${gw.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${PAYG_KEY}` },
        body: tooLarge,
      });
      assert.equal(res.status, 413, path);
      const { error } = (await res.json()) as any;
      assert.equal(error.param, "body", path);
      assert.match(error.message, /exceeds 33554432 bytes/, path);
    }
  });

  test("a long body nested past the front door's depth is a 400 naming body, before anything reads it", async () => {
    const deep = `{"metadata":{"pad":"${"x".repeat(300 * 1024)}"},"items":${"[".repeat(1500)}${"]".repeat(1500)}}`;
    const res = await post(deep);
    assert.equal(res.status, 400);
    const { error } = (await res.json()) as any;
    assert.equal(error.param, "body");
    assert.match(error.message, /nested too deeply/);
  });
});

describe('truncation: "auto" drops the oldest items of a chain longer than the context window', () => {
  const long = (word: string) => Array.from({ length: 60 }, () => word).join(" ");

  test("local model: disabled is the usual 400 naming input; auto answers from the newest turns", async () => {
    let previous: string | undefined;
    for (const word of ["alpha", "bravo", "charlie"]) {
      const created = await client.responses.create({
        model: "local/echo-1",
        input: long(word),
        truncation: "auto",
        ...(previous ? { previous_response_id: previous } : {}),
      });
      assert.equal(created.truncation, "auto");
      assert.ok((created.usage?.input_tokens ?? 0) <= 300);
      previous = created.id;
    }
    const err = await client.responses
      .create({ model: "local/echo-1", input: "short", previous_response_id: previous })
      .catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal(err.param, "input");
    const fitted = await client.responses.create({
      model: "local/echo-1",
      input: "short",
      previous_response_id: previous,
      truncation: "auto",
    });
    assert.equal(fitted.output_text, "You said: short");
  });

  test("messages fake: the upstream gets a conversation that opens with a user turn and fits", async () => {
    anthropic.script(
      { blocks: [{ type: "tool_call", name: "get_weather", args: { city: "Oslo" } }] },
      { blocks: [{ type: "text", text: "Done." }] },
    );
    const first = await client.responses.create({ model: "fa/small", input: long("oslo"), tools: TOOLS });
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call);
    await client.responses.create({
      model: "fa/small",
      previous_response_id: first.id,
      input: [
        { type: "function_call_output", call_id: call.call_id, output: "-2C" },
        { role: "user", content: "Now, what to wear?" },
      ],
      tools: TOOLS,
      truncation: "auto",
    });
    const messages = anthropic.requests[1]!.body.messages;
    assert.deepEqual(messages, [{ role: "user", content: [{ type: "text", text: "Now, what to wear?" }] }]);
  });
});

describe("the AI SDK's default openai() provider, store left at its default: it refers to stored items", () => {
  const weather = tool({
    description: "Current weather for a city",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => `${city}: 4C and snowing`,
  });
  const run = (model: string, stream: boolean) => {
    const options = {
      model: createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: PAYG_KEY })(model),
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      prompt: 'Use get_weather for "Oslo", then tell me what to wear.',
      providerOptions: { openai: { reasoningEffort: "low", reasoningSummary: "auto", forceReasoning: true } },
      maxOutputTokens: 4000,
      maxRetries: 0,
    };
    return stream ? streamText(options) : generateText(options);
  };

  for (const stream of [false, true]) {
    test(`local/think-1, ${stream ? "streamText" : "generateText"}: the model checks the referenced thinking`, async () => {
      const result = await run("local/think-1", stream);
      const steps = await result.steps;
      assert.equal(steps.length, 2);
      assert.ok(steps[0]!.reasoningText);
      assert.match(await result.text, /4C and snowing/);
    });
  }

  /** Turn 1: signed reasoning and the tool call; turn 2: the answer. */
  const scriptWeather = (fake: FakeUpstream, signature: string) =>
    fake.script(
      {
        blocks: [
          { type: "thinking", text: "Weather first.", signature },
          { type: "tool_call", name: "get_weather", args: { city: "Oslo" } },
        ],
      },
      { blocks: [{ type: "text", text: "Wear a coat." }] },
    );

  for (const stream of [false, true]) {
    test(`Responses fake (relay), ${stream ? "streamText" : "generateText"}: the referenced reasoning goes up with its encrypted content`, async () => {
      scriptWeather(responses, "enc-ai-sdk");
      const result = await run("fr/gpt5", stream);
      assert.equal(await result.text, "Wear a coat.");
      const [first, second] = responses.requests.map((r) => r.body);
      assert.deepEqual(first.include, ["reasoning.encrypted_content"]);
      const reasoning = second.input.find((item: any) => item.type === "reasoning");
      assert.equal(reasoning?.encrypted_content, "enc-ai-sdk");
      assert.ok(second.input.every((item: any) => item.type !== "item_reference"));
    });
  }

  test("messages fake: the referenced reasoning goes up as the signed thinking block", async () => {
    scriptWeather(anthropic, "sig-ai-sdk");
    const result = await run("fa/claude", false);
    assert.equal(await result.text, "Wear a coat.");
    const second = anthropic.requests[1]!.body;
    const thinking = second.messages[1].content.find((b: any) => b.type === "thinking");
    assert.equal(thinking?.signature, "sig-ai-sdk");
    assert.equal(second.messages[2].content[0].type, "tool_result");
  });
});

/** `store` as the wire says it (the SDK's Response type leaves it out). */
function storeOf(response: object): unknown {
  return (response as { store?: unknown }).store;
}

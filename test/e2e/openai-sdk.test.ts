// The unmodified `openai` SDK against a running gateway (local models): listing, completion,
// streaming, tools, reasoning, and each bad input surfacing as the SDK's typed error.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { BROKE_KEY, baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
let client: OpenAI;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-openai-"));
  gw = await startGateway(baseConfig(dir, { server: { body_limit_bytes: 65536 } }), { dir });
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(() => gw?.stop());

describe("listing", () => {
  test("lists every served model with the chat-completions record fields", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) {
      ids.push(model.id);
      const m = model as unknown as Record<string, any>;
      assert.equal(m.object, "model");
      assert.equal(typeof m.display_name, "string");
      assert.equal(typeof m.created, "number");
      assert.equal(typeof m.owned_by, "string");
      assert.ok(Array.isArray(m.input_modalities) && Array.isArray(m.output_modalities));
      assert.equal(typeof m.capabilities.reasoning, "boolean");
      assert.equal(typeof m.context_length, "number");
      // An embedding model is priced by its input alone.
      const writes = !m.output_modalities.includes("embeddings");
      assert.ok(m.pricings.prompt.length > 0 && (!writes || m.pricings.completion.length > 0), m.id);
    }
    assert.ok(ids.includes("local/echo-1") && ids.includes("local/think-1"), ids.join(","));
    assert.ok(!ids.some((id) => id.startsWith("openai/")), "no key for openai: its models are not served");
  });

  test("retrieves one model by its slashed id", async () => {
    const model = await client.models.retrieve("local/think-1");
    assert.equal(model.id, "local/think-1");
    assert.equal((model as any).capabilities.reasoning, true);
  });

  test("an unknown model is a NotFoundError", async () => {
    await assert.rejects(client.models.retrieve("nope/nothing"), OpenAI.NotFoundError);
  });
});

describe("completions", () => {
  test("creates a completion with real usage and the generation id", async () => {
    const { data, response } = await client.chat.completions
      .create({
        model: "local/echo-1",
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hello there, gateway" },
        ],
      })
      .withResponse();
    assert.match(data.id, /^gen-/);
    assert.equal(response.headers.get("x-generation-id"), data.id);
    assert.equal(data.object, "chat.completion");
    assert.equal(data.model, "local/echo-1");
    assert.equal(data.choices[0].message.content, "You said: Hello there, gateway");
    assert.equal(data.choices[0].finish_reason, "stop");
    assert.ok(data.usage && data.usage.prompt_tokens > 0 && data.usage.completion_tokens > 0);
    assert.equal(data.usage.total_tokens, data.usage.prompt_tokens + data.usage.completion_tokens);
  });

  test("streams a completion and assembles the final message", async () => {
    const stream = client.chat.completions.stream({
      model: "local/echo-1",
      messages: [{ role: "user", content: "Stream me a reply please" }],
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    stream.on("content.delta", ({ delta }) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0].message.content, "You said: Stream me a reply please");
    assert.ok(deltas.length > 1, "text arrives in several deltas");
    assert.match(final.id, /^gen-/);
    assert.ok(final.usage && final.usage.completion_tokens > 0);
  });

  test("without stream_options the stream carries no usage chunk", async () => {
    const stream = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "no usage please" }],
      stream: true,
    });
    let sawUsage = false;
    for await (const chunk of stream) if (chunk.usage) sawUsage = true;
    assert.equal(sawUsage, false);
  });

  test("calls a tool when offered and mentioned, then answers from its result", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: "function",
        function: {
          name: "get_weather",
          description: "Weather for a city",
          parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        },
      },
    ];
    const first = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: 'Use get_weather for "Paris"' }],
      tools,
    });
    const call = first.choices[0].message.tool_calls?.[0];
    assert.equal(first.choices[0].finish_reason, "tool_calls");
    assert.ok(call && call.type === "function");
    assert.equal(call.function.name, "get_weather");
    assert.deepEqual(JSON.parse(call.function.arguments), { city: "Paris" });

    const second = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [
        { role: "user", content: 'Use get_weather for "Paris"' },
        first.choices[0].message,
        { role: "tool", tool_call_id: call.id, content: "18C and sunny" },
      ],
      tools,
    });
    assert.match(second.choices[0].message.content ?? "", /18C and sunny/);
  });

  test("streams a tool call whose arguments arrive in pieces", async () => {
    const stream = client.chat.completions.stream({
      model: "local/echo-1",
      messages: [{ role: "user", content: 'call lookup with "switchyard"' }],
      tools: [
        {
          type: "function",
          function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } },
        },
      ],
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0].message.tool_calls?.[0];
    assert.ok(call && call.type === "function");
    assert.deepEqual(JSON.parse(call.function.arguments), { q: "switchyard" });
  });

  test("a reasoning model returns its reasoning when asked", async () => {
    const res = await client.chat.completions.create({
      model: "local/think-1",
      messages: [{ role: "user", content: "Think first" }],
      reasoning_effort: "low",
    });
    const message = res.choices[0].message as any;
    assert.match(message.reasoning, /The user wrote 2 words/);
    assert.ok((res.usage?.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
  });
});

describe("bad input", () => {
  const status = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      return err as InstanceType<typeof OpenAI.APIError>;
    }
    assert.fail("expected an error");
  };

  test("a wrong key is an AuthenticationError", async () => {
    const bad = new OpenAI({ apiKey: "sk-wrong", baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const err = await status(
      bad.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: "x" }] }),
    );
    assert.ok(err instanceof OpenAI.AuthenticationError);
  });

  test("no key is a 401 in the chat error shape", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "x" }] }),
    });
    assert.equal(res.status, 401);
    const body = (await res.json()) as any;
    assert.equal(typeof body.error.message, "string");
    assert.equal(body.error.type, "authentication_error");
  });

  test("an unknown model is a NotFoundError", async () => {
    const err = await status(
      client.chat.completions.create({ model: "nope/nothing", messages: [{ role: "user", content: "x" }] }),
    );
    assert.ok(err instanceof OpenAI.NotFoundError);
  });

  test("malformed JSON is a 400", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${PAYG_KEY}` },
      body: '{"model": "local/echo-1", "messages": [',
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.type, "invalid_request_error");
  });

  for (const [field, body] of [
    ["temperature", { temperature: "hot" }],
    ["n", { n: 2 }],
    ["stop", { stop: ["a", "b", "c", "d", "e"] }],
    ["frequency_penalty", { frequency_penalty: 3 }],
    ["top_logprobs", { logprobs: true, top_logprobs: 21 }],
    ["messages", { messages: "hello" }],
    ["functions", { functions: [{ name: "f", parameters: {} }] }],
  ] as const) {
    test(`a bad ${field} is a BadRequestError naming it`, async () => {
      const err = await status(
        client.chat.completions.create({
          model: "local/echo-1",
          messages: [{ role: "user", content: "x" }],
          ...(body as object),
        } as any),
      );
      assert.ok(err instanceof OpenAI.BadRequestError, String(err));
      assert.match(`${(err as any).param ?? ""} ${err.message}`, new RegExp(field));
    });
  }

  test("a body over the configured limit is a 413", async () => {
    const err = await status(
      client.chat.completions.create({
        model: "local/echo-1",
        messages: [{ role: "user", content: "x".repeat(70_000) }],
      }),
    );
    assert.equal(err.status, 413);
  });

  test("a pay-as-you-go account without credit gets a 402 before any upstream call", async () => {
    const broke = new OpenAI({ apiKey: BROKE_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const err = await status(
      broke.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: "x" }] }),
    );
    assert.equal(err.status, 402);
  });
});

// The unmodified `@anthropic-ai/sdk` (0.x, which speaks anthropic-version 2023-06-01) against a
// running gateway: listing with pagination, messages, streaming, tools, thinking, and typed errors.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
let client: Anthropic;

before(async () => {
  gw = await startGateway();
  client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
});
after(() => gw?.stop());

describe("listing", () => {
  test("pages through every model one at a time with the messages record fields", async () => {
    const ids: string[] = [];
    for await (const model of client.models.list({ limit: 1 })) {
      ids.push(model.id);
      const m = model as unknown as Record<string, any>;
      assert.equal(m.type, "model");
      assert.equal(typeof m.display_name, "string");
      assert.match(m.created_at, /^\d{4}-\d{2}-\d{2}/);
      assert.equal(typeof m.capabilities.reasoning, "boolean");
      assert.equal(typeof m.context_length, "number");
      assert.ok(m.pricings.prompt.length > 0);
    }
    assert.deepEqual([...ids].sort(), ids, "stable order");
    assert.ok(ids.includes("local/echo-1") && ids.includes("local/think-1"));
    assert.equal(new Set(ids).size, ids.length, "no model twice across pages");
  });

  test("the first page reports first_id, last_id and has_more", async () => {
    const page = await client.models.list({ limit: 1 });
    const raw = page as unknown as {
      first_id: string;
      last_id: string;
      has_more: boolean;
      data: { id: string }[];
    };
    assert.equal(raw.first_id, raw.data[0].id);
    assert.equal(raw.last_id, raw.data[0].id);
    assert.equal(raw.has_more, true);
  });

  test("retrieves one model", async () => {
    const model = await client.models.retrieve("local/echo-1");
    assert.equal(model.id, "local/echo-1");
  });
});

describe("messages", () => {
  test("creates a message with usage, the generation id and request-id", async () => {
    const { data, response } = await client.messages
      .create({
        model: "local/echo-1",
        max_tokens: 200,
        system: "Be brief.",
        messages: [{ role: "user", content: "Hello from the messages protocol" }],
      })
      .withResponse();
    assert.match(data.id, /^gen-/);
    assert.equal(response.headers.get("x-generation-id"), data.id);
    assert.equal(response.headers.get("request-id"), data.id);
    assert.equal(data.type, "message");
    assert.equal(data.role, "assistant");
    assert.deepEqual(data.content, [{ type: "text", text: "You said: Hello from the messages protocol" }]);
    assert.equal(data.stop_reason, "end_turn");
    assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
  });

  test("streams a message and assembles the final one", async () => {
    const stream = client.messages.stream({
      model: "local/echo-1",
      max_tokens: 200,
      messages: [{ role: "user", content: "Stream this back to me" }],
    });
    const pieces: string[] = [];
    stream.on("text", (t) => pieces.push(t));
    const final = await stream.finalMessage();
    assert.equal(pieces.length > 1, true);
    assert.deepEqual(final.content, [{ type: "text", text: "You said: Stream this back to me" }]);
    assert.equal(final.stop_reason, "end_turn");
    assert.ok(final.usage.output_tokens > 0);
  });

  test("calls a tool, then answers from the tool result", async () => {
    const tools: Anthropic.Tool[] = [
      {
        name: "get_weather",
        description: "Weather for a city",
        input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ];
    const first = await client.messages.create({
      model: "local/echo-1",
      max_tokens: 200,
      tools,
      messages: [{ role: "user", content: 'What is the weather in "Oslo"? Use get_weather.' }],
    });
    assert.equal(first.stop_reason, "tool_use");
    const use = first.content.find((b) => b.type === "tool_use");
    assert.ok(use && use.type === "tool_use");
    assert.deepEqual(use.input, { city: "Oslo" });
    const second = await client.messages.create({
      model: "local/echo-1",
      max_tokens: 200,
      tools,
      messages: [
        { role: "user", content: 'What is the weather in "Oslo"? Use get_weather.' },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "4C, snow" }] },
      ],
    });
    assert.match(second.content[0].type === "text" ? second.content[0].text : "", /4C, snow/);
  });

  test("streams thinking with its signature, and the signature is accepted on the next turn", async () => {
    const stream = client.messages.stream({
      model: "local/think-1",
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "Think about this" }],
    });
    const final = await stream.finalMessage();
    const thinking = final.content.find((b) => b.type === "thinking");
    assert.ok(thinking && thinking.type === "thinking");
    assert.match(thinking.thinking, /The user wrote 3 words/);
    assert.ok(thinking.signature.length > 10);
    const next = await client.messages.create({
      model: "local/think-1",
      max_tokens: 4000,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "Think about this" },
        { role: "assistant", content: final.content },
        { role: "user", content: "And again" },
      ],
    });
    assert.equal(next.stop_reason, "end_turn");
    // A tampered signature is refused by the (local) model, as a real provider would.
    await assert.rejects(
      client.messages.create({
        model: "local/think-1",
        max_tokens: 4000,
        messages: [
          { role: "user", content: "Think about this" },
          {
            role: "assistant",
            content: [
              { ...thinking, signature: "forged" },
              { type: "text", text: "x" },
            ],
          },
          { role: "user", content: "And again" },
        ],
      }),
      Anthropic.BadRequestError,
    );
  });

  test("accepts what Claude Code sends: ?beta=true, role system in messages, repeated betas", async () => {
    const res = await client.beta.messages.create({
      model: "local/echo-1",
      max_tokens: 100,
      betas: [
        "interleaved-thinking-2025-05-14",
        "interleaved-thinking-2025-05-14",
        "context-management-2025-06-27",
      ],
      system: [{ type: "text", text: "You are a CLI.", cache_control: { type: "ephemeral" } }],
      messages: [
        { role: "user", content: "hi" },
        { role: "system", content: "late system note" } as any,
        { role: "user", content: "again" },
      ],
      metadata: { user_id: "user-123" },
    });
    assert.equal(res.type, "message");
  });
});

describe("bad input", () => {
  test("a wrong key is an AuthenticationError", async () => {
    const bad = new Anthropic({ apiKey: "sk-wrong", baseURL: gw.url, maxRetries: 0 });
    await assert.rejects(
      bad.messages.create({
        model: "local/echo-1",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
      }),
      Anthropic.AuthenticationError,
    );
  });

  test("an unknown model is a NotFoundError", async () => {
    await assert.rejects(
      client.messages.create({
        model: "nope/nothing",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
      }),
      Anthropic.NotFoundError,
    );
  });

  test("an anthropic-version other than 2023-06-01 is a 400 that says which to send", async () => {
    const newer = new Anthropic({
      apiKey: PAYG_KEY,
      baseURL: gw.url,
      maxRetries: 0,
      defaultHeaders: { "anthropic-version": "2026-10-21" },
    });
    await assert.rejects(
      newer.messages.create({
        model: "local/echo-1",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
      }),
      (err: unknown) => err instanceof Anthropic.BadRequestError && /2023-06-01/.test(err.message),
    );
  });

  for (const [field, patch] of [
    ["max_tokens", { max_tokens: 0 }],
    ["temperature", { temperature: 1.5 }],
    ["top_p", { top_p: -0.1 }],
    ["budget_tokens", { max_tokens: 2000, thinking: { type: "enabled", budget_tokens: 512 } }],
    ["budget_tokens", { max_tokens: 1500, thinking: { type: "enabled", budget_tokens: 1500 } }],
    ["messages", { messages: [{ role: "robot", content: "x" }] }],
  ] as const) {
    test(`a bad ${field} is a BadRequestError naming it`, async () => {
      await assert.rejects(
        client.messages.create({
          model: "local/echo-1",
          max_tokens: 10,
          messages: [{ role: "user", content: "x" }],
          ...(patch as object),
        } as any),
        (err: unknown) => err instanceof Anthropic.BadRequestError && err.message.includes(field),
      );
    });
  }

  test("errors come in the messages error shape", async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": PAYG_KEY,
        "anthropic-version": "2023-06-01",
      },
      body: "{not json",
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as any;
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "invalid_request_error");
  });
});

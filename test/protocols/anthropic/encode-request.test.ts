import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GatewayError } from "../../../src/ir/errors.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { JSON_TOOL_NAME } from "../../../src/protocols/anthropic/json-mode.ts";
import { baseRequest } from "./helpers.ts";

const target = { model: "claude-sonnet-4-5-20250929", stream: false, maxOutputTokens: 64000 };

function encode(overrides: Parameters<typeof baseRequest>[0], t: Partial<typeof target> = {}) {
  const call = anthropic.encodeRequest(baseRequest(overrides), { ...target, ...t });
  assert.equal(call.path, "/v1/messages");
  return call.body as Record<string, any>;
}

describe("encodeRequest for an Anthropic-protocol upstream", () => {
  test("model is the upstream's; max_tokens comes from the request, else the catalog limit", () => {
    assert.equal(encode({}).model, "claude-sonnet-4-5-20250929");
    assert.equal(encode({ maxOutputTokens: 500 }).max_tokens, 500);
    assert.equal(encode({}).max_tokens, 64000);
    assert.equal(encode({}, { maxOutputTokens: undefined }).max_tokens, 4096);
    assert.equal(encode({}, { stream: true }).stream, true);
    assert.equal(encode({}).stream, undefined);
  });

  test("system blocks keep cache_control; empty ones are left out", () => {
    const body = encode({
      system: [
        { type: "text", text: "A", cacheControl: { type: "ephemeral", ttl: "1h" } },
        { type: "text", text: "" },
      ],
    });
    assert.deepEqual(body.system, [
      { type: "text", text: "A", cache_control: { type: "ephemeral", ttl: "1h" } },
    ]);
    assert.equal(encode({}).system, undefined);
  });

  test("messages: merged by role, tool calls with parsed input, results first, signed thinking kept", () => {
    const body = encode({
      messages: [
        { role: "user", content: [{ type: "text", text: "weather?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "", signature: "sig-empty" },
            { type: "thinking", text: "unsigned reasoning from elsewhere" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "" },
            {
              type: "tool_call",
              id: "call_1",
              name: "get_weather",
              arguments: '{"city":"Paris"}',
              signature: "gemini",
            },
          ],
        },
        { role: "assistant", content: [{ type: "tool_call", id: "call_2", name: "noop", arguments: "" }] },
        { role: "user", content: [{ type: "text", text: "and then?" }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolCallId: "call_1",
              content: [{ type: "text", text: "18C" }],
              isError: false,
              cacheControl: { type: "ephemeral" },
            },
            { type: "tool_result", toolCallId: "call_2", content: [] },
          ],
        },
      ],
    });
    assert.deepEqual(body.messages, [
      { role: "user", content: [{ type: "text", text: "weather?" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "", signature: "sig-empty" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "call_2", name: "noop", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_1",
            content: [{ type: "text", text: "18C" }],
            is_error: false,
            cache_control: { type: "ephemeral" },
          },
          { type: "tool_result", tool_use_id: "call_2" },
          { type: "text", text: "and then?" },
        ],
      },
    ]);
  });

  test("images and documents", () => {
    const body = encode({
      messages: [
        {
          role: "user",
          content: [
            {
              type: "image",
              source: { kind: "base64", mediaType: "image/png", data: "AAA" },
              detail: "high",
            },
            { type: "image", source: { kind: "url", url: "https://x/a.png" } },
            {
              type: "document",
              source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" },
              title: "T",
            },
            {
              type: "document",
              source: { kind: "base64", mediaType: "text/plain", data: Buffer.from("hi").toString("base64") },
            },
            {
              type: "document",
              source: { kind: "text", mediaType: "text/plain", text: "plain" },
              citations: true,
            },
          ],
        },
      ],
    });
    assert.deepEqual(body.messages[0].content, [
      { type: "image", source: { type: "base64", media_type: "image/png", data: "AAA" } },
      { type: "image", source: { type: "url", url: "https://x/a.png" } },
      {
        type: "document",
        source: { type: "base64", media_type: "application/pdf", data: "JVBE" },
        title: "T",
      },
      { type: "document", source: { type: "text", media_type: "text/plain", data: "hi" } },
      {
        type: "document",
        source: { type: "text", media_type: "text/plain", data: "plain" },
        citations: { enabled: true },
      },
    ]);
  });

  test("audio cannot be sent: a 400 rather than a silent drop", () => {
    assert.throws(
      () =>
        encode({
          messages: [
            {
              role: "user",
              content: [{ type: "audio", source: { kind: "base64", mediaType: "audio/wav", data: "x" } }],
            },
          ],
        }),
      (e: GatewayError) => e.status === 400 && /audio/.test(e.message),
    );
  });

  test("tools with cache_control, tool_choice, and parallel calls off", () => {
    const body = encode({
      tools: [
        {
          name: "f",
          description: "F",
          parameters: { type: "object", properties: {} },
          cacheControl: { type: "ephemeral" },
          strict: true,
        },
        { name: "g", parameters: {} },
      ],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
    });
    assert.deepEqual(body.tools, [
      {
        name: "f",
        description: "F",
        input_schema: { type: "object", properties: {} },
        cache_control: { type: "ephemeral" },
      },
      { name: "g", input_schema: { type: "object" } },
    ]);
    assert.deepEqual(body.tool_choice, { type: "any", disable_parallel_tool_use: true });
    const tools = [{ name: "f", parameters: { type: "object" } }];
    assert.deepEqual(encode({ tools, toolChoice: { type: "tool", name: "f" } }).tool_choice, {
      type: "tool",
      name: "f",
    });
    assert.deepEqual(encode({ tools, toolChoice: { type: "none" } }).tool_choice, { type: "none" });
    assert.deepEqual(encode({ tools, parallelToolCalls: false }).tool_choice, {
      type: "auto",
      disable_parallel_tool_use: true,
    });
    assert.equal(encode({ tools }).tool_choice, undefined);
    assert.equal(
      encode({ toolChoice: { type: "auto" } }).tool_choice,
      undefined,
      "no tool_choice without tools",
    );
  });

  test("reasoning: effort → budget, clamped below max_tokens; explicit budgets; adaptive with effort", () => {
    assert.deepEqual(encode({ reasoning: { effort: "high" } }).thinking, {
      type: "enabled",
      budget_tokens: 16384,
    });
    assert.deepEqual(encode({ reasoning: { effort: "minimal" } }).thinking, {
      type: "enabled",
      budget_tokens: 1024,
    });
    assert.deepEqual(encode({ reasoning: { enabled: true } }).thinking, {
      type: "enabled",
      budget_tokens: 8192,
    });
    assert.deepEqual(encode({ reasoning: { budgetTokens: 5000 } }).thinking, {
      type: "enabled",
      budget_tokens: 5000,
    });
    assert.deepEqual(encode({ reasoning: { budgetTokens: -1, effort: "low" } }).thinking, {
      type: "enabled",
      budget_tokens: 2048,
    });
    assert.deepEqual(encode({ maxOutputTokens: 4000, reasoning: { effort: "xhigh" } }).thinking, {
      type: "enabled",
      budget_tokens: 3999,
    });
    assert.deepEqual(encode({ maxOutputTokens: 2000, reasoning: { budgetTokens: 100 } }).thinking, {
      type: "enabled",
      budget_tokens: 1024,
    });
    // Claude Code's max_tokens: 1 probe: no room to think, so thinking is left off (docs/architecture.md
    // §10).
    assert.equal(encode({ maxOutputTokens: 1, reasoning: { effort: "high" } }).thinking, undefined);
    assert.deepEqual(encode({ reasoning: { enabled: false } }).thinking, { type: "disabled" });
    assert.deepEqual(encode({ reasoning: { effort: "none" } }).thinking, { type: "disabled" });
    const adaptive = encode({ reasoning: { enabled: true, adaptive: true, effort: "xhigh" } });
    assert.deepEqual(adaptive.thinking, { type: "adaptive" });
    assert.deepEqual(adaptive.output_config, { effort: "max" });
    assert.equal(encode({}).thinking, undefined);
  });

  test("with thinking on, temperature and top_k are left out and a low top_p too", () => {
    const on = encode({ reasoning: { effort: "low" }, temperature: 0.3, topK: 5, topP: 0.5 });
    assert.equal(on.temperature, undefined);
    assert.equal(on.top_k, undefined);
    assert.equal(on.top_p, undefined);
    assert.equal(encode({ reasoning: { effort: "low" }, topP: 0.97 }).top_p, 0.97);
    const off = encode({ temperature: 1.6, topK: 5, topP: 0.5, stopSequences: ["##"] });
    assert.equal(off.temperature, 1, "chat temperatures above 1 are clamped to the protocol's range");
    assert.equal(off.top_k, 5);
    assert.equal(off.top_p, 0.5);
    assert.deepEqual(off.stop_sequences, ["##"]);
  });

  test("json_schema → output_config.format; json_object → a forced reserved tool", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    assert.deepEqual(encode({ responseFormat: { type: "json_schema", schema, name: "x" } }).output_config, {
      format: { type: "json_schema", schema },
    });
    const json = encode({ responseFormat: { type: "json_object" } });
    assert.equal(json.tools.length, 1);
    assert.equal(json.tools[0].name, JSON_TOOL_NAME);
    assert.deepEqual(json.tool_choice, { type: "tool", name: JSON_TOOL_NAME });
    assert.equal(json.system, undefined, "no system instruction is added");
    const withThinking = encode({ responseFormat: { type: "json_object" }, reasoning: { effort: "low" } });
    assert.equal(withThinking.tool_choice, undefined, "a forced tool is refused with thinking");
  });

  test("what the protocol cannot take is not sent; the user id goes in metadata", () => {
    const body = encode({
      frequencyPenalty: 0.5,
      presencePenalty: 0.5,
      seed: 7,
      logprobs: { topLogprobs: 3 },
      user: "u-1",
      routing: { type: "priority" },
      reasoning: { exclude: true },
    });
    for (const key of [
      "frequency_penalty",
      "presence_penalty",
      "seed",
      "logprobs",
      "top_logprobs",
      "thinking",
      "routing",
    ])
      assert.equal(body[key], undefined, key);
    assert.deepEqual(body.metadata, { user_id: "u-1" });
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Response } from "../../../src/ir/response.ts";
import { unpackToolCallId } from "../../../src/ir/tool-call-id.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { encodeContext } from "./helpers.ts";

function response(overrides: Partial<Response>): Response {
  return {
    id: "upstream-id",
    model: "gpt-4.1-2025-04-14",
    content: [],
    finishReason: "stop",
    usage: emptyUsage(),
    ...overrides,
  };
}

describe("encodeResponse", () => {
  test("a text answer is a chat.completion exactly as the SDK types it", () => {
    const body = openaiChat.encodeResponse(
      response({
        content: [
          { type: "text", text: "Hello" },
          { type: "text", text: " there" },
        ],
        usage: {
          ...emptyUsage(),
          promptTokens: 1200,
          cacheReadTokens: 1024,
          completionTokens: 90,
          reasoningTokens: 64,
        },
      }),
      encodeContext(),
    );
    assert.deepEqual(body, {
      id: "gen-01TEST",
      object: "chat.completion",
      created: 1750000000,
      model: "openai/gpt-4.1",
      system_fingerprint: null,
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Hello there", refusal: null },
          logprobs: null,
          finish_reason: "stop",
        },
      ],
      usage: {
        prompt_tokens: 1200,
        completion_tokens: 90,
        total_tokens: 1290,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: 64 },
      },
    });
  });

  test("cache writes (Anthropic upstreams) show as prompt_tokens_details.cache_write_tokens, still inside prompt_tokens", () => {
    const body = openaiChat.encodeResponse(
      response({
        content: [{ type: "text", text: "x" }],
        usage: { ...emptyUsage(), promptTokens: 3000, cacheWrite5mTokens: 2000, cacheWrite1hTokens: 500 },
      }),
      encodeContext(),
    ) as { usage: Record<string, unknown> };
    assert.deepEqual(body.usage.prompt_tokens_details, { cached_tokens: 0, cache_write_tokens: 2500 });
    assert.equal(body.usage.prompt_tokens, 3000);
  });

  test("tool calls: content null, packed ids, empty arguments become {}", () => {
    const body = openaiChat.encodeResponse(
      response({
        finishReason: "tool_calls",
        content: [
          { type: "tool_call", id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
          { type: "tool_call", id: "fc_2", name: "now", arguments: "", signature: "gemini-sig" },
        ],
      }),
      encodeContext(),
    ) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }> };
    const [choice] = body.choices;
    assert.equal(choice.finish_reason, "tool_calls");
    assert.equal(choice.message.content, null);
    const calls = choice.message.tool_calls as Array<{
      id: string;
      type: string;
      function: { name: string; arguments: string };
    }>;
    assert.deepEqual(calls[0], {
      id: "call_1",
      type: "function",
      function: { name: "weather", arguments: '{"city":"Paris"}' },
    });
    assert.equal(calls[1].function.arguments, "{}");
    assert.notEqual(calls[1].id, "fc_2");
    assert.deepEqual(unpackToolCallId(calls[1].id), { id: "fc_2", signature: "gemini-sig" });
  });

  test("thinking goes out as reasoning + reasoning_details with signatures; redacted as reasoning.encrypted", () => {
    const body = openaiChat.encodeResponse(
      response({
        content: [
          { type: "thinking", text: "Step one.", signature: "sig-a" },
          { type: "thinking", text: "", signature: "sig-empty" },
          { type: "redacted_thinking", data: "enc==" },
          { type: "text", text: "Answer" },
        ],
      }),
      encodeContext(),
    ) as { choices: Array<{ message: Record<string, unknown> }> };
    const message = body.choices[0].message;
    assert.equal(message.content, "Answer");
    assert.equal(message.reasoning, "Step one.");
    assert.deepEqual(message.reasoning_details, [
      { type: "reasoning.text", text: "Step one.", format: "unknown", index: 0, signature: "sig-a" },
      { type: "reasoning.text", text: "", format: "unknown", index: 1, signature: "sig-empty" },
      { type: "reasoning.encrypted", data: "enc==", format: "unknown", index: 2 },
    ]);
  });

  test("reasoning.exclude keeps reasoning out of the answer", () => {
    const body = openaiChat.encodeResponse(
      response({
        content: [
          { type: "thinking", text: "secret", signature: "s" },
          { type: "text", text: "Hi" },
        ],
      }),
      encodeContext({ reasoning: { exclude: true } }),
    ) as { choices: Array<{ message: Record<string, unknown> }> };
    const message = body.choices[0].message;
    assert.equal(message.reasoning, undefined);
    assert.equal(message.reasoning_details, undefined);
    assert.equal(message.content, "Hi");
  });

  test("finish reasons map onto the chat vocabulary", () => {
    const cases: Array<[Response["finishReason"], string]> = [
      ["stop", "stop"],
      ["stop_sequence", "stop"],
      ["length", "length"],
      ["tool_calls", "tool_calls"],
      ["content_filter", "content_filter"],
      ["refusal", "content_filter"],
      ["pause", "stop"],
      ["other", "stop"],
    ];
    for (const [reason, expected] of cases) {
      const body = openaiChat.encodeResponse(response({ finishReason: reason }), encodeContext()) as {
        choices: Array<{ finish_reason: string; message: { content: unknown } }>;
      };
      assert.equal(body.choices[0].finish_reason, expected, reason);
      assert.equal(body.choices[0].message.content, null);
    }
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { fixtureJson } from "./helpers.ts";

describe("decodeResponse", () => {
  test("OpenAI completion with two tool calls and cached prompt tokens", () => {
    const response = openaiChat.decodeResponse(fixtureJson("completion-tool-calls.json"));
    assert.equal(response.id, "chatcmpl-BcQ8ko2nz9B7CRvV0uVbcowidHpQU");
    assert.equal(response.model, "gpt-4o-2024-08-06");
    assert.equal(response.finishReason, "tool_calls");
    assert.deepEqual(response.content, [
      {
        type: "tool_call",
        id: "call_qOfTGgDrItLORNfC6VwUbyLL",
        name: "get_weather",
        arguments: '{"location":"Shanghai"}',
      },
      {
        type: "tool_call",
        id: "call_Z1tY8bQmK3nV5rW7xP2sJ4dL",
        name: "get_time",
        arguments: '{"timezone":"Asia/Shanghai"}',
      },
    ]);
    assert.deepEqual(response.usage, {
      promptTokens: 1291,
      cacheReadTokens: 1152,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      completionTokens: 48,
      reasoningTokens: 0,
      webSearchRequests: 0,
    });
  });

  test("OpenRouter → Claude completion: reasoning_details become a signed thinking block before the call", () => {
    const body = fixtureJson("openrouter-completion-reasoning-signed.json") as any;
    const detail = body.choices[0].message.reasoning_details[0];
    const response = openaiChat.decodeResponse(body);
    assert.equal(response.content.length, 2);
    assert.deepEqual(response.content[0], {
      type: "thinking",
      text: detail.text,
      signature: detail.signature,
    });
    assert.deepEqual(response.content[1], {
      type: "tool_call",
      id: "toolu_vrtx_015EeDRWGA7dLHZpVKzpowig",
      name: "weather",
      arguments: '{"location": "Florence, Italy"}',
    });
    assert.equal(response.usage.reasoningTokens, 61);
    assert.equal(response.usage.completionTokens, 110);
  });

  test("OpenRouter → Gemini completion: the encrypted item whose id is the call's is its signature", () => {
    const response = openaiChat.decodeResponse({
      id: "gen-1773324241-tqjIYrNEmA40cPRRnkOm",
      model: "google/gemini-3-pro-preview-20251117",
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: null,
            reasoning: "**Defining the User's Intent**",
            tool_calls: [
              {
                type: "function",
                index: 0,
                id: "tool_weather_Bn0mvxtpCZhM3MQlxpIi",
                function: { name: "weather", arguments: '{"location":"Florence, Italy"}' },
              },
            ],
            reasoning_details: [
              {
                type: "reasoning.text",
                text: "**Defining the User's Intent**",
                format: "google-gemini-v1",
                index: 0,
              },
              {
                type: "reasoning.encrypted",
                data: "CmIBjz1rX3+FHcC7",
                format: "google-gemini-v1",
                id: "tool_weather_Bn0mvxtpCZhM3MQlxpIi",
                index: 1,
              },
            ],
          },
        },
      ],
    });
    assert.deepEqual(response.content, [
      { type: "thinking", text: "**Defining the User's Intent**" },
      {
        type: "tool_call",
        id: "tool_weather_Bn0mvxtpCZhM3MQlxpIi",
        name: "weather",
        arguments: '{"location":"Florence, Italy"}',
        signature: "CmIBjz1rX3+FHcC7",
      },
    ]);
  });

  test("reasoning_content (DeepSeek) and reasoning text without details become an unsigned thinking block", () => {
    for (const field of ["reasoning_content", "reasoning"]) {
      const response = openaiChat.decodeResponse({
        id: "x",
        model: "deepseek-reasoner",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: "42", [field]: "Think." },
            finish_reason: "stop",
          },
        ],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 20,
          prompt_cache_hit_tokens: 6,
          completion_tokens_details: { reasoning_tokens: 15 },
        },
      });
      assert.deepEqual(response.content, [
        { type: "thinking", text: "Think." },
        { type: "text", text: "42" },
      ]);
      assert.equal(response.usage.cacheReadTokens, 6);
      assert.equal(response.usage.reasoningTokens, 15);
    }
  });

  test("a Gemini tool call's extra_content signature lands on the IR call; a missing id is made", () => {
    const response = openaiChat.decodeResponse({
      choices: [
        {
          message: {
            content: null,
            tool_calls: [
              {
                type: "function",
                function: { name: "f", arguments: { a: 1 } },
                extra_content: { google: { thought_signature: "CiQB" } },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    });
    const call = response.content[0];
    assert.equal(call.type, "tool_call");
    if (call.type !== "tool_call") return;
    assert.equal(call.signature, "CiQB");
    assert.equal(call.arguments, '{"a":1}');
    assert.match(call.id, /^call_/);
  });

  test("finish reasons and refusals", () => {
    const finish = (finish_reason: unknown, extra: Record<string, unknown> = {}) =>
      openaiChat.decodeResponse({ choices: [{ message: { content: "x", ...extra }, finish_reason }] });
    assert.equal(finish("stop").finishReason, "stop");
    assert.equal(finish("length").finishReason, "length");
    assert.equal(finish("content_filter").finishReason, "content_filter");
    assert.equal(finish("function_call").finishReason, "tool_calls");
    assert.equal(finish(null).finishReason, "other");
    const refused = finish("stop", { content: null, refusal: "I can't help with that." });
    assert.equal(refused.finishReason, "refusal");
    assert.deepEqual(refused.content, [{ type: "text", text: "I can't help with that." }]);
    const vllm = openaiChat.decodeResponse({
      choices: [{ message: { content: "a" }, finish_reason: "stop", stop_reason: "END" }],
    });
    assert.equal(vllm.finishReason, "stop_sequence");
    assert.equal(vllm.stopSequence, "END");
  });

  test("a body that is not a completion is an upstream error, not a crash", () => {
    const isUpstreamError = (err: unknown) => err instanceof GatewayError && err.status === 502;
    assert.throws(() => openaiChat.decodeResponse("oops"), isUpstreamError);
    assert.throws(() => openaiChat.decodeResponse({ choices: [] }), isUpstreamError);
    assert.throws(
      () => openaiChat.decodeResponse({ error: { message: "model overloaded", code: 503 } }),
      (err: unknown) =>
        err instanceof GatewayError && err.status === 503 && err.message === "model overloaded",
    );
  });
});

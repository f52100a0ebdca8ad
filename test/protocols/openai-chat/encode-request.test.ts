import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { reasoningEffort } from "../../../src/protocols/openai-chat/encode-request.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { irRequest } from "./helpers.ts";

type Body = Record<string, any>;

type Target = { model: string; stream: boolean; maxOutputTokens?: number };

function encode(
  overrides: Parameters<typeof irRequest>[0],
  target: Target = { model: "gpt-4.1", stream: false },
): Body {
  const call = openaiChat.encodeRequest(irRequest(overrides), target);
  assert.equal(call.path, "/chat/completions");
  return call.body as Body;
}

describe("encodeRequest", () => {
  test("the upstream model name replaces the catalog id; streaming always asks for usage", () => {
    const plain = encode({});
    assert.equal(plain.model, "gpt-4.1");
    assert.equal(plain.stream, undefined);
    assert.equal(plain.stream_options, undefined);
    assert.deepEqual(plain.messages, [{ role: "user", content: "hi" }]);

    // The client did not ask for streamed usage; the gateway asks anyway (trap: litellm#8349).
    const streamed = encode({ streamUsage: false }, { model: "gpt-4.1", stream: true });
    assert.equal(streamed.stream, true);
    assert.deepEqual(streamed.stream_options, { include_usage: true });
  });

  test("sampling fields, stop, logprobs, seed and user", () => {
    const body = encode({
      maxOutputTokens: 256,
      temperature: 0.3,
      topP: 0.8,
      topK: 40,
      frequencyPenalty: 0.5,
      presencePenalty: -0.5,
      seed: 11,
      user: "end-user-1",
      stopSequences: ["END"],
      logprobs: { topLogprobs: 3 },
    });
    assert.equal(body.max_completion_tokens, 256);
    assert.equal(body.temperature, 0.3);
    assert.equal(body.top_p, 0.8);
    assert.equal(body.top_k, undefined, "top_k has no chat field");
    assert.equal(body.frequency_penalty, 0.5);
    assert.equal(body.presence_penalty, -0.5);
    assert.equal(body.seed, 11);
    assert.equal(body.user, "end-user-1");
    assert.deepEqual(body.stop, ["END"]);
    assert.equal(body.logprobs, true);
    assert.equal(body.top_logprobs, 3);
  });

  test("max_completion_tokens is the client's limit; the catalog's is not imposed", () => {
    const withLimit = { model: "m", stream: false, maxOutputTokens: 4096 };
    assert.equal(encode({ maxOutputTokens: 100 }, withLimit).max_completion_tokens, 100);
    assert.equal(encode({}, withLimit).max_completion_tokens, undefined);
  });

  test("system blocks become one system message first", () => {
    const body = encode({
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Use French." },
      ],
    });
    assert.deepEqual(body.messages[0], { role: "system", content: "Be brief.\n\nUse French." });
    assert.equal(body.messages[1].role, "user");
  });

  test("tools, tool_choice, parallel_tool_calls; none of them without tools", () => {
    const body = encode({
      tools: [
        {
          name: "weather",
          description: "Get weather",
          parameters: { type: "object", properties: {} },
          strict: true,
        },
      ],
      toolChoice: { type: "tool", name: "weather" },
      parallelToolCalls: false,
    });
    assert.deepEqual(body.tools, [
      {
        type: "function",
        function: {
          name: "weather",
          description: "Get weather",
          parameters: { type: "object", properties: {} },
          strict: true,
        },
      },
    ]);
    assert.deepEqual(body.tool_choice, { type: "function", function: { name: "weather" } });
    assert.equal(body.parallel_tool_calls, false);
    assert.equal(
      encode({ tools: [{ name: "f", parameters: {} }], toolChoice: { type: "required" } }).tool_choice,
      "required",
    );
    const bare = encode({ toolChoice: { type: "auto" }, parallelToolCalls: true });
    assert.equal(bare.tools, undefined);
    assert.equal(bare.tool_choice, undefined);
    assert.equal(bare.parallel_tool_calls, undefined);
  });

  test("response_format; json_schema gets a name when the source had none", () => {
    assert.deepEqual(encode({ responseFormat: { type: "json_object" } }).response_format, {
      type: "json_object",
    });
    assert.deepEqual(
      encode({ responseFormat: { type: "json_schema", schema: { type: "object" } } }).response_format,
      {
        type: "json_schema",
        json_schema: { name: "response", schema: { type: "object" } },
      },
    );
    assert.deepEqual(
      encode({
        responseFormat: { type: "json_schema", name: "answer", schema: {}, strict: true, description: "d" },
      }).response_format,
      { type: "json_schema", json_schema: { name: "answer", schema: {}, description: "d", strict: true } },
    );
  });

  test("reasoning: effort passes; a budget maps to an effort; off sends nothing unless the client said none", () => {
    assert.equal(encode({ reasoning: { effort: "high" } }).reasoning_effort, "high");
    assert.equal(reasoningEffort({ budgetTokens: 1024 }), "low");
    assert.equal(reasoningEffort({ budgetTokens: 4096 }), "low");
    assert.equal(reasoningEffort({ enabled: true, budgetTokens: 10000 }), "medium");
    assert.equal(reasoningEffort({ budgetTokens: 16384 }), "medium");
    assert.equal(reasoningEffort({ budgetTokens: 31999 }), "high");
    assert.equal(reasoningEffort({ budgetTokens: -1 }), undefined);
    assert.equal(reasoningEffort({ enabled: false, budgetTokens: 0 }), undefined);
    assert.equal(reasoningEffort({ enabled: false }), undefined);
    assert.equal(reasoningEffort({ adaptive: true }), undefined);
    assert.equal(reasoningEffort({ enabled: false, effort: "none" }), "none");
    assert.equal(encode({ reasoning: { enabled: false } }).reasoning_effort, undefined);
  });

  test("assistant turns: thinking → reasoning_details with signatures, tool calls with {} for empty arguments", () => {
    const body = encode({
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "Need a tool.", signature: "sig-1" },
            { type: "thinking", text: "", signature: "sig-empty" },
            { type: "redacted_thinking", data: "enc" },
            { type: "text", text: "Let me check." },
            { type: "tool_call", id: "toolu_1", name: "weather", arguments: '{"city":"Paris"}' },
            { type: "tool_call", id: "toolu_2", name: "now", arguments: "" },
          ],
        },
      ],
    });
    assert.deepEqual(body.messages[1], {
      role: "assistant",
      content: "Let me check.",
      tool_calls: [
        { id: "toolu_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        { id: "toolu_2", type: "function", function: { name: "now", arguments: "{}" } },
      ],
      reasoning_details: [
        { type: "reasoning.text", text: "Need a tool.", format: "unknown", index: 0, signature: "sig-1" },
        { type: "reasoning.text", text: "", format: "unknown", index: 1, signature: "sig-empty" },
        { type: "reasoning.encrypted", data: "enc", format: "unknown", index: 2 },
      ],
    });
  });

  test("a Gemini-signed tool call goes upstream with its signature in both vendor forms", () => {
    const body = encode({
      messages: [
        { role: "user", content: [{ type: "text", text: "x" }] },
        {
          role: "assistant",
          content: [{ type: "tool_call", id: "fc_1", name: "f", arguments: "{}", signature: "CiQB" }],
        },
      ],
    });
    assert.deepEqual(body.messages[1].tool_calls[0].extra_content, { google: { thought_signature: "CiQB" } });
    // …and as OpenRouter wants it: an encrypted reasoning item naming the call.
    assert.deepEqual(body.messages[1].reasoning_details, [
      { type: "reasoning.encrypted", data: "CiQB", id: "fc_1", format: "google-gemini-v1", index: 0 },
    ]);
    assert.equal(body.messages[1].content, null);
  });

  test("tool results become tool messages before the user's other content; their media follows as user parts", () => {
    const body = encode({
      messages: [
        {
          role: "user",
          content: [
            { type: "tool_result", toolCallId: "c1", content: [{ type: "text", text: "18C" }] },
            {
              type: "tool_result",
              toolCallId: "c2",
              isError: true,
              content: [
                { type: "text", text: "chart:" },
                { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" } },
              ],
            },
            { type: "text", text: "Summarise." },
          ],
        },
      ],
    });
    assert.deepEqual(body.messages, [
      { role: "tool", tool_call_id: "c1", content: "18C" },
      { role: "tool", tool_call_id: "c2", content: "chart:" },
      {
        role: "user",
        content: [
          { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR" } },
          { type: "text", text: "Summarise." },
        ],
      },
    ]);
  });

  test("media parts: image URL with detail, audio format, PDF by data and by file id, text document", () => {
    const body = encode({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "url", url: "https://example.com/a.png" }, detail: "high" },
            { type: "audio", source: { kind: "base64", mediaType: "audio/mpeg", data: "SUQz" } },
            { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" } },
            { type: "document", source: { kind: "file", fileId: "file-1" }, filename: "r.pdf" },
            {
              type: "document",
              source: { kind: "text", text: "Body", mediaType: "text/plain" },
              title: "Notes",
            },
          ],
        },
      ],
    });
    assert.deepEqual(body.messages[0].content, [
      { type: "image_url", image_url: { url: "https://example.com/a.png", detail: "high" } },
      { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "document.pdf" } },
      { type: "file", file: { file_id: "file-1", filename: "r.pdf" } },
      { type: "text", text: "Notes\n\nBody" },
    ]);
  });

  test("media this protocol cannot reference is a 400, not a silent loss", () => {
    assert.throws(
      () =>
        encode({
          messages: [
            {
              role: "user",
              content: [{ type: "document", source: { kind: "url", url: "https://x/y.pdf" } }],
            },
          ],
        }),
      (err: unknown) =>
        err instanceof GatewayError && err.status === 400 && /document given by URL/.test(err.message),
    );
  });

  test("an empty assistant turn is not sent", () => {
    const body = encode({
      messages: [
        { role: "user", content: [{ type: "text", text: "a" }] },
        { role: "assistant", content: [] },
        { role: "user", content: [{ type: "text", text: "b" }] },
      ],
    });
    assert.deepEqual(
      body.messages.map((m: Body) => m.role),
      ["user", "user"],
    );
  });
});

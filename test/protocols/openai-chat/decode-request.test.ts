import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { packToolCallId } from "../../../src/ir/tool-call-id.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";

const ctx = { headers: {} };
const user = { role: "user", content: "Hello" };

function decode(extra: Record<string, unknown>) {
  return openaiChat.decodeRequest({ model: "openai/gpt-4.1", messages: [user], ...extra }, ctx);
}

/** Asserts a 400 naming `param`. */
function rejects(body: unknown, param: string) {
  assert.throws(
    () => openaiChat.decodeRequest(body, ctx),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${err}`);
      assert.equal(err.status, 400);
      assert.equal(err.param, param);
      assert.ok(err.message.includes(param), `message names the field: ${err.message}`);
      return true;
    },
  );
}

function rejectsField(extra: Record<string, unknown>, param: string) {
  rejects({ model: "openai/gpt-4.1", messages: [user], ...extra }, param);
}

describe("decodeRequest: the minimal body", () => {
  test("model and a user string become the IR request with defaults", () => {
    const req = decode({});
    assert.equal(req.model, "openai/gpt-4.1");
    assert.deepEqual(req.messages, [{ role: "user", content: [{ type: "text", text: "Hello" }] }]);
    assert.deepEqual(req.system, []);
    assert.deepEqual(req.tools, []);
    assert.deepEqual(req.stopSequences, []);
    assert.equal(req.stream, false);
    assert.equal(req.streamUsage, false);
    assert.deepEqual(req.ignored, []);
  });

  test("body, model and messages are required and typed", () => {
    rejects("nope", "body");
    rejects({ messages: [user] }, "model");
    rejects({ model: "", messages: [user] }, "model");
    rejects({ model: "openai/gpt-4.1" }, "messages");
    rejects({ model: "openai/gpt-4.1", messages: [] }, "messages");
    rejects({ model: "openai/gpt-4.1", messages: {} }, "messages");
  });

  test("unknown fields are ignored silently", () => {
    const req = decode({ some_vendor_flag: true, extra_body: { x: 1 } });
    assert.deepEqual(req.ignored, []);
  });
});

describe("decodeRequest: messages", () => {
  test("system and developer messages become system blocks wherever they appear", () => {
    const req = openaiChat.decodeRequest(
      {
        model: "m",
        messages: [
          { role: "system", content: "Be brief." },
          user,
          { role: "developer", content: [{ type: "text", text: "Use French." }] },
          { role: "assistant", content: "Bonjour" },
        ],
      },
      ctx,
    );
    assert.deepEqual(req.system, [
      { type: "text", text: "Be brief." },
      { type: "text", text: "Use French." },
    ]);
    assert.deepEqual(
      req.messages.map((m) => m.role),
      ["user", "assistant"],
    );
  });

  test("a system part that is not text is refused", () => {
    rejects(
      { model: "m", messages: [{ role: "system", content: [{ type: "image_url" }] }, user] },
      "messages[0].content[0].type",
    );
  });

  test("user parts: text, image URL, image data URL with detail, audio, file by id and by data", () => {
    const req = decode({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look" },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,/9j/4AAQ", detail: "low" } },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
            { type: "file", file: { file_id: "file-abc123", filename: "report.pdf" } },
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0x", filename: "a.pdf" } },
            { type: "file", file: { file_data: "JVBERi0x" } },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[0].content, [
      { type: "text", text: "Look" },
      { type: "image", source: { kind: "url", url: "https://example.com/cat.png" } },
      { type: "image", source: { kind: "base64", mediaType: "image/jpeg", data: "/9j/4AAQ" }, detail: "low" },
      { type: "audio", source: { kind: "base64", mediaType: "audio/wav", data: "UklGRg==" } },
      {
        type: "document",
        source: { kind: "file", fileId: "file-abc123", filename: "report.pdf" },
        filename: "report.pdf",
      },
      {
        type: "document",
        source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0x" },
        filename: "a.pdf",
      },
      { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0x" } },
    ]);
  });

  test("bad user parts are 400s naming the part field", () => {
    const at = (content: unknown) => ({ model: "m", messages: [{ role: "user", content }] });
    rejects(at(42), "messages[0].content");
    rejects(at([{ type: "video" }]), "messages[0].content[0].type");
    rejects(at([{ type: "text", text: 5 }]), "messages[0].content[0].text");
    rejects(at([{ type: "image_url", image_url: {} }]), "messages[0].content[0].image_url.url");
    rejects(
      at([{ type: "image_url", image_url: { url: "https://x/y.png", detail: "ultra" } }]),
      "messages[0].content[0].image_url.detail",
    );
    rejects(
      at([{ type: "input_audio", input_audio: { data: "AA==" } }]),
      "messages[0].content[0].input_audio.format",
    );
    rejects(at([{ type: "file", file: { filename: "x.pdf" } }]), "messages[0].content[0].file");
    rejects({ model: "m", messages: [user, { role: "user", content: null }] }, "messages[1].content");
  });

  test("unknown and function roles are refused", () => {
    rejects({ model: "m", messages: [{ role: "wizard", content: "x" }] }, "messages[0].role");
    rejects(
      { model: "m", messages: [user, { role: "function", name: "f", content: "x" }] },
      "messages[1].role",
    );
    rejects({ model: "m", messages: ["hello"] }, "messages[0]");
  });

  test("assistant: reasoning_details (signed, encrypted), content and tool calls, in that order", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: "Checking.",
          reasoning: "ignored when details exist",
          reasoning_details: [
            {
              type: "reasoning.text",
              text: "Need weather.",
              signature: "sig-1",
              format: "anthropic-claude-v1",
              index: 0,
            },
            { type: "reasoning.encrypted", data: "opaque==", format: "anthropic-claude-v1", index: 1 },
          ],
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1], {
      role: "assistant",
      content: [
        { type: "thinking", text: "Need weather.", signature: "sig-1" },
        { type: "redacted_thinking", data: "opaque==" },
        { type: "text", text: "Checking." },
        { type: "tool_call", id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
      ],
    });
  });

  test("an empty-text signed reasoning item is kept (trap: litellm#41361)", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: "ok",
          reasoning_details: [{ type: "reasoning.text", text: "", signature: "only-sig", index: 0 }],
        },
      ],
    });
    assert.deepEqual(req.messages[1].content[0], { type: "thinking", text: "", signature: "only-sig" });
  });

  test("reasoning pieces a client collected from a stream join by index", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: "ok",
          reasoning_details: [
            { type: "reasoning.text", text: "The user", format: "f", index: 0 },
            { type: "reasoning.text", text: " asks.", format: "f", index: 0 },
            { type: "reasoning.text", text: "", signature: "sig", format: "f", index: 0 },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1].content[0], {
      type: "thinking",
      text: "The user asks.",
      signature: "sig",
    });
  });

  test("plain `reasoning` text becomes an unsigned thinking block", () => {
    const req = decode({ messages: [user, { role: "assistant", content: "Hi", reasoning: "Say hi." }] });
    assert.deepEqual(req.messages[1].content, [
      { type: "thinking", text: "Say hi." },
      { type: "text", text: "Hi" },
    ]);
  });

  test("assistant content parts and refusal become text; an empty turn is dropped", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: [
            { type: "text", text: "A" },
            { type: "refusal", refusal: "B" },
          ],
        },
        user,
        { role: "assistant", content: null, refusal: "I can't help with that." },
        user,
        { role: "assistant", content: "" },
      ],
    });
    assert.deepEqual(req.messages[1].content, [
      { type: "text", text: "A" },
      { type: "text", text: "B" },
    ]);
    assert.deepEqual(req.messages[3].content, [{ type: "text", text: "I can't help with that." }]);
    assert.equal(req.messages.length, 5);
  });

  test("bad assistant fields are 400s naming the field", () => {
    const turn = (m: Record<string, unknown>) => ({
      model: "m",
      messages: [user, { role: "assistant", ...m }],
    });
    rejects(turn({}), "messages[1].content");
    rejects(turn({ content: 3 }), "messages[1].content");
    rejects(turn({ content: [{ type: "image_url" }] }), "messages[1].content[0].type");
    rejects(turn({ function_call: { name: "f", arguments: "{}" } }), "messages[1].function_call");
    rejects(turn({ tool_calls: {} }), "messages[1].tool_calls");
    rejects(
      turn({ tool_calls: [{ type: "function", function: { name: "f" } }] }),
      "messages[1].tool_calls[0].id",
    );
    rejects(
      turn({ tool_calls: [{ id: "c", type: "mcp", mcp: { name: "f" } }] }),
      "messages[1].tool_calls[0].type",
    );
    rejects(
      turn({ tool_calls: [{ id: "c", type: "custom", custom: { name: "f" } }] }),
      "messages[1].tool_calls[0].custom.input",
    );
    rejects(
      turn({ tool_calls: [{ id: "c", type: "function", function: { arguments: "{}" } }] }),
      "messages[1].tool_calls[0].function.name",
    );
    rejects(
      turn({ tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: 7 } }] }),
      "messages[1].tool_calls[0].function.arguments",
    );
    rejects(turn({ content: "x", reasoning_details: "nope" }), "messages[1].reasoning_details");
    rejects(
      turn({ content: "x", reasoning_details: [{ type: "reasoning.text", text: 1 }] }),
      "messages[1].reasoning_details[0].text",
    );
    rejects(turn({ content: "x", refusal: 5 }), "messages[1].refusal");
  });

  test("consecutive tool messages join one user turn, with the names from the calls", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "weather", arguments: "{}" } },
            { id: "call_b", type: "function", function: { name: "time", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "18C" },
        { role: "tool", tool_call_id: "call_b", content: [{ type: "text", text: "noon" }] },
        { role: "user", content: "Thanks" },
      ],
    });
    assert.equal(req.messages.length, 4);
    assert.deepEqual(req.messages[2], {
      role: "user",
      content: [
        {
          type: "tool_result",
          toolCallId: "call_a",
          content: [{ type: "text", text: "18C" }],
          name: "weather",
        },
        {
          type: "tool_result",
          toolCallId: "call_b",
          content: [{ type: "text", text: "noon" }],
          name: "time",
        },
      ],
    });
    assert.deepEqual(req.messages[3], { role: "user", content: [{ type: "text", text: "Thanks" }] });
  });

  test("tool messages need a string tool_call_id and text content", () => {
    rejects({ model: "m", messages: [user, { role: "tool", content: "x" }] }, "messages[1].tool_call_id");
    rejects(
      { model: "m", messages: [user, { role: "tool", tool_call_id: "c", content: 1 }] },
      "messages[1].content",
    );
  });

  test("a packed tool-call id is unpacked: the IR call gets the signature, the result the bare id", () => {
    const packed = packToolCallId("call_g1", "gemini-thought-signature/+=");
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: packed, type: "function", function: { name: "f", arguments: "{}" } }],
        },
        { role: "tool", tool_call_id: packed, content: "done" },
      ],
    });
    assert.deepEqual(req.messages[1].content[0], {
      type: "tool_call",
      id: "call_g1",
      name: "f",
      arguments: "{}",
      signature: "gemini-thought-signature/+=",
    });
    const result = req.messages[2].content[0];
    assert.equal(result.type === "tool_result" && result.toolCallId, "call_g1");
    assert.equal(result.type === "tool_result" && result.name, "f");
  });

  test("Gemini's extra_content.google.thought_signature on a replayed call is kept", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "function-call-1",
              type: "function",
              function: { name: "f", arguments: "{}" },
              extra_content: { google: { thought_signature: "CiQB" } },
            },
          ],
        },
      ],
    });
    const call = req.messages[1].content[0];
    assert.equal(call.type === "tool_call" && call.signature, "CiQB");
  });
});

describe("decodeRequest: OpenRouter-style Gemini signatures", () => {
  test("an encrypted reasoning item whose id is a call's becomes that call's signature", () => {
    const req = decode({
      messages: [
        user,
        {
          role: "assistant",
          tool_calls: [
            { id: "tool_weather_1", type: "function", function: { name: "weather", arguments: "{}" } },
          ],
          reasoning_details: [
            {
              type: "reasoning.encrypted",
              data: "CiUBjz1r",
              format: "google-gemini-v1",
              id: "tool_weather_1",
              index: 0,
            },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1].content, [
      { type: "tool_call", id: "tool_weather_1", name: "weather", arguments: "{}", signature: "CiUBjz1r" },
    ]);
  });
});

describe("decodeRequest: tools and output", () => {
  test("function tools with name, description, parameters, strict; parameters default to an empty object", () => {
    const req = decode({
      tools: [
        {
          type: "function",
          function: {
            name: "weather",
            description: "Get weather",
            parameters: { type: "object", properties: { city: { type: "string" } } },
            strict: true,
          },
        },
        { type: "function", function: { name: "now" } },
      ],
      tool_choice: { type: "function", function: { name: "weather" } },
      parallel_tool_calls: false,
    });
    assert.deepEqual(req.tools, [
      {
        name: "weather",
        description: "Get weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        strict: true,
      },
      { name: "now", parameters: { type: "object", properties: {} } },
    ]);
    assert.deepEqual(req.toolChoice, { type: "tool", name: "weather" });
    assert.equal(req.parallelToolCalls, false);
  });

  test("custom tools: free-text input, held as a function of one string `input`", () => {
    const req = decode({
      tools: [
        { type: "custom", custom: { name: "shell", description: "Run a command" } },
        {
          type: "custom",
          custom: {
            name: "digits",
            format: { type: "grammar", grammar: { syntax: "regex", definition: "\\d+" } },
          },
        },
      ],
      tool_choice: { type: "custom", custom: { name: "shell" } },
      messages: [
        user,
        {
          role: "assistant",
          tool_calls: [{ id: "call_1", type: "custom", custom: { name: "shell", input: "ls -la" } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "a.txt" },
      ],
    });
    const input = {
      type: "object",
      properties: { input: { type: "string" } },
      required: ["input"],
      additionalProperties: false,
    };
    assert.deepEqual(req.tools, [
      { name: "shell", description: "Run a command", parameters: input, custom: {} },
      // The IR keeps the Responses API's flat grammar.
      {
        name: "digits",
        parameters: input,
        custom: { format: { type: "grammar", syntax: "regex", definition: "\\d+" } },
      },
    ]);
    assert.deepEqual(req.toolChoice, { type: "tool", name: "shell" });
    assert.deepEqual(req.messages[1].content, [
      { type: "tool_call", id: "call_1", name: "shell", arguments: '{"input":"ls -la"}' },
    ]);
    assert.equal(req.messages[2].content[0].type, "tool_result");
  });

  test("tool_choice strings", () => {
    for (const choice of ["none", "auto", "required"] as const)
      assert.deepEqual(decode({ tool_choice: choice }).toolChoice, { type: choice });
  });

  test("bad tools and tool_choice are 400s", () => {
    rejectsField({ tools: {} }, "tools");
    rejectsField({ tools: [{ type: "mcp", mcp: { name: "x" } }] }, "tools[0].type");
    rejectsField({ tools: [{ type: "custom" }] }, "tools[0].custom");
    rejectsField({ tools: [{ type: "custom", custom: { name: "" } }] }, "tools[0].custom.name");
    rejectsField(
      { tools: [{ type: "custom", custom: { name: "x", format: { type: "grammar" } } }] },
      "tools[0].custom.format.grammar",
    );
    rejectsField({ tool_choice: { type: "custom", custom: {} } }, "tool_choice.custom.name");
    rejectsField({ tools: [{ type: "function" }] }, "tools[0].function");
    rejectsField({ tools: [{ type: "function", function: { name: "" } }] }, "tools[0].function.name");
    rejectsField(
      { tools: [{ type: "function", function: { name: "f", parameters: "x" } }] },
      "tools[0].function.parameters",
    );
    rejectsField(
      { tools: [{ type: "function", function: { name: "f", strict: "yes" } }] },
      "tools[0].function.strict",
    );
    rejectsField({ tool_choice: "any" }, "tool_choice");
    rejectsField({ tool_choice: { type: "function", function: {} } }, "tool_choice.function.name");
    rejectsField({ parallel_tool_calls: "no" }, "parallel_tool_calls");
  });

  test("functions and function_call are refused naming the field", () => {
    rejectsField({ functions: [{ name: "f", parameters: {} }] }, "functions");
    rejectsField({ function_call: "auto" }, "function_call");
  });

  test("response_format: text, json_object, json_schema", () => {
    assert.deepEqual(decode({ response_format: { type: "text" } }).responseFormat, { type: "text" });
    assert.deepEqual(decode({ response_format: { type: "json_object" } }).responseFormat, {
      type: "json_object",
    });
    const req = decode({
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "answer_v2",
          description: "The answer",
          schema: { type: "object" },
          strict: true,
        },
      },
    });
    assert.deepEqual(req.responseFormat, {
      type: "json_schema",
      name: "answer_v2",
      schema: { type: "object" },
      description: "The answer",
      strict: true,
    });
  });

  test("bad response_format is a 400; json_schema.name is at most 64 of [a-zA-Z0-9_-]", () => {
    rejectsField({ response_format: "json" }, "response_format");
    rejectsField({ response_format: { type: "yaml" } }, "response_format.type");
    rejectsField({ response_format: { type: "json_schema" } }, "response_format.json_schema");
    rejectsField(
      { response_format: { type: "json_schema", json_schema: { name: "has space", schema: {} } } },
      "response_format.json_schema.name",
    );
    rejectsField(
      { response_format: { type: "json_schema", json_schema: { name: "a".repeat(65), schema: {} } } },
      "response_format.json_schema.name",
    );
    assert.equal(
      decode({ response_format: { type: "json_schema", json_schema: { name: "a".repeat(64) } } })
        .responseFormat?.type,
      "json_schema",
    );
    rejectsField(
      { response_format: { type: "json_schema", json_schema: { name: "x", schema: [] } } },
      "response_format.json_schema.schema",
    );
  });
});

describe("decodeRequest: sampling and limits", () => {
  test("sampling fields map to the IR", () => {
    const req = decode({
      max_completion_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      frequency_penalty: -1.5,
      presence_penalty: 2,
      stop: ["END", "STOP"],
      n: 1,
      logprobs: true,
      top_logprobs: 5,
    });
    assert.equal(req.maxOutputTokens, 500);
    assert.equal(req.temperature, 0.2);
    assert.equal(req.topP, 0.9);
    assert.equal(req.frequencyPenalty, -1.5);
    assert.equal(req.presencePenalty, 2);
    assert.deepEqual(req.stopSequences, ["END", "STOP"]);
    assert.deepEqual(req.logprobs, { topLogprobs: 5 });
  });

  test("max_tokens counts when max_completion_tokens is absent, and is ignored beside it", () => {
    assert.equal(decode({ max_tokens: 64 }).maxOutputTokens, 64);
    const both = decode({ max_tokens: 64, max_completion_tokens: 128 });
    assert.equal(both.maxOutputTokens, 128);
    assert.deepEqual(both.ignored, ["max_tokens"]);
  });

  test("stop may be a single string", () => {
    assert.deepEqual(decode({ stop: "\n\n" }).stopSequences, ["\n\n"]);
    assert.deepEqual(decode({ stop: null }).stopSequences, []);
  });

  test("limits and types are 400s naming the field", () => {
    rejectsField({ max_completion_tokens: 0 }, "max_completion_tokens");
    rejectsField({ max_completion_tokens: 1.5 }, "max_completion_tokens");
    rejectsField({ max_tokens: "10" }, "max_tokens");
    rejectsField({ temperature: 2.5 }, "temperature");
    rejectsField({ temperature: -0.1 }, "temperature");
    rejectsField({ temperature: "hot" }, "temperature");
    rejectsField({ top_p: 1.1 }, "top_p");
    rejectsField({ frequency_penalty: 2.1 }, "frequency_penalty");
    rejectsField({ presence_penalty: -2.1 }, "presence_penalty");
    rejectsField({ stop: ["a", "b", "c", "d", "e"] }, "stop");
    rejectsField({ stop: ["a", 1] }, "stop[1]");
    rejectsField({ stop: 5 }, "stop");
    rejectsField({ n: 2 }, "n");
    rejectsField({ n: "1" }, "n");
    rejectsField({ logprobs: "yes" }, "logprobs");
    rejectsField({ logprobs: true, top_logprobs: 21 }, "top_logprobs");
    rejectsField({ logprobs: true, top_logprobs: -1 }, "top_logprobs");
    rejectsField({ top_logprobs: 3 }, "top_logprobs");
    rejectsField({ stream: "true" }, "stream");
  });

  test("logit_bias is checked to -100..100 and then dropped", () => {
    const req = decode({ logit_bias: { "50256": -100, "1234": 42 } });
    assert.deepEqual(req.ignored, ["logit_bias"]);
    rejectsField({ logit_bias: { "50256": -101 } }, "logit_bias.50256");
    rejectsField({ logit_bias: { "50256": 100.5 } }, "logit_bias.50256");
    rejectsField({ logit_bias: [1] }, "logit_bias");
  });

  test("metadata holds at most 16 string pairs and is not forwarded", () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, "v"]));
    assert.deepEqual(decode({ metadata: sixteen }).ignored, ["metadata"]);
    rejectsField({ metadata: { ...sixteen, k16: "v" } }, "metadata");
    rejectsField({ metadata: { a: 1 } }, "metadata.a");
    rejectsField({ metadata: "x" }, "metadata");
  });
});

describe("decodeRequest: reasoning, streaming, routing", () => {
  test("reasoning_effort and the reasoning object", () => {
    assert.deepEqual(decode({ reasoning_effort: "high" }).reasoning, { effort: "high" });
    assert.deepEqual(
      decode({ reasoning: { enabled: true, effort: "low", max_tokens: 2048, exclude: true } }).reasoning,
      {
        enabled: true,
        effort: "low",
        budgetTokens: 2048,
        exclude: true,
      },
    );
    assert.deepEqual(decode({ reasoning: {} }).reasoning, { enabled: true });
    assert.deepEqual(decode({ reasoning_effort: "none" }).reasoning, { effort: "none", enabled: false });
    assert.equal(decode({}).reasoning, undefined);
  });

  test("bad reasoning fields are 400s", () => {
    rejectsField({ reasoning_effort: "extreme" }, "reasoning_effort");
    rejectsField({ reasoning: { effort: "max" } }, "reasoning.effort");
    rejectsField({ reasoning: { max_tokens: -5 } }, "reasoning.max_tokens");
    rejectsField({ reasoning: { exclude: 1 } }, "reasoning.exclude");
    rejectsField({ reasoning: { enabled: "yes" } }, "reasoning.enabled");
    rejectsField({ reasoning: true }, "reasoning");
  });

  test("stream and usage in the stream: stream_options.include_usage or usage.include", () => {
    const plain = decode({ stream: true });
    assert.equal(plain.stream, true);
    assert.equal(plain.streamUsage, false);
    assert.equal(decode({ stream: true, stream_options: { include_usage: true } }).streamUsage, true);
    assert.equal(decode({ stream: true, usage: { include: true } }).streamUsage, true);
    assert.equal(decode({ stream: true, stream_options: { include_usage: false } }).streamUsage, false);
    rejectsField({ stream_options: { include_usage: "yes" } }, "stream_options.include_usage");
    rejectsField({ stream_options: 1 }, "stream_options");
    rejectsField({ usage: { include: 1 } }, "usage.include");
  });

  test("provider.routing and model_routing_config (top-level or inside provider) become IR routing", () => {
    const req = decode({
      provider: {
        routing: {
          type: "least_latency",
          primary_factor: "speed",
          providers: ["openai", "azure"],
          fallback: "azure",
        },
      },
      model_routing_config: {
        available_models: ["openai/gpt-4.1", "anthropic/claude-sonnet-4"],
        preference: "openai/gpt-4.1",
      },
    });
    assert.deepEqual(req.routing, {
      type: "least_latency",
      primaryFactor: "speed",
      providers: ["openai", "azure"],
      fallback: "azure",
      availableModels: ["openai/gpt-4.1", "anthropic/claude-sonnet-4"],
      preference: "openai/gpt-4.1",
    });
    const nested = decode({
      provider: { model_routing_config: { available_models: ["a/b"] }, routing: { fallback: false } },
    });
    assert.deepEqual(nested.routing, { fallback: "false", availableModels: ["a/b"] });
    assert.equal(decode({}).routing, undefined);
  });

  test("bad routing fields are 400s naming the field", () => {
    rejectsField({ provider: "openai" }, "provider");
    rejectsField({ provider: { routing: { type: "random" } } }, "provider.routing.type");
    rejectsField({ provider: { routing: { primary_factor: "price" } } }, "provider.routing.primary_factor");
    rejectsField({ provider: { routing: { providers: "openai" } } }, "provider.routing.providers");
    rejectsField({ provider: { routing: { providers: [1] } } }, "provider.routing.providers[0]");
    rejectsField({ provider: { routing: { fallback: 1 } } }, "provider.routing.fallback");
    rejectsField(
      { model_routing_config: { available_models: [2] } },
      "model_routing_config.available_models[0]",
    );
    rejectsField(
      { provider: { model_routing_config: { preference: 3 } } },
      "provider.model_routing_config.preference",
    );
  });

  test("verbosity is checked and carried; not named as ignored so a relay keeps it", () => {
    assert.deepEqual(decode({ verbosity: "low" }).ignored, []);
    assert.equal(decode({ verbosity: "low" }).verbosity, "low");
    rejectsField({ verbosity: "loud" }, "verbosity");
  });

  test("web_search_options and the API's unsupported fields are dropped and named", () => {
    const req = decode({
      web_search_options: { search_context_size: "low" },
      audio: { voice: "alloy", format: "wav" },
      modalities: ["text", "audio"],
      prompt_cache_key: "k",
      prompt_cache_retention: "24h",
      safety_identifier: "hash",
      store: true,
      service_tier: "flex",
      prediction: { type: "content", content: "x" },
      seed: 7,
      user: "u-1",
    });
    assert.deepEqual(req.ignored, [
      "web_search_options",
      "audio",
      "modalities",
      "prompt_cache_key",
      "prompt_cache_retention",
      "safety_identifier",
      "store",
      "service_tier",
      "prediction",
      "seed",
      "user",
    ]);
    assert.equal(req.seed, undefined);
    assert.equal(req.user, undefined);
    // Null means "not set": nothing to report.
    assert.deepEqual(decode({ seed: null, store: null }).ignored, []);
  });
});

describe("decodeRequest: wrongly typed tool schemas are a 400 naming the path (they were a 200)", () => {
  const tool = (parameters: unknown) => ({ type: "function", function: { name: "weather", parameters } });

  test('parameters.properties.city: "{}" (a string where a schema goes)', () => {
    rejectsField(
      { tools: [tool({ type: "object", properties: { city: "{}" } })] },
      "tools[0].function.parameters.properties.city",
    );
  });

  test("an empty type list, in a tool or a response format", () => {
    rejectsField(
      { tools: [tool({ type: "object", properties: { city: { type: [] } } })] },
      "tools[0].function.parameters.properties.city.type",
    );
    rejectsField(
      { response_format: { type: "json_schema", json_schema: { name: "a", schema: { items: "x" } } } },
      "response_format.json_schema.schema.items",
    );
  });

  test("a strict-mode schema as Codex writes it still passes", () => {
    const parameters = {
      type: "object",
      properties: {
        command: { type: "array", items: { type: "string" } },
        workdir: { type: ["string", "null"] },
      },
      required: ["command", "workdir"],
      additionalProperties: false,
    };
    assert.deepEqual(decode({ tools: [tool(parameters)] }).tools[0].parameters, parameters);
  });
});

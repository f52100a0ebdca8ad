import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Request } from "../../../src/ir/request.ts";
import { openaiResponses } from "../../../src/protocols/openai-responses/index.ts";
import { withUnsent } from "../helpers.ts";
import { irRequest } from "./helpers.ts";

function encode(overrides: Partial<Request>, stream = false) {
  const target = { model: "gpt-5", stream, maxOutputTokens: 128000 };
  return withUnsent((unsent) => openaiResponses.encodeRequest(irRequest(overrides), target, unsent));
}

describe("IR → a Responses API upstream", () => {
  test("a plain request: instructions, input items, stateless", () => {
    const call = encode(
      {
        system: [
          { type: "text", text: "Be brief." },
          { type: "text", text: "Be kind." },
        ],
        messages: [
          { role: "user", content: [{ type: "text", text: "Q1" }] },
          { role: "assistant", content: [{ type: "text", text: "A1" }] },
          { role: "user", content: [{ type: "text", text: "Q2" }] },
        ],
        temperature: 0.4,
        maxOutputTokens: 300,
      },
      true,
    );
    assert.equal(call.path, "/responses");
    assert.equal(call.dropped, undefined);
    assert.deepEqual(call.body, {
      model: "gpt-5",
      instructions: "Be brief.\n\nBe kind.",
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Q1" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "A1" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Q2" }] },
      ],
      stream: true,
      store: false,
      max_output_tokens: 300,
      temperature: 0.4,
    });
  });

  test("a tool round trip with signed reasoning: items without ids, encrypted content asked for", () => {
    const call = encode({
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather?" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "Call it.", signature: "sig-anthropic" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
            { type: "tool_call", id: "call_2", name: "apply_patch", arguments: '{"input":"*** Begin"}' },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolCallId: "call_1", content: [{ type: "text", text: "sunny" }] },
            { type: "tool_result", toolCallId: "call_2", content: [{ type: "text", text: "Done" }] },
          ],
        },
      ],
      tools: [
        { name: "get_weather", description: "Weather", parameters: { type: "object" } },
        { name: "apply_patch", parameters: { type: "object" }, custom: { format: { type: "grammar" } } },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
      parallelToolCalls: false,
    });
    const body = call.body as Record<string, unknown>;
    assert.deepEqual(body.input, [
      { type: "message", role: "user", content: [{ type: "input_text", text: "Weather?" }] },
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Call it." }],
        encrypted_content: "sig-anthropic",
      },
      { type: "reasoning", summary: [], encrypted_content: "redacted_thinking:opaque" },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { type: "custom_tool_call", call_id: "call_2", name: "apply_patch", input: "*** Begin" },
      { type: "function_call_output", call_id: "call_1", output: "sunny" },
      { type: "custom_tool_call_output", call_id: "call_2", output: "Done" },
    ]);
    assert.deepEqual(body.tools, [
      // Not strict unless the client said so: other protocols' schemas seldom meet strict mode's rules.
      {
        type: "function",
        name: "get_weather",
        description: "Weather",
        parameters: { type: "object" },
        strict: false,
      },
      { type: "custom", name: "apply_patch", format: { type: "grammar" } },
    ]);
    assert.deepEqual(body.tool_choice, { type: "function", name: "get_weather" });
    assert.equal(body.parallel_tool_calls, false);
    assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
  });

  test("reasoning: effort with a summary; a budget maps to an effort; off is said only as none", () => {
    assert.deepEqual((encode({ reasoning: { effort: "high" } }).body as any).reasoning, {
      effort: "high",
      summary: "auto",
    });
    assert.deepEqual((encode({ reasoning: { budgetTokens: 8000 } }).body as any).reasoning, {
      effort: "medium",
      summary: "auto",
    });
    assert.deepEqual((encode({ reasoning: { effort: "none", enabled: false } }).body as any).reasoning, {
      effort: "none",
    });
    const off = encode({ reasoning: { enabled: false, budgetTokens: 0 } });
    assert.equal((off.body as any).reasoning, undefined);
    assert.deepEqual(off.dropped, ["reasoning"]);
  });

  test("reasoning's encrypted content is asked whenever the answer may reason: asked, or the model's own", () => {
    const include = (overrides: Partial<Request>, reasoningModel: boolean) =>
      (
        openaiResponses.encodeRequest(irRequest(overrides), { model: "gpt-5", stream: false, reasoningModel })
          .body as any
      ).include;
    assert.deepEqual(include({}, true), ["reasoning.encrypted_content"]);
    assert.deepEqual(include({ reasoning: { effort: "low" } }, false), ["reasoning.encrypted_content"]);
    // Refused by OpenAI of a model that does not reason; pointless when reasoning is off.
    assert.equal(include({}, false), undefined);
    assert.equal(include({ reasoning: { effort: "none", enabled: false } }, true), undefined);
    assert.equal(include({ reasoning: { enabled: false } }, true), undefined);
  });

  test("structured output goes in text.format, named when the client gave no name", () => {
    const body = encode({ responseFormat: { type: "json_schema", schema: { type: "object" } } }).body as any;
    assert.deepEqual(body.text, {
      format: { type: "json_schema", name: "response", schema: { type: "object" } },
    });
  });

  test("a one-token probe is raised to the smallest limit OpenAI takes", () => {
    assert.equal((encode({ maxOutputTokens: 1 }).body as any).max_output_tokens, 16);
  });

  test("what the Responses API cannot be told is dropped and named", () => {
    const call = encode({
      // Beyond 4096 characters the gateway does not cut at them itself (src/ir/stop-sequences.ts).
      stopSequences: ["END", "x".repeat(4096)],
      topK: 5,
      frequencyPenalty: 0.1,
      presencePenalty: 0.1,
      seed: 1,
      logprobs: { topLogprobs: 3 },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "hi", cacheControl: { type: "ephemeral" } },
            { type: "tool_result", toolCallId: "c", content: [], isError: true },
          ],
        },
        { role: "assistant", content: [{ type: "thinking", text: "unsigned" }] },
      ],
    });
    assert.deepEqual(call.dropped, [
      "top_k",
      "stop",
      "frequency_penalty",
      "presence_penalty",
      "seed",
      "cache_control",
      "tool_result.is_error",
      "thinking",
    ]);
    const body = call.body as any;
    assert.equal(body.stop, undefined);
    // Logprobs are asked for as the Responses API asks for them (docs/translation.md §13b).
    assert.deepEqual(body.include, ["message.output_text.logprobs"]);
    assert.equal(body.top_logprobs, 3);
    assert.equal(body.input.length, 2, "unsigned thinking is left out");
  });

  test("a few stop sequences are not named: the gateway cuts the answer at them itself", () => {
    const call = encode({ stopSequences: ["END"] });
    assert.equal(call.dropped, undefined);
    assert.equal((call.body as any).stop, undefined);
  });

  test("media: data URLs, URLs, file ids and inline files with a filename", () => {
    const body = encode({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" } },
            { type: "image", source: { kind: "url", url: "https://x.test/a.png" }, detail: "high" },
            { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERg==" } },
            { type: "document", source: { kind: "file", fileId: "file-1" } },
          ],
        },
      ],
    }).body as any;
    assert.deepEqual(body.input[0].content, [
      { type: "input_image", detail: "auto", image_url: "data:image/png;base64,iVBOR" },
      { type: "input_image", detail: "high", image_url: "https://x.test/a.png" },
      { type: "input_file", file_data: "data:application/pdf;base64,JVBERg==", filename: "document.pdf" },
      { type: "input_file", file_id: "file-1" },
    ]);
  });
});

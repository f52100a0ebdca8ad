import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError, PROMPT } from "../../../src/ir/errors.ts";
import type { Message, Request } from "../../../src/ir/request.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { irRequest } from "./helpers.ts";

function encode(
  overrides: Partial<Request> = {},
  target: { model?: string; stream?: boolean; maxOutputTokens?: number } = {},
) {
  return gemini.encodeRequest(irRequest(overrides), {
    model: target.model ?? "gemini-2.5-flash",
    stream: target.stream ?? false,
    maxOutputTokens: target.maxOutputTokens,
  }) as { path: string; body: any };
}

describe("encodeRequest: path and basics", () => {
  test("path per method", () => {
    assert.equal(encode().path, "/v1beta/models/gemini-2.5-flash:generateContent");
    assert.equal(
      encode({}, { stream: true }).path,
      "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
  });

  test("system → systemInstruction; roles; consecutive same-role turns merge", () => {
    const { body } = encode({
      system: [{ type: "text", text: "Be terse." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "a" }] },
        { role: "user", content: [{ type: "text", text: "b" }] },
        { role: "assistant", content: [{ type: "text", text: "c" }] },
      ],
    });
    assert.deepEqual(body, {
      contents: [
        { role: "user", parts: [{ text: "a" }, { text: "b" }] },
        { role: "model", parts: [{ text: "c" }] },
      ],
      systemInstruction: { parts: [{ text: "Be terse." }] },
    });
  });

  test("media: base64 → inlineData, URLs → fileData with a mime type, data: URLs → inlineData, text documents → text/plain", () => {
    const { body } = encode({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBO" } },
            { type: "image", source: { kind: "url", url: "https://example.com/cat.webp" } },
            { type: "image", source: { kind: "url", url: "data:image/gif;base64,R0lG" } },
            { type: "audio", source: { kind: "base64", mediaType: "audio/wav", data: "UklG" } },
            {
              type: "document",
              source: { kind: "url", url: "gs://b/doc.pdf", mediaType: "application/pdf" },
            },
            { type: "document", source: { kind: "text", text: "notes", mediaType: "text/plain" } },
            { type: "document", source: { kind: "file", fileId: "files/abc", mediaType: "application/pdf" } },
          ],
        },
      ],
    });
    assert.deepEqual(body.contents[0].parts, [
      { inlineData: { mimeType: "image/png", data: "iVBO" } },
      { fileData: { mimeType: "image/webp", fileUri: "https://example.com/cat.webp" } },
      { inlineData: { mimeType: "image/gif", data: "R0lG" } },
      { inlineData: { mimeType: "audio/wav", data: "UklG" } },
      { fileData: { mimeType: "application/pdf", fileUri: "gs://b/doc.pdf" } },
      { inlineData: { mimeType: "text/plain", data: Buffer.from("notes").toString("base64") } },
      { fileData: { mimeType: "application/pdf", fileUri: "files/abc" } },
    ]);
  });
});

describe("encodeRequest: tool turns", () => {
  const conversation: Message[] = [
    { role: "user", content: [{ type: "text", text: "Weather?" }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", text: "Need the tool.", signature: "T-SIG" },
        { type: "thinking", text: "unsigned reasoning from another model" },
        {
          type: "tool_call",
          id: "toolu_1",
          name: "weather",
          arguments: '{"city":"Paris"}',
          signature: "C-SIG",
        },
        { type: "tool_call", id: "toolu_2", name: "weather", arguments: '{"city":"Rome"}' },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", toolCallId: "toolu_1", content: [{ type: "text", text: '{"temp":21}' }] },
        {
          type: "tool_result",
          toolCallId: "toolu_2",
          name: "weather",
          content: [{ type: "text", text: "cloudy" }],
        },
      ],
    },
  ];

  test("calls keep id and signature; results get the name from the call; signed thoughts only", () => {
    const { body } = encode({ messages: conversation });
    assert.deepEqual(body.contents[1], {
      role: "model",
      parts: [
        { text: "Need the tool.", thought: true, thoughtSignature: "T-SIG" },
        {
          functionCall: { id: "toolu_1", name: "weather", args: { city: "Paris" } },
          thoughtSignature: "C-SIG",
        },
        { functionCall: { id: "toolu_2", name: "weather", args: { city: "Rome" } } },
      ],
    });
    assert.deepEqual(body.contents[2], {
      role: "user",
      parts: [
        { functionResponse: { id: "toolu_1", name: "weather", response: { temp: 21 } } },
        { functionResponse: { id: "toolu_2", name: "weather", response: { result: "cloudy" } } },
      ],
    });
  });

  test("an error result → {error}; result media follow as sibling parts", () => {
    const { body } = encode({
      messages: [
        { role: "assistant", content: [{ type: "tool_call", id: "c", name: "snap", arguments: "{}" }] },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolCallId: "c",
              isError: true,
              content: [
                { type: "text", text: "camera offline" },
                { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBO" } },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(body.contents[1].parts, [
      { functionResponse: { id: "c", name: "snap", response: { error: "camera offline" } } },
      { inlineData: { mimeType: "image/png", data: "iVBO" } },
    ]);
  });

  test("a generated image replayed in a model turn goes back as inlineData", () => {
    const { body } = encode({
      messages: [
        { role: "user", content: [{ type: "text", text: "draw" }] },
        {
          role: "assistant",
          content: [{ type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBO" } }],
        },
      ],
    });
    assert.deepEqual(body.contents[1], {
      role: "model",
      parts: [{ inlineData: { mimeType: "image/png", data: "iVBO" } }],
    });
  });

  test("a result whose call is unknown and which carries no name is a 400", () => {
    assert.throws(
      () =>
        encode({
          messages: [{ role: "user", content: [{ type: "tool_result", toolCallId: "x", content: [] }] }],
        }),
      (error: unknown) =>
        // Named by the caller's prompt member (error-answer.ts): the IR's position is not the client's.
        error instanceof GatewayError && error.status === 400 && error.param === PROMPT,
    );
  });

  test("3-generation models: an unsigned call turn gets the documented skip signature on its first call", () => {
    const unsigned: Message[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      {
        role: "assistant",
        content: [
          { type: "tool_call", id: "a", name: "f", arguments: "{}" },
          { type: "tool_call", id: "b", name: "f", arguments: "{}" },
        ],
      },
      {
        role: "user",
        content: [{ type: "tool_result", toolCallId: "a", content: [{ type: "text", text: "1" }] }],
      },
    ];
    const three = encode({ messages: unsigned }, { model: "gemini-3-pro-preview" }).body.contents[1].parts;
    assert.equal(three[0].thoughtSignature, "skip_thought_signature_validator");
    assert.equal(three[1].thoughtSignature, undefined);
    const older = encode({ messages: unsigned }, { model: "gemini-2.5-pro" }).body.contents[1].parts;
    assert.equal(older[0].thoughtSignature, undefined);
    const signed = encode({ messages: conversation }, { model: "gemini-3-pro-preview" }).body.contents[1]
      .parts;
    assert.equal(signed[1].thoughtSignature, "C-SIG");
    assert.equal(signed[2].thoughtSignature, undefined);
  });
});

describe("encodeRequest: tools and settings", () => {
  test("declarations: Schema when expressible, parametersJsonSchema otherwise, nothing for no arguments", () => {
    const { body } = encode({
      tools: [
        {
          name: "simple",
          description: "d",
          parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        },
        {
          name: "strict",
          parameters: { type: "object", properties: { q: { type: "string" } }, additionalProperties: false },
        },
        { name: "none", parameters: { type: "object", properties: {}, additionalProperties: false } },
      ],
      toolChoice: { type: "tool", name: "simple" },
    });
    assert.deepEqual(body.tools, [
      {
        functionDeclarations: [
          {
            name: "simple",
            description: "d",
            parameters: { type: "OBJECT", properties: { q: { type: "STRING" } }, required: ["q"] },
          },
          {
            name: "strict",
            parametersJsonSchema: {
              type: "object",
              properties: { q: { type: "string" } },
              additionalProperties: false,
            },
          },
          { name: "none" },
        ],
      },
    ]);
    assert.deepEqual(body.toolConfig, {
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["simple"] },
    });
  });

  test("tool choices", () => {
    const tools = [{ name: "f", parameters: { type: "object", properties: { a: { type: "string" } } } }];
    const mode = (toolChoice: Request["toolChoice"]) => encode({ tools, toolChoice }).body.toolConfig;
    assert.deepEqual(mode({ type: "auto" }), { functionCallingConfig: { mode: "AUTO" } });
    assert.deepEqual(mode({ type: "none" }), { functionCallingConfig: { mode: "NONE" } });
    assert.deepEqual(mode({ type: "required" }), { functionCallingConfig: { mode: "ANY" } });
    assert.equal(mode(undefined), undefined);
  });

  test("generationConfig: sampling, stops, seed, format, logprobs; max tokens from the catalog when absent", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const { body } = encode(
      {
        temperature: 0.3,
        topP: 0.8,
        topK: 20,
        stopSequences: ["X"],
        presencePenalty: 0.5,
        frequencyPenalty: -0.5,
        seed: 9,
        responseFormat: { type: "json_schema", schema, name: "out" },
        logprobs: { topLogprobs: 3 },
      },
      { maxOutputTokens: 65536 },
    );
    assert.deepEqual(body.generationConfig, {
      temperature: 0.3,
      topP: 0.8,
      topK: 20,
      maxOutputTokens: 65536,
      stopSequences: ["X"],
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      seed: 9,
      responseMimeType: "application/json",
      responseJsonSchema: schema,
      responseLogprobs: true,
      logprobs: 3,
    });
    assert.equal(
      encode({ maxOutputTokens: 100 }, { maxOutputTokens: 65536 }).body.generationConfig.maxOutputTokens,
      100,
    );
    assert.deepEqual(encode({ responseFormat: { type: "json_object" } }).body.generationConfig, {
      responseMimeType: "application/json",
    });
    assert.equal(encode().body.generationConfig, undefined);
  });

  test("reasoning → thinkingConfig", () => {
    const thinking = (reasoning: Request["reasoning"], model = "gemini-2.5-flash") =>
      encode({ reasoning }, { model }).body.generationConfig?.thinkingConfig;
    assert.deepEqual(thinking({ budgetTokens: 2048 }), { thinkingBudget: 2048, includeThoughts: true });
    assert.deepEqual(thinking({ budgetTokens: -1, exclude: true }), {
      thinkingBudget: -1,
      includeThoughts: false,
    });
    assert.deepEqual(thinking({ enabled: false }), { thinkingBudget: 0 });
    assert.deepEqual(thinking({ enabled: false }, "gemini-2.5-pro"), { thinkingBudget: 128 });
    assert.deepEqual(thinking({ effort: "low" }), { thinkingBudget: 1024, includeThoughts: true });
    assert.deepEqual(thinking({ effort: "high" }), { thinkingBudget: 24576, includeThoughts: true });
    assert.deepEqual(thinking({ effort: "medium" }, "gemini-3-flash-preview"), {
      thinkingLevel: "MEDIUM",
      includeThoughts: true,
    });
    assert.deepEqual(thinking({ effort: "medium" }, "gemini-3-pro-preview"), {
      thinkingLevel: "HIGH",
      includeThoughts: true,
    });
    assert.deepEqual(thinking({ enabled: false }, "gemini-3-flash-preview"), { thinkingLevel: "MINIMAL" });
    assert.deepEqual(thinking({ adaptive: true }), { thinkingBudget: -1, includeThoughts: true });
    assert.equal(thinking(undefined), undefined);
  });
});

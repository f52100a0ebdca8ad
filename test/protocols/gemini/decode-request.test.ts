import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { ToolCallBlock, ToolResultBlock } from "../../../src/ir/request.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { fixture } from "./helpers.ts";

const ctx = { headers: {}, pathModel: "google/gemini-2.5-pro", pathStream: false };
const hello = [{ role: "user", parts: [{ text: "Hello" }] }];

function decode(body: Record<string, unknown>, context = ctx) {
  return gemini.decodeRequest(body, context);
}

function rejects(body: unknown, param: string) {
  assert.throws(
    () => gemini.decodeRequest(body, ctx),
    (error: unknown) => {
      assert.ok(error instanceof GatewayError, `expected a GatewayError, got ${error}`);
      assert.equal(error.status, 400);
      assert.equal(error.param, param);
      return true;
    },
  );
}

describe("decodeRequest: model, stream, contents", () => {
  test("model and stream come from the path", () => {
    const request = decode(
      { contents: hello },
      { headers: {}, pathModel: "gemini-2.5-flash", pathStream: true },
    );
    assert.equal(request.model, "gemini-2.5-flash");
    assert.equal(request.stream, true);
    assert.equal(request.streamUsage, true);
    assert.deepEqual(request.messages, [{ role: "user", content: [{ type: "text", text: "Hello" }] }]);
    assert.equal(decode({ contents: hello }).stream, false);
  });

  test("role defaults to user; model → assistant; consecutive turns of a role merge", () => {
    const request = decode({
      contents: [
        { parts: [{ text: "a" }] },
        { role: "user", parts: [{ text: "b" }] },
        { role: "model", parts: [{ text: "c" }] },
      ],
    });
    assert.deepEqual(request.messages, [
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "c" }] },
    ]);
  });

  test("systemInstruction text parts → system", () => {
    const request = decode({
      contents: hello,
      systemInstruction: { parts: [{ text: "Be brief." }, { text: "Be kind." }] },
    });
    assert.deepEqual(request.system, [
      { type: "text", text: "Be brief." },
      { type: "text", text: "Be kind." },
    ]);
  });

  test("inlineData: image, audio, pdf, text/plain (decoded), video (document)", () => {
    const text = Buffer.from("plain words").toString("base64");
    const request = decode({
      contents: [
        {
          parts: [
            {
              inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" },
              mediaResolution: { level: "MEDIA_RESOLUTION_LOW" },
            },
            { inlineData: { mimeType: "audio/wav", data: "UklGRg==" } },
            { inlineData: { mimeType: "application/pdf", data: "JVBERi0=" } },
            { inlineData: { mimeType: "text/plain", data: text } },
            { inlineData: { mimeType: "video/mp4", data: "AAAAIGZ0eXA=" } },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[0].content, [
      {
        type: "image",
        source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" },
        detail: "low",
      },
      { type: "audio", source: { kind: "base64", mediaType: "audio/wav", data: "UklGRg==" } },
      { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" } },
      { type: "document", source: { kind: "text", text: "plain words", mediaType: "text/plain" } },
      { type: "document", source: { kind: "base64", mediaType: "video/mp4", data: "AAAAIGZ0eXA=" } },
    ]);
  });

  test("fileData → url sources by mime type", () => {
    const request = decode({
      contents: [
        {
          parts: [
            {
              fileData: {
                mimeType: "image/jpeg",
                fileUri: "https://generativelanguage.googleapis.com/v1beta/files/abc",
              },
            },
            { fileData: { mimeType: "application/pdf", fileUri: "gs://bucket/report.pdf" } },
            { fileData: { fileUri: "https://www.youtube.com/watch?v=9hE5-98ZeCg" } },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[0].content, [
      {
        type: "image",
        source: {
          kind: "url",
          url: "https://generativelanguage.googleapis.com/v1beta/files/abc",
          mediaType: "image/jpeg",
        },
      },
      {
        type: "document",
        source: { kind: "url", url: "gs://bucket/report.pdf", mediaType: "application/pdf" },
      },
      { type: "document", source: { kind: "url", url: "https://www.youtube.com/watch?v=9hE5-98ZeCg" } },
    ]);
  });

  test("function call history: signature kept, ids made and paired by name", () => {
    const body = fixture("request-function-history.json");
    const request = decode(body);
    const call = request.messages[1].content[0] as ToolCallBlock;
    assert.equal(call.type, "tool_call");
    assert.equal(call.name, "check_flight");
    assert.equal(call.arguments, '{"flight":"AA100"}');
    assert.equal(call.signature, body.contents[1].parts[0].thoughtSignature);
    assert.match(call.id, /^call_/);
    const result = request.messages[2].content[0] as ToolResultBlock;
    assert.equal(result.type, "tool_result");
    assert.equal(result.toolCallId, call.id);
    assert.equal(result.name, "check_flight");
    assert.deepEqual(result.content, [
      { type: "text", text: '{"status":"delayed","departure_time":"12 PM"}' },
    ]);
    assert.equal(request.tools.length, 2);
    assert.deepEqual(request.tools[0], {
      name: "check_flight",
      description: "Gets the current status of a flight",
      parameters: {
        type: "object",
        properties: { flight: { type: "string", description: "The flight number to check" } },
        required: ["flight"],
      },
    });
  });

  test("parallel calls of one function without ids pair in order; given ids are kept", () => {
    const request = decode({
      contents: [
        { role: "user", parts: [{ text: "weather?" }] },
        {
          role: "model",
          parts: [
            {
              functionCall: { name: "weather", args: { city: "Paris" } },
              thoughtSignature: "skip_thought_signature_validator",
            },
            { functionCall: { name: "weather", args: { city: "Rome" } } },
            { functionCall: { id: "fc-7", name: "time", args: {} } },
          ],
        },
        {
          role: "user",
          parts: [
            { functionResponse: { name: "weather", response: { result: "sunny" } } },
            { functionResponse: { name: "weather", response: { output: "rain" } } },
            { functionResponse: { id: "fc-7", name: "time", response: { error: "clock broken" } } },
          ],
        },
      ],
    });
    const calls = request.messages[1].content as ToolCallBlock[];
    const results = request.messages[2].content as ToolResultBlock[];
    assert.equal(calls[0].signature, "skip_thought_signature_validator");
    assert.equal(calls[1].signature, undefined);
    assert.notEqual(calls[0].id, calls[1].id);
    assert.equal(results[0].toolCallId, calls[0].id);
    assert.equal(results[1].toolCallId, calls[1].id);
    assert.equal(results[2].toolCallId, "fc-7");
    assert.deepEqual(results[0].content, [{ type: "text", text: "sunny" }]);
    assert.deepEqual(results[1].content, [{ type: "text", text: "rain" }]);
    assert.deepEqual(results[2].content, [{ type: "text", text: "clock broken" }]);
    assert.equal(results[2].isError, true);
    assert.equal(results[0].isError, undefined);
  });

  test("thought parts → thinking; a signed text part → an empty signed thinking block before it", () => {
    const request = decode({
      contents: [
        { role: "user", parts: [{ text: "q" }] },
        {
          role: "model",
          parts: [
            { text: "Let me think", thought: true },
            { text: " step by step.", thought: true, thoughtSignature: "SIG-A" },
            { text: "Answer.", thoughtSignature: "SIG-B" },
            { text: "", thoughtSignature: "SIG-C" },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[1].content, [
      { type: "thinking", text: "Let me think step by step.", signature: "SIG-A" },
      { type: "thinking", text: "", signature: "SIG-B" },
      { type: "text", text: "Answer." },
      { type: "thinking", text: "", signature: "SIG-C" },
    ]);
  });

  test("a multimodal functionResponse keeps its media in the tool result", () => {
    const request = decode({
      contents: [
        { role: "model", parts: [{ functionCall: { id: "c1", name: "shot", args: {} } }] },
        {
          role: "user",
          parts: [
            {
              functionResponse: {
                id: "c1",
                name: "shot",
                response: { result: "done" },
                parts: [{ inlineData: { mimeType: "image/png", data: "iVBORw0KGgo=" } }],
              },
            },
          ],
        },
      ],
    });
    assert.deepEqual(request.messages[1].content[0], {
      type: "tool_result",
      toolCallId: "c1",
      name: "shot",
      content: [
        { type: "text", text: "done" },
        { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" } },
      ],
    });
  });

  test("snake_case fields from the docs' curl examples are read; unsupported ones are named in ignored", () => {
    const request = decode(fixture("request-docs-curl.json"));
    assert.deepEqual(request.system, [{ type: "text", text: "You are a cat. Your name is Neko." }]);
    assert.equal(request.messages[0].content[0].type, "image");
    assert.deepEqual(request.messages[0].content[1], { type: "text", text: "Caption this image." });
    assert.equal(request.temperature, 1);
    assert.equal(request.topP, 0.8);
    assert.equal(request.topK, 10);
    assert.equal(request.maxOutputTokens, 800);
    assert.deepEqual(request.stopSequences, ["Title"]);
    assert.deepEqual(request.reasoning, { exclude: false, enabled: true, budgetTokens: 1024 });
    assert.deepEqual(request.tools, []);
    assert.deepEqual(request.ignored.sort(), ["safetySettings"]);
    assert.deepEqual(request.webSearch, {}, "googleSearch is carried as the IR's web search");
  });

  test("code execution parts and cachedContent are dropped and named", () => {
    const request = decode({
      contents: [
        { role: "user", parts: [{ text: "run it" }] },
        {
          role: "model",
          parts: [{ executableCode: { language: "PYTHON", code: "print(1)" } }, { text: "1" }],
        },
      ],
      cachedContent: "cachedContents/abc",
    });
    assert.deepEqual(request.messages[1].content, [{ type: "text", text: "1" }]);
    assert.ok(request.ignored.includes("contents.parts.executableCode"));
    assert.ok(request.ignored.includes("cachedContent"));
  });
});

describe("decodeRequest: tools and toolConfig", () => {
  const tools = [
    {
      functionDeclarations: [
        { name: "a", parameters: { type: "OBJECT", properties: { x: { type: "STRING" } } } },
        { name: "b", parametersJsonSchema: { type: "object", additionalProperties: false, properties: {} } },
        { name: "c" },
      ],
    },
    { codeExecution: {} },
  ];

  test("parameters convert, parametersJsonSchema is kept, none means an empty object; others ignored", () => {
    const request = decode({ contents: hello, tools });
    assert.deepEqual(
      request.tools.map((tool) => tool.parameters),
      [
        { type: "object", properties: { x: { type: "string" } } },
        { type: "object", additionalProperties: false, properties: {} },
        { type: "object", properties: {} },
      ],
    );
    assert.deepEqual(request.ignored, ["tools.codeExecution"]);
  });

  test("modes map to tool choices", () => {
    const choice = (functionCallingConfig: unknown) => {
      const request = decode({ contents: hello, tools, toolConfig: { functionCallingConfig } });
      return { choice: request.toolChoice, names: request.tools.map((tool) => tool.name) };
    };
    assert.deepEqual(choice({ mode: "AUTO" }), { choice: { type: "auto" }, names: ["a", "b", "c"] });
    assert.deepEqual(choice({ mode: "NONE" }), { choice: { type: "none" }, names: ["a", "b", "c"] });
    assert.deepEqual(choice({ mode: "ANY" }), { choice: { type: "required" }, names: ["a", "b", "c"] });
    assert.deepEqual(choice({ mode: "ANY", allowedFunctionNames: ["b"] }), {
      choice: { type: "tool", name: "b" },
      names: ["b"],
    });
    assert.deepEqual(choice({ mode: "ANY", allowedFunctionNames: ["a", "c"] }), {
      choice: { type: "required" },
      names: ["a", "c"],
    });
    assert.deepEqual(choice({ mode: "VALIDATED" }), { choice: { type: "auto" }, names: ["a", "b", "c"] });
  });

  test("no toolConfig → no tool choice", () => {
    assert.equal(decode({ contents: hello, tools }).toolChoice, undefined);
  });
});

describe("decodeRequest: generationConfig", () => {
  test("every sampling field is carried", () => {
    const request = decode({
      contents: hello,
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        topK: 40,
        candidateCount: 1,
        maxOutputTokens: 256,
        stopSequences: ["END"],
        presencePenalty: -1.5,
        frequencyPenalty: 1.99,
        seed: 42,
        responseLogprobs: true,
        logprobs: 5,
      },
    });
    assert.equal(request.temperature, 0.2);
    assert.equal(request.topP, 0.9);
    assert.equal(request.topK, 40);
    assert.equal(request.maxOutputTokens, 256);
    assert.deepEqual(request.stopSequences, ["END"]);
    assert.equal(request.presencePenalty, -1.5);
    assert.equal(request.frequencyPenalty, 1.99);
    assert.equal(request.seed, 42);
    assert.deepEqual(request.logprobs, { topLogprobs: 5 });
    assert.deepEqual(request.ignored, []);
  });

  test("structured output", () => {
    const format = (generationConfig: unknown) =>
      decode({ contents: hello, generationConfig }).responseFormat;
    assert.deepEqual(format({ responseMimeType: "application/json" }), { type: "json_object" });
    assert.deepEqual(
      format({
        responseMimeType: "application/json",
        responseSchema: { type: "ARRAY", items: { type: "STRING" } },
      }),
      { type: "json_schema", schema: { type: "array", items: { type: "string" } } },
    );
    const jsonSchema = { type: "object", properties: { a: { const: 1 } }, additionalProperties: false };
    assert.deepEqual(format({ responseMimeType: "application/json", responseJsonSchema: jsonSchema }), {
      type: "json_schema",
      schema: jsonSchema,
    });
    assert.equal(format({ responseMimeType: "text/plain" }), undefined);
  });

  test("text/x.enum has no IR form: dropped and named", () => {
    const request = decode({
      contents: hello,
      generationConfig: {
        responseMimeType: "text/x.enum",
        responseSchema: { type: "STRING", enum: ["a", "b"] },
      },
    });
    assert.equal(request.responseFormat, undefined);
    assert.deepEqual(request.ignored.sort(), [
      "generationConfig.responseMimeType",
      "generationConfig.responseSchema",
    ]);
  });

  test("thinkingConfig → reasoning", () => {
    const reasoning = (thinkingConfig: unknown) =>
      decode({ contents: hello, generationConfig: { thinkingConfig } }).reasoning;
    assert.deepEqual(reasoning({ thinkingBudget: 0 }), { exclude: true, enabled: false, budgetTokens: 0 });
    assert.deepEqual(reasoning({ thinkingBudget: -1, includeThoughts: true }), {
      exclude: false,
      enabled: true,
      budgetTokens: -1,
    });
    assert.deepEqual(reasoning({ thinkingLevel: "HIGH", includeThoughts: true }), {
      exclude: false,
      enabled: true,
      effort: "high",
    });
    assert.deepEqual(reasoning({ thinkingLevel: "low" }), { exclude: true, enabled: true, effort: "low" });
    assert.deepEqual(reasoning({ includeThoughts: true }), { exclude: false });
  });

  test("output media settings and non-text modalities are dropped and named", () => {
    const request = decode({
      contents: hello,
      generationConfig: {
        responseModalities: ["TEXT", "IMAGE"],
        speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: "Kore" } } },
        imageConfig: { aspectRatio: "16:9" },
        mediaResolution: "MEDIA_RESOLUTION_LOW",
      },
    });
    assert.deepEqual(request.ignored.sort(), [
      "generationConfig.imageConfig",
      "generationConfig.mediaResolution",
      "generationConfig.responseModalities",
      "generationConfig.speechConfig",
    ]);
    assert.deepEqual(
      decode({ contents: hello, generationConfig: { responseModalities: ["TEXT"] } }).ignored,
      [],
    );
  });
});

describe("decodeRequest: 400s name the field", () => {
  const cases: Array<[string, unknown, string]> = [
    ["body not an object", [], "body"],
    ["contents missing", {}, "contents"],
    ["contents empty", { contents: [] }, "contents"],
    ["content not an object", { contents: ["hi"] }, "contents[0]"],
    ["parts empty", { contents: [{ role: "user", parts: [] }] }, "contents[0].parts"],
    ["bad role", { contents: [{ role: "assistant", parts: [{ text: "x" }] }] }, "contents[0].role"],
    ["part with no data", { contents: [{ parts: [{}] }] }, "contents[0].parts[0]"],
    [
      "part with two data fields",
      { contents: [{ parts: [{ text: "a", inlineData: { mimeType: "image/png", data: "" } }] }] },
      "contents[0].parts[0]",
    ],
    [
      "text not a string",
      { contents: [hello[0], { parts: [{ text: "ok" }, { text: 5 }] }] },
      "contents[1].parts[1].text",
    ],
    [
      "inlineData without mimeType",
      { contents: [{ parts: [{ inlineData: { data: "AA==" } }] }] },
      "contents[0].parts[0].inlineData.mimeType",
    ],
    [
      "fileData without fileUri",
      { contents: [{ parts: [{ fileData: { mimeType: "image/png" } }] }] },
      "contents[0].parts[0].fileData.fileUri",
    ],
    [
      "functionCall in a user turn",
      { contents: [{ parts: [{ functionCall: { name: "f" } }] }] },
      "contents[0].parts[0].functionCall",
    ],
    [
      "functionCall args not an object",
      { contents: [{ role: "model", parts: [{ functionCall: { name: "f", args: [] } }] }] },
      "contents[0].parts[0].functionCall.args",
    ],
    [
      "functionCall without name",
      { contents: [{ role: "model", parts: [{ functionCall: { args: {} } }] }] },
      "contents[0].parts[0].functionCall.name",
    ],
    [
      "functionResponse in a model turn",
      { contents: [{ role: "model", parts: [{ functionResponse: { name: "f", response: {} } }] }] },
      "contents[0].parts[0].functionResponse",
    ],
    [
      "functionResponse response not an object",
      { contents: [{ parts: [{ functionResponse: { name: "f", response: "x" } }] }] },
      "contents[0].parts[0].functionResponse.response",
    ],
    [
      "thoughtSignature not a string",
      { contents: [{ role: "model", parts: [{ text: "a", thoughtSignature: 1 }] }] },
      "contents[0].parts[0].thoughtSignature",
    ],
    [
      "thought not a boolean",
      { contents: [{ role: "model", parts: [{ text: "a", thought: "yes" }] }] },
      "contents[0].parts[0].thought",
    ],
    [
      "systemInstruction non-text part",
      { contents: hello, systemInstruction: { parts: [{ inlineData: {} }] } },
      "systemInstruction.parts[0].text",
    ],
    ["tools not an array", { contents: hello, tools: {} }, "tools"],
    [
      "declaration without name",
      { contents: hello, tools: [{ functionDeclarations: [{ description: "x" }] }] },
      "tools[0].functionDeclarations[0].name",
    ],
    [
      "parameters and parametersJsonSchema",
      {
        contents: hello,
        tools: [
          { functionDeclarations: [{ name: "f", parameters: { type: "OBJECT" }, parametersJsonSchema: {} }] },
        ],
      },
      "tools[0].functionDeclarations[0].parametersJsonSchema",
    ],
    [
      "bad Schema type",
      {
        contents: hello,
        tools: [
          {
            functionDeclarations: [
              { name: "f", parameters: { type: "OBJECT", properties: { a: { type: "CHAR" } } } },
            ],
          },
        ],
      },
      "tools[0].functionDeclarations[0].parameters.properties.a.type",
    ],
    [
      "bad mode",
      {
        contents: hello,
        tools: [{ functionDeclarations: [{ name: "f" }] }],
        toolConfig: { functionCallingConfig: { mode: "SOMETIMES" } },
      },
      "toolConfig.functionCallingConfig.mode",
    ],
    [
      "unknown allowed name",
      {
        contents: hello,
        tools: [{ functionDeclarations: [{ name: "f" }] }],
        toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["g"] } },
      },
      "toolConfig.functionCallingConfig.allowedFunctionNames[0]",
    ],
    ["generationConfig not an object", { contents: hello, generationConfig: 1 }, "generationConfig"],
    [
      "temperature > 2",
      { contents: hello, generationConfig: { temperature: 2.1 } },
      "generationConfig.temperature",
    ],
    [
      "temperature not a number",
      { contents: hello, generationConfig: { temperature: "hot" } },
      "generationConfig.temperature",
    ],
    ["topP > 1", { contents: hello, generationConfig: { topP: 1.5 } }, "generationConfig.topP"],
    ["topK negative", { contents: hello, generationConfig: { topK: -1 } }, "generationConfig.topK"],
    ["topK fractional", { contents: hello, generationConfig: { topK: 1.5 } }, "generationConfig.topK"],
    [
      "candidateCount 0",
      { contents: hello, generationConfig: { candidateCount: 0 } },
      "generationConfig.candidateCount",
    ],
    [
      // Past Gemini's 8; found by the endpoint fuzz (seed 1736407981, case 12613: 2^53, relayed).
      "candidateCount 9",
      { contents: hello, generationConfig: { candidateCount: 9 } },
      "generationConfig.candidateCount",
    ],
    [
      "maxOutputTokens 0",
      { contents: hello, generationConfig: { maxOutputTokens: 0 } },
      "generationConfig.maxOutputTokens",
    ],
    [
      "six stopSequences",
      { contents: hello, generationConfig: { stopSequences: ["1", "2", "3", "4", "5", "6"] } },
      "generationConfig.stopSequences",
    ],
    [
      "stopSequence not a string",
      { contents: hello, generationConfig: { stopSequences: [1] } },
      "generationConfig.stopSequences[0]",
    ],
    [
      "presencePenalty 2.0",
      { contents: hello, generationConfig: { presencePenalty: 2 } },
      "generationConfig.presencePenalty",
    ],
    [
      "frequencyPenalty < -2",
      { contents: hello, generationConfig: { frequencyPenalty: -2.5 } },
      "generationConfig.frequencyPenalty",
    ],
    ["seed fractional", { contents: hello, generationConfig: { seed: 1.5 } }, "generationConfig.seed"],
    [
      "responseSchema without a mime type",
      { contents: hello, generationConfig: { responseSchema: { type: "STRING" } } },
      "generationConfig.responseSchema",
    ],
    [
      "responseSchema with text/plain",
      {
        contents: hello,
        generationConfig: { responseMimeType: "text/plain", responseSchema: { type: "STRING" } },
      },
      "generationConfig.responseSchema",
    ],
    [
      "responseJsonSchema without application/json",
      {
        contents: hello,
        generationConfig: { responseMimeType: "text/x.enum", responseJsonSchema: { type: "string" } },
      },
      "generationConfig.responseJsonSchema",
    ],
    [
      "responseJsonSchema with responseSchema",
      {
        contents: hello,
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: {},
          responseSchema: { type: "STRING" },
        },
      },
      "generationConfig.responseJsonSchema",
    ],
    [
      "logprobs without responseLogprobs",
      { contents: hello, generationConfig: { logprobs: 3 } },
      "generationConfig.logprobs",
    ],
    [
      "logprobs 21",
      { contents: hello, generationConfig: { responseLogprobs: true, logprobs: 21 } },
      "generationConfig.logprobs",
    ],
    [
      "logprobs 0",
      { contents: hello, generationConfig: { responseLogprobs: true, logprobs: 0 } },
      "generationConfig.logprobs",
    ],
    [
      "budget and level together",
      {
        contents: hello,
        generationConfig: { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: "LOW" } },
      },
      "generationConfig.thinkingConfig",
    ],
    [
      "budget below -1",
      { contents: hello, generationConfig: { thinkingConfig: { thinkingBudget: -2 } } },
      "generationConfig.thinkingConfig.thinkingBudget",
    ],
    [
      "unknown level",
      { contents: hello, generationConfig: { thinkingConfig: { thinkingLevel: "EXTREME" } } },
      "generationConfig.thinkingConfig.thinkingLevel",
    ],
    [
      "includeThoughts not a boolean",
      { contents: hello, generationConfig: { thinkingConfig: { includeThoughts: "yes" } } },
      "generationConfig.thinkingConfig.includeThoughts",
    ],
  ];
  for (const [name, body, param] of cases) test(`${name} → 400 ${param}`, () => rejects(body, param));

  test("a missing path model is a 400", () => {
    assert.throws(
      () => gemini.decodeRequest({ contents: hello }, { headers: {} }),
      (error: unknown) => error instanceof GatewayError && error.status === 400,
    );
  });
});

describe("decodeRequest: wrongly typed tool schemas are a 400 naming the path (they were a 200)", () => {
  const declare = (declaration: Record<string, unknown>) => ({
    contents: hello,
    tools: [{ functionDeclarations: [{ name: "weather", ...declaration }] }],
  });
  const at = "tools[0].functionDeclarations[0]";

  test('parametersJsonSchema.properties.city: "{}" and an empty type list', () => {
    rejects(
      declare({ parametersJsonSchema: { type: "object", properties: { city: "{}" } } }),
      `${at}.parametersJsonSchema.properties.city`,
    );
    rejects(
      declare({ parametersJsonSchema: { type: "object", properties: { city: { type: [] } } } }),
      `${at}.parametersJsonSchema.properties.city.type`,
    );
  });

  test("parameters (Schema): a property that is not a Schema, a type list, a keyword copied as is", () => {
    rejects(
      declare({ parameters: { type: "OBJECT", properties: { city: "{}" } } }),
      `${at}.parameters.properties.city`,
    );
    rejects(
      declare({ parameters: { type: "OBJECT", properties: { city: { type: [] } } } }),
      `${at}.parameters.properties.city.type`,
    );
    rejects(declare({ parameters: { type: "OBJECT", not: "x" } }), `${at}.parameters.not`);
  });

  test("responseJsonSchema is checked the same way", () => {
    rejects(
      {
        contents: hello,
        generationConfig: {
          responseMimeType: "application/json",
          responseJsonSchema: { properties: { a: [] } },
        },
      },
      "generationConfig.responseJsonSchema.properties.a",
    );
  });

  test("a schema as Gemini CLI writes it still passes", () => {
    const schema = {
      type: "object",
      properties: {
        paths: { type: "array", items: { type: "string" }, minItems: 1 },
        when: { type: ["string", "null"] },
      },
      required: ["paths"],
    };
    assert.deepEqual(decode(declare({ parametersJsonSchema: schema })).tools[0].parameters, schema);
  });
});

// IR → Converse request bodies, field by field, as AWS's Converse API reference spells them.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GatewayError } from "../../../src/ir/errors.ts";
import type { Request } from "../../../src/ir/request.ts";
import { bedrockConverse } from "../../../src/protocols/bedrock-converse/index.ts";
import { withUnsent } from "../helpers.ts";
import { baseRequest, CLAUDE, NOVA } from "./helpers.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

function encode(overrides: Partial<Request>, model = NOVA, stream = false) {
  return withUnsent((unsent) =>
    bedrockConverse.encodeRequest(baseRequest(overrides), { model, stream }, unsent),
  );
}

function body(overrides: Partial<Request>, model = NOVA): Record<string, any> {
  return encode(overrides, model).body as Record<string, any>;
}

describe("Converse request encoding", () => {
  test("the model travels URL-encoded in the path; streaming picks converse-stream; no modelId in the body", () => {
    assert.equal(encode({}).path, "/model/us.amazon.nova-pro-v1%3A0/converse");
    assert.equal(encode({}, NOVA, true).path, "/model/us.amazon.nova-pro-v1%3A0/converse-stream");
    const arn = "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.meta.llama3-3-70b-instruct-v1:0";
    assert.equal(
      encode({}, arn).path,
      "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.meta.llama3-3-70b-instruct-v1%3A0/converse",
    );
    assert.deepEqual(body({}), { messages: [{ role: "user", content: [{ text: "Hello" }] }] });
  });

  test("system text, inferenceConfig (maxTokens, temperature, topP, stopSequences)", () => {
    const sent = body({
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "" },
      ],
      maxOutputTokens: 300,
      temperature: 0.4,
      topP: 0.9,
      stopSequences: ["END"],
    });
    assert.deepEqual(sent.system, [{ text: "Be brief." }]);
    assert.deepEqual(sent.inferenceConfig, {
      maxTokens: 300,
      temperature: 0.4,
      topP: 0.9,
      stopSequences: ["END"],
    });
  });

  test("images, documents and audio go as base64 bytes with their format; documents get a valid unique name", () => {
    const sent = body({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
            {
              type: "document",
              source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" },
              filename: "q3_report.v2.pdf",
            },
            {
              type: "document",
              source: { kind: "text", text: "plain", mediaType: "text/plain" },
              title: "Notes: draft",
            },
            {
              type: "document",
              source: { kind: "text", text: "again", mediaType: "text/plain" },
              title: "Notes: draft",
            },
            { type: "audio", source: { kind: "base64", mediaType: "audio/mpeg", data: "SUQz" } },
            { type: "image", source: { kind: "url", url: "s3://bucket/cat.jpeg" } },
          ],
        },
      ],
    });
    const [image, pdf, text, again, audio, s3] = sent.messages[0].content;
    assert.deepEqual(image, { image: { format: "png", source: { bytes: PNG } } });
    assert.deepEqual(pdf, {
      document: { name: "q3 report v2", format: "pdf", source: { bytes: "JVBERi0=" } },
    });
    assert.deepEqual(text, {
      document: {
        name: "Notes draft",
        format: "txt",
        source: { bytes: Buffer.from("plain").toString("base64") },
      },
    });
    assert.equal(again.document.name, "Notes draft (2)");
    assert.deepEqual(audio, { audio: { format: "mp3", source: { bytes: "SUQz" } } });
    assert.deepEqual(s3, {
      image: { format: "jpeg", source: { s3Location: { uri: "s3://bucket/cat.jpeg" } } },
    });
  });

  test("an S3 object's format comes from its key's extension, its aliases too (jpg, htm, markdown)", () => {
    const sent = body({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "url", url: "s3://bucket/photos/cat.JPG" } },
            { type: "document", source: { kind: "url", url: "s3://bucket/page.htm" } },
            { type: "document", source: { kind: "url", url: "s3://bucket/notes.markdown?versionId=3" } },
          ],
        },
      ],
    });
    const [image, page, notes] = sent.messages[0].content;
    assert.deepEqual(image, {
      image: { format: "jpeg", source: { s3Location: { uri: "s3://bucket/photos/cat.JPG" } } },
    });
    assert.equal(page.document.format, "html");
    assert.equal(notes.document.format, "md");
    assert.deepEqual(notes.document.source, {
      s3Location: { uri: "s3://bucket/notes.markdown?versionId=3" },
    });
  });

  test("an image by web URL or of an unknown type is a 400 about the prompt", () => {
    for (const source of [
      { kind: "url" as const, url: "https://example.com/cat.png" },
      { kind: "base64" as const, mediaType: "image/tiff", data: "AAAA" },
    ])
      assert.throws(
        () => body({ messages: [{ role: "user", content: [{ type: "image", source }] }] }),
        (error: GatewayError) => error.status === 400 && error.param === "(prompt)",
      );
  });

  test("tool definitions, calls and results are linked by id; tool choice maps to auto / any / tool", () => {
    const request: Partial<Request> = {
      tools: [
        {
          name: "get_weather",
          description: "Weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
        { name: "noop", parameters: {} },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
      messages: [
        { role: "user", content: [{ type: "text", text: "Paris?" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_call", id: "tooluse_1", name: "get_weather", arguments: '{"city":"Paris"}' },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolCallId: "tooluse_1",
              content: [{ type: "text", text: "sunny" }],
              isError: false,
            },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", toolCallId: "tooluse_2", content: [], isError: true }],
        },
      ],
    };
    const sent = body(request);
    assert.deepEqual(sent.toolConfig, {
      tools: [
        {
          toolSpec: {
            name: "get_weather",
            description: "Weather",
            inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } },
          },
        },
        { toolSpec: { name: "noop", inputSchema: { json: { type: "object" } } } },
      ],
      toolChoice: { tool: { name: "get_weather" } },
    });
    assert.deepEqual(sent.messages[1].content, [
      { toolUse: { toolUseId: "tooluse_1", name: "get_weather", input: { city: "Paris" } } },
    ]);
    // The two user turns are merged (Converse wants the roles to alternate).
    assert.equal(sent.messages.length, 3);
    assert.deepEqual(sent.messages[2].content, [
      { toolResult: { toolUseId: "tooluse_1", content: [{ text: "sunny" }], status: "success" } },
      { toolResult: { toolUseId: "tooluse_2", content: [{ text: "(empty)" }], status: "error" } },
    ]);
    assert.deepEqual(body({ ...request, toolChoice: { type: "required" } }).toolConfig.toolChoice, {
      any: {},
    });
    assert.deepEqual(body({ ...request, toolChoice: { type: "auto" } }).toolConfig.toolChoice, { auto: {} });
  });

  test("a tool result's error status goes only to Claude and Nova; to other families it is named dropped", () => {
    const messages: Request["messages"] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_call", id: "t1", name: "f", arguments: "{}" }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolCallId: "t1",
            content: [{ type: "text", text: "failed" }],
            isError: true,
          },
        ],
      },
    ];
    const llama = encode({ messages }, "meta.llama3-3-70b-instruct-v1:0");
    assert.deepEqual((llama.body as Record<string, any>).messages[2].content, [
      { toolResult: { toolUseId: "t1", content: [{ text: "failed" }] } },
    ]);
    assert.deepEqual(llama.dropped, ["tool_result.is_error"]);
    const claude = encode({ messages }, CLAUDE);
    assert.equal((claude.body as Record<string, any>).messages[2].content[0].toolResult.status, "error");
    assert.equal(claude.dropped, undefined);
  });

  test("tool choice none sends no tools, unless the history holds tool blocks (then Converse needs a toolConfig)", () => {
    const tools = [{ name: "f", parameters: { type: "object" } }];
    assert.equal(body({ tools, toolChoice: { type: "none" } }).toolConfig, undefined);
    const history: Partial<Request> = {
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool_call", id: "t1", name: "lookup", arguments: "{}" }] },
        {
          role: "user",
          content: [{ type: "tool_result", toolCallId: "t1", content: [{ type: "text", text: "x" }] }],
        },
      ],
    };
    assert.deepEqual(body({ ...history, tools, toolChoice: { type: "none" } }).toolConfig, {
      tools: [{ toolSpec: { name: "f", inputSchema: { json: { type: "object" } } } }],
    });
    // No tools from the client: the history's tools are defined for it.
    assert.deepEqual(body(history).toolConfig, {
      tools: [{ toolSpec: { name: "lookup", inputSchema: { json: { type: "object" } } } }],
    });
  });

  test("reasoning with its signature goes back as reasoningContent; unsigned reasoning is left out and named", () => {
    const call = encode(
      {
        messages: [
          { role: "user", content: [{ type: "text", text: "Q" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", text: "Because.", signature: "EqQBCkYIBxgCKkA" },
              { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix" },
              { type: "thinking", text: "from elsewhere" },
              { type: "text", text: "A" },
            ],
          },
          { role: "user", content: [{ type: "text", text: "Q2" }] },
        ],
      },
      CLAUDE,
    );
    const sent = call.body as Record<string, any>;
    assert.deepEqual(sent.messages[1].content, [
      { reasoningContent: { reasoningText: { text: "Because.", signature: "EqQBCkYIBxgCKkA" } } },
      { reasoningContent: { redactedContent: "EmwKAhgBEgy3va3pzix" } },
      { text: "A" },
    ]);
    assert.deepEqual(call.dropped, ["thinking"]);
  });

  test("cache markers become cachePoint blocks after what they mark (system, messages, tools), 1h kept", () => {
    const sent = body({
      system: [{ type: "text", text: "Long system prompt", cacheControl: { type: "ephemeral" } }],
      tools: [{ name: "f", parameters: { type: "object" }, cacheControl: { type: "ephemeral", ttl: "1h" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Doc", cacheControl: { type: "ephemeral" } },
            { type: "text", text: "Q" },
          ],
        },
      ],
    });
    assert.deepEqual(sent.system, [{ text: "Long system prompt" }, { cachePoint: { type: "default" } }]);
    assert.deepEqual(sent.toolConfig.tools[1], { cachePoint: { type: "default", ttl: "1h" } });
    assert.deepEqual(sent.messages[0].content, [
      { text: "Doc" },
      { cachePoint: { type: "default" } },
      { text: "Q" },
    ]);
  });

  test("Claude: thinking and top_k in additionalModelRequestFields; sampling Claude refuses while thinking is left out", () => {
    const call = encode(
      {
        reasoning: { budgetTokens: 2048 },
        maxOutputTokens: 8000,
        temperature: 0.5,
        topP: 0.5,
        topK: 40,
        stopSequences: ["X"],
      },
      CLAUDE,
    );
    const sent = call.body as Record<string, any>;
    assert.deepEqual(sent.additionalModelRequestFields, {
      thinking: { type: "enabled", budget_tokens: 2048 },
    });
    assert.deepEqual(sent.inferenceConfig, { maxTokens: 8000, stopSequences: ["X"] });
    assert.deepEqual(sent.additionalModelResponseFieldPaths, ["/stop_sequence"]);
    assert.deepEqual(call.dropped, ["temperature", "top_p", "top_k"]);
    const plain = body({ topK: 40, temperature: 1.5 }, CLAUDE);
    assert.deepEqual(plain.additionalModelRequestFields, { top_k: 40 });
    assert.equal(plain.inferenceConfig.temperature, 1);
  });

  test("Nova and gpt-oss take their own reasoning fields; other families name reasoning and top_k dropped", () => {
    assert.deepEqual(body({ reasoning: { effort: "high" }, topK: 20 }).additionalModelRequestFields, {
      reasoningConfig: { type: "enabled", maxReasoningEffort: "high" },
      inferenceConfig: { topK: 20 },
    });
    assert.deepEqual(
      body({ reasoning: { effort: "low" } }, "openai.gpt-oss-120b-1:0").additionalModelRequestFields,
      {
        reasoning_effort: "low",
      },
    );
    const llama = encode(
      { reasoning: { effort: "low" }, topK: 5, seed: 1, frequencyPenalty: 0.2 },
      "meta.llama3-3-70b-instruct-v1:0",
    );
    assert.equal((llama.body as Record<string, any>).additionalModelRequestFields, undefined);
    assert.deepEqual(llama.dropped, ["top_k", "frequency_penalty", "seed", "reasoning"]);
  });

  test("a JSON answer format becomes outputConfig.textFormat with the schema as a string", () => {
    const schema = { type: "object", properties: { a: { type: "number" } }, required: ["a"] };
    assert.deepEqual(
      body({ responseFormat: { type: "json_schema", schema, name: "answer", description: "The answer" } })
        .outputConfig,
      {
        textFormat: {
          type: "json_schema",
          structure: {
            jsonSchema: { schema: JSON.stringify(schema), name: "answer", description: "The answer" },
          },
        },
      },
    );
  });

  test("CountTokens: the prompt under input.converse, at /count-tokens", () => {
    const call = bedrockConverse.countTokens.encodeCountRequest(
      baseRequest({ system: [{ type: "text", text: "S" }] }),
      { model: CLAUDE },
    );
    assert.equal(call.path, "/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens");
    assert.deepEqual(call.body, {
      input: {
        converse: { system: [{ text: "S" }], messages: [{ role: "user", content: [{ text: "Hello" }] }] },
      },
    });
    assert.equal(bedrockConverse.countTokens.decodeCount({ inputTokens: 17 }), 17);
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { packToolCallId } from "../../../src/ir/tool-call-id.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { VERSION_HEADERS } from "./helpers.ts";

const base = {
  model: "anthropic/claude-sonnet-4-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Hi" }],
};

function decode(body: Record<string, unknown>) {
  return anthropic.decodeRequest(body, { headers: VERSION_HEADERS });
}

function param400(body: unknown): string | undefined {
  try {
    anthropic.decodeRequest(body, { headers: VERSION_HEADERS });
  } catch (error) {
    assert.ok(error instanceof GatewayError, `not a GatewayError: ${error}`);
    assert.equal(error.status, 400);
    return error.param;
  }
  assert.fail("expected a 400");
}

const png = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" };

describe("decodeRequest: top-level fields", () => {
  test("a minimal request", () => {
    const req = decode(base);
    assert.equal(req.model, "anthropic/claude-sonnet-4-5");
    assert.equal(req.maxOutputTokens, 1024);
    assert.deepEqual(req.messages, [{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
    assert.deepEqual(req.system, []);
    assert.equal(req.stream, false);
    assert.equal(req.streamUsage, true);
    assert.deepEqual(req.ignored, []);
  });

  test("sampling, stop sequences and stream", () => {
    const req = decode({
      ...base,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["END"],
      stream: true,
    });
    assert.equal(req.temperature, 0.2);
    assert.equal(req.topP, 0.9);
    assert.equal(req.topK, 40);
    assert.deepEqual(req.stopSequences, ["END"]);
    assert.equal(req.stream, true);
  });

  test("system as a string and as blocks with cache_control", () => {
    assert.deepEqual(decode({ ...base, system: "Be brief." }).system, [{ type: "text", text: "Be brief." }]);
    const req = decode({
      ...base,
      system: [
        { type: "text", text: "A" },
        { type: "text", text: "B", cache_control: { type: "ephemeral", ttl: "1h" } },
      ],
    });
    assert.deepEqual(req.system, [
      { type: "text", text: "A" },
      { type: "text", text: "B", cacheControl: { type: "ephemeral", ttl: "1h" } },
    ]);
  });

  test("consecutive same-role messages are merged", () => {
    const req = decode({
      ...base,
      messages: [
        { role: "user", content: "one" },
        { role: "user", content: [{ type: "text", text: "two" }] },
        { role: "assistant", content: "three" },
      ],
    });
    assert.equal(req.messages.length, 2);
    assert.deepEqual(
      req.messages[0].content.map((b) => (b.type === "text" ? b.text : "")),
      ["one", "two"],
    );
  });

  test("metadata (unsupported) is checked and dropped, never the user; it and other untranslated fields are named as ignored", () => {
    const req = decode({
      ...base,
      metadata: { user_id: "user-42" },
      service_tier: "auto",
      context_management: { edits: [] },
      container: "container_1",
      mcp_servers: [],
    });
    assert.equal(req.user, undefined);
    assert.deepEqual(req.ignored.sort(), [
      "container",
      "context_management",
      "mcp_servers",
      "metadata",
      "service_tier",
    ]);
  });

  test("the web search tool is the IR's webSearch; other server tools are dropped and named; custom tools kept", () => {
    const req = decode({
      ...base,
      tools: [
        { type: "web_search_20250305", name: "web_search", max_uses: 5 },
        {
          name: "get_weather",
          description: "Weather",
          input_schema: { type: "object", properties: { city: { type: "string" } } },
          cache_control: { type: "ephemeral" },
        },
        { type: "bash_20250124", name: "bash" },
        { type: "text_editor_20250728", name: "str_replace_based_edit_tool" },
        { type: "custom", name: "noop", input_schema: { type: "object" } },
      ],
    });
    assert.deepEqual(
      req.tools.map((t) => t.name),
      ["get_weather", "noop"],
    );
    assert.deepEqual(req.tools[0], {
      name: "get_weather",
      description: "Weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      cacheControl: { type: "ephemeral" },
    });
    assert.deepEqual(req.ignored, ["tools[2]", "tools[3]"]);
    assert.deepEqual(req.webSearch, { maxUses: 5 });
  });

  test("tool_choice variants and disable_parallel_tool_use", () => {
    assert.deepEqual(decode({ ...base, tool_choice: { type: "auto" } }).toolChoice, { type: "auto" });
    assert.deepEqual(decode({ ...base, tool_choice: { type: "any" } }).toolChoice, { type: "required" });
    assert.deepEqual(decode({ ...base, tool_choice: { type: "none" } }).toolChoice, { type: "none" });
    const req = decode({
      ...base,
      tool_choice: { type: "tool", name: "f", disable_parallel_tool_use: true },
    });
    assert.deepEqual(req.toolChoice, { type: "tool", name: "f" });
    assert.equal(req.parallelToolCalls, false);
    assert.equal(decode({ ...base, tool_choice: { type: "auto" } }).parallelToolCalls, undefined);
  });

  test("thinking enabled / disabled / adaptive, and output_config effort and format", () => {
    assert.deepEqual(
      decode({ ...base, thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 2048 }).reasoning,
      {
        enabled: true,
        budgetTokens: 1024,
      },
    );
    assert.deepEqual(decode({ ...base, thinking: { type: "disabled" } }).reasoning, { enabled: false });
    assert.deepEqual(
      decode({ ...base, thinking: { type: "adaptive" }, output_config: { effort: "max" } }).reasoning,
      {
        enabled: true,
        adaptive: true,
        effort: "xhigh",
      },
    );
    assert.deepEqual(decode({ ...base, output_config: { effort: "low" } }).reasoning, { effort: "low" });
    const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    assert.deepEqual(
      decode({ ...base, output_config: { format: { type: "json_schema", schema } } }).responseFormat,
      {
        type: "json_schema",
        schema,
      },
    );
  });
});

describe("decodeRequest: content blocks", () => {
  test("text with cache_control and citations, images, documents", () => {
    const citation = {
      type: "char_location",
      cited_text: "x",
      document_index: 0,
      document_title: "T",
      start_char_index: 0,
      end_char_index: 1,
    };
    const req = decode({
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "t", cache_control: { type: "ephemeral" }, citations: [citation] },
            { type: "image", source: png },
            { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
            {
              type: "document",
              source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" },
              title: "Doc",
            },
            {
              type: "document",
              source: { type: "text", media_type: "text/plain", data: "plain" },
              context: "ctx",
              citations: { enabled: true },
            },
            {
              type: "document",
              source: {
                type: "content",
                content: [
                  { type: "text", text: "a" },
                  { type: "text", text: "b" },
                ],
              },
            },
            { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
          ],
        },
      ],
    });
    const blocks = req.messages[0].content;
    assert.deepEqual(blocks[0], {
      type: "text",
      text: "t",
      cacheControl: { type: "ephemeral" },
      citations: [citation],
    });
    assert.deepEqual(blocks[1], {
      type: "image",
      source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" },
    });
    assert.deepEqual(blocks[2], { type: "image", source: { kind: "url", url: "https://example.com/a.jpg" } });
    assert.deepEqual(blocks[3], {
      type: "document",
      source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" },
      title: "Doc",
    });
    assert.deepEqual(blocks[4], {
      type: "document",
      source: { kind: "text", mediaType: "text/plain", text: "plain" },
      context: "ctx",
      citations: true,
    });
    assert.deepEqual(blocks[5], {
      type: "document",
      source: { kind: "text", mediaType: "text/plain", text: "a\n\nb" },
    });
    assert.deepEqual(blocks[6], {
      type: "document",
      source: { kind: "url", url: "https://example.com/a.pdf", mediaType: "application/pdf" },
    });
  });

  test("file sources (Files API) are read alike for images and documents; another source type is a 400", () => {
    const file = { type: "file", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" };
    const req = decode({
      ...base,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: file },
            { type: "document", source: file },
          ],
        },
      ],
    });
    const fileSource = { kind: "file", fileId: "file_011CNha8iCJcU1wXNR6q4V8w" };
    assert.deepEqual(req.messages[0].content, [
      { type: "image", source: fileSource },
      { type: "document", source: fileSource },
    ]);
    const docOf = (source: unknown) => ({
      ...base,
      messages: [{ role: "user", content: [{ type: "document", source }] }],
    });
    assert.throws(() => decode(docOf({ type: "ftp" })), { param: "messages[0].content[0].source.type" });
    assert.throws(() => decode(docOf({ type: "file" })), { param: "messages[0].content[0].source.file_id" });
  });

  test("tool_use and tool_result: the signature packed in our id comes back on the IR call; results get the bare id", () => {
    const packed = packToolCallId("call_abc", "gemini-signature==");
    const req = decode({
      ...base,
      messages: [
        { role: "user", content: "weather?" },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: packed, name: "get_weather", input: { city: "Paris" } }],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: packed, content: "18C", is_error: false },
            {
              type: "tool_result",
              tool_use_id: "toolu_2",
              content: [
                { type: "text", text: "ok" },
                { type: "image", source: png },
              ],
            },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1].content[0], {
      type: "tool_call",
      id: "call_abc",
      name: "get_weather",
      arguments: '{"city":"Paris"}',
      signature: "gemini-signature==",
    });
    assert.deepEqual(req.messages[2].content[0], {
      type: "tool_result",
      toolCallId: "call_abc",
      content: [{ type: "text", text: "18C" }],
      isError: false,
    });
    const second = req.messages[2].content[1];
    assert.equal(second.type, "tool_result");
    assert.equal(second.type === "tool_result" && second.content.length, 2);
  });

  test("thinking with empty text and a signature is kept; redacted thinking too", () => {
    const req = decode({
      ...base,
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "", signature: "sig-abc" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "a" },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1].content.slice(0, 2), [
      { type: "thinking", text: "", signature: "sig-abc" },
      { type: "redacted_thinking", data: "opaque" },
    ]);
  });

  test("server-tool history blocks are dropped and named; search_result becomes a titled document", () => {
    const req = decode({
      ...base,
      messages: [
        { role: "user", content: "q" },
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
            { type: "text", text: "answer" },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "search_result",
              source: "https://kb.example/1",
              title: "KB",
              content: [{ type: "text", text: "fact" }],
              citations: { enabled: true },
            },
          ],
        },
      ],
    });
    assert.deepEqual(req.messages[1].content, [{ type: "text", text: "answer" }]);
    assert.deepEqual(req.ignored, ["messages[1].content[0]", "messages[1].content[1]"]);
    assert.deepEqual(req.messages[2].content[0], {
      type: "document",
      source: { kind: "text", mediaType: "text/plain", text: "fact" },
      title: "KB",
      context: "Source: https://kb.example/1",
      citations: true,
    });
  });
});

describe("decodeRequest: each bad field is a 400 naming it", () => {
  const cases: Array<[string, unknown, string]> = [
    ["body not an object", [], "body"],
    ["model missing", { ...base, model: undefined }, "model"],
    ["model not a string", { ...base, model: 3 }, "model"],
    ["max_tokens missing", { ...base, max_tokens: undefined }, "max_tokens"],
    ["max_tokens zero", { ...base, max_tokens: 0 }, "max_tokens"],
    ["max_tokens fractional", { ...base, max_tokens: 10.5 }, "max_tokens"],
    ["messages missing", { ...base, messages: undefined }, "messages"],
    ["messages not an array", { ...base, messages: "hi" }, "messages"],
    ["messages empty", { ...base, messages: [] }, "messages"],
    ["bad role", { ...base, messages: [{ role: "tool", content: "x" }] }, "messages[0].role"],
    ["content missing", { ...base, messages: [{ role: "user" }] }, "messages[0].content"],
    ["content a number", { ...base, messages: [{ role: "user", content: 5 }] }, "messages[0].content"],
    [
      "unknown block type",
      { ...base, messages: [{ role: "user", content: [{ type: "video" }] }] },
      "messages[0].content[0].type",
    ],
    [
      "text not a string",
      { ...base, messages: [{ role: "user", content: [{ type: "text", text: 1 }] }] },
      "messages[0].content[0].text",
    ],
    [
      "image media type",
      {
        ...base,
        messages: [
          { role: "user", content: [{ type: "image", source: { ...png, media_type: "image/bmp" } }] },
        ],
      },
      "messages[0].content[0].source.media_type",
    ],
    [
      "image source type",
      { ...base, messages: [{ role: "user", content: [{ type: "image", source: { type: "ftp" } }] }] },
      "messages[0].content[0].source.type",
    ],
    [
      "document base64 not pdf",
      {
        ...base,
        messages: [
          {
            role: "user",
            content: [{ type: "document", source: { type: "base64", media_type: "text/html", data: "x" } }],
          },
        ],
      },
      "messages[0].content[0].source.media_type",
    ],
    [
      "cache_control type",
      {
        ...base,
        messages: [
          { role: "user", content: [{ type: "text", text: "x", cache_control: { type: "forever" } }] },
        ],
      },
      "messages[0].content[0].cache_control.type",
    ],
    [
      "cache_control ttl",
      {
        ...base,
        messages: [
          {
            role: "user",
            content: [{ type: "text", text: "x", cache_control: { type: "ephemeral", ttl: "2h" } }],
          },
        ],
      },
      "messages[0].content[0].cache_control.ttl",
    ],
    [
      "tool_use input not an object",
      {
        ...base,
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: "{}" }] },
        ],
      },
      "messages[1].content[0].input",
    ],
    [
      "tool_use in a user message",
      {
        ...base,
        messages: [{ role: "user", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] }],
      },
      "messages[0].content[0].type",
    ],
    [
      "tool_result id missing",
      { ...base, messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] },
      "messages[0].content[0].tool_use_id",
    ],
    [
      "tool_result is_error not boolean",
      {
        ...base,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", is_error: "yes" }] }],
      },
      "messages[0].content[0].is_error",
    ],
    [
      "thinking text missing",
      {
        ...base,
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: [{ type: "thinking", signature: "s" }] },
        ],
      },
      "messages[1].content[0].thinking",
    ],
    ["system not text", { ...base, system: [{ type: "image", source: png }] }, "system[0].type"],
    ["system a number", { ...base, system: 3 }, "system"],
    ["temperature above 1", { ...base, temperature: 1.5 }, "temperature"],
    ["temperature a string", { ...base, temperature: "hot" }, "temperature"],
    ["top_p negative", { ...base, top_p: -0.1 }, "top_p"],
    ["top_k negative", { ...base, top_k: -1 }, "top_k"],
    ["stop_sequences not strings", { ...base, stop_sequences: ["a", 2] }, "stop_sequences[1]"],
    ["stream not boolean", { ...base, stream: "yes" }, "stream"],
    ["tools not an array", { ...base, tools: {} }, "tools"],
    [
      "tool name too long",
      { ...base, tools: [{ name: "x".repeat(129), input_schema: { type: "object" } }] },
      "tools[0].name",
    ],
    ["tool schema missing", { ...base, tools: [{ name: "f" }] }, "tools[0].input_schema"],
    [
      "tool schema not object type",
      { ...base, tools: [{ name: "f", input_schema: { type: "array" } }] },
      "tools[0].input_schema.type",
    ],
    ["tool_choice type", { ...base, tool_choice: { type: "sometimes" } }, "tool_choice.type"],
    ["tool_choice tool without name", { ...base, tool_choice: { type: "tool" } }, "tool_choice.name"],
    [
      "tool_choice disable_parallel not boolean",
      { ...base, tool_choice: { type: "auto", disable_parallel_tool_use: 1 } },
      "tool_choice.disable_parallel_tool_use",
    ],
    ["thinking type", { ...base, thinking: { type: "maybe" } }, "thinking.type"],
    [
      "budget below 1024",
      { ...base, thinking: { type: "enabled", budget_tokens: 1000 } },
      "thinking.budget_tokens",
    ],
    [
      "budget not below max_tokens",
      { ...base, thinking: { type: "enabled", budget_tokens: 1024 } },
      "thinking.budget_tokens",
    ],
    [
      "budget missing",
      { ...base, max_tokens: 4096, thinking: { type: "enabled" } },
      "thinking.budget_tokens",
    ],
    ["effort", { ...base, output_config: { effort: "extreme" } }, "output_config.effort"],
    [
      "format type",
      { ...base, output_config: { format: { type: "json_object" } } },
      "output_config.format.type",
    ],
    [
      "format schema",
      { ...base, output_config: { format: { type: "json_schema" } } },
      "output_config.format.schema",
    ],
    ["metadata not an object", { ...base, metadata: "m" }, "metadata"],
    ["metadata.user_id not a string", { ...base, metadata: { user_id: 7 } }, "metadata.user_id"],
  ];
  for (const [name, body, param] of cases)
    test(name, () => {
      assert.equal(param400(body), param);
    });

  test("more than 100000 messages", () => {
    const messages = Array.from({ length: 100_001 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: "x",
    }));
    assert.equal(param400({ ...base, messages }), "messages");
  });
});

describe("decodeRequest: wrongly typed tool schemas are a 400 naming the path (they were a 200)", () => {
  const tool = (schema: Record<string, unknown>) => ({ name: "weather", input_schema: schema });

  test("input_schema.properties.city.type: [] (an empty type list)", () => {
    const body = { ...base, tools: [tool({ type: "object", properties: { city: { type: [] } } })] };
    assert.equal(param400(body), "tools[0].input_schema.properties.city.type");
  });

  test("a property that is not a schema, in a tool or an output format", () => {
    const body = { ...base, tools: [tool({ type: "object", properties: { city: "{}" } })] };
    assert.equal(param400(body), "tools[0].input_schema.properties.city");
    const format = { type: "json_schema", schema: { type: "object", properties: { a: 1 } } };
    assert.equal(
      param400({ ...base, output_config: { format } }),
      "output_config.format.schema.properties.a",
    );
  });

  test("a schema as Claude Code writes it still passes: type arrays, $ref/$defs, anyOf, const", () => {
    const schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        city: { type: ["string", "null"] },
        place: { $ref: "#/$defs/place" },
        mode: { anyOf: [{ const: "fast" }, { type: "number" }] },
      },
      $defs: { place: { type: "object", properties: { lat: { type: "number" } } } },
      additionalProperties: false,
    };
    assert.deepEqual(decode({ ...base, tools: [tool(schema)] }).tools[0].parameters, schema);
  });
});

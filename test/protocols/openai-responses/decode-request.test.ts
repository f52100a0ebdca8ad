import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { packToolCallId } from "../../../src/ir/tool-call-id.ts";
import { decode } from "./helpers.ts";

function rejects(body: unknown, param: string, message: RegExp): void {
  assert.throws(
    () => decode(body),
    (err: unknown) =>
      err instanceof GatewayError && err.status === 400 && err.param === param && message.test(err.message),
  );
}

describe("input", () => {
  test("a string is one user turn; instructions are the system text", () => {
    const r = decode({ model: "m", instructions: "Be brief.", input: "Hello" });
    assert.deepEqual(r.system, [{ type: "text", text: "Be brief." }]);
    assert.deepEqual(r.messages, [{ role: "user", content: [{ type: "text", text: "Hello" }] }]);
    assert.equal(r.stream, false);
    assert.deepEqual(r.ignored, []);
  });

  test("messages of every role, typed and untyped, with string and part content", () => {
    const r = decode({
      model: "m",
      input: [
        { role: "developer", content: "Use tools." },
        { type: "message", role: "system", content: [{ type: "input_text", text: "Be exact." }] },
        { role: "user", content: [{ type: "input_text", text: "Q1" }] },
        {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text: "A1", annotations: [] }],
        },
        { role: "assistant", content: [{ type: "refusal", refusal: "No." }] },
        { role: "user", content: "Q2" },
      ],
    });
    assert.deepEqual(r.system, [
      { type: "text", text: "Use tools." },
      { type: "text", text: "Be exact." },
    ]);
    assert.deepEqual(r.messages, [
      { role: "user", content: [{ type: "text", text: "Q1" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "A1" },
          { type: "text", text: "No." },
        ],
      },
      { role: "user", content: [{ type: "text", text: "Q2" }] },
    ]);
  });

  test("images and files: data URLs, URLs and file ids", () => {
    const r = decode({
      model: "m",
      input: [
        {
          role: "user",
          content: [
            { type: "input_image", image_url: "data:image/png;base64,iVBOR", detail: "low" },
            { type: "input_image", image_url: "https://x.test/a.png", detail: "original" },
            { type: "input_image", file_id: "file-img", detail: "auto" },
            { type: "input_file", file_data: "data:application/pdf;base64,JVBERg==", filename: "a.pdf" },
            { type: "input_file", file_id: "file-doc" },
            { type: "input_file", file_url: "https://x.test/b.pdf" },
          ],
        },
      ],
    });
    assert.deepEqual(r.messages[0].content, [
      { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" }, detail: "low" },
      { type: "image", source: { kind: "url", url: "https://x.test/a.png" }, detail: "high" },
      { type: "image", source: { kind: "file", fileId: "file-img" } },
      {
        type: "document",
        source: { kind: "base64", mediaType: "application/pdf", data: "JVBERg==" },
        filename: "a.pdf",
      },
      { type: "document", source: { kind: "file", fileId: "file-doc" } },
      { type: "document", source: { kind: "url", url: "https://x.test/b.pdf" } },
    ]);
  });

  test("a function-call round trip: calls join the assistant turn, outputs a user turn with the name", () => {
    const packed = packToolCallId("call_1", "gemini-sig");
    const r = decode({
      model: "m",
      input: [
        { role: "user", content: "Weather?" },
        {
          type: "function_call",
          call_id: packed,
          name: "get_weather",
          arguments: '{"city":"Paris"}',
          id: "fc_1",
        },
        { type: "function_call", call_id: "call_2", name: "get_time", arguments: "" },
        { type: "function_call_output", call_id: packed, output: "sunny" },
        { type: "function_call_output", call_id: "call_2", output: [{ type: "input_text", text: "noon" }] },
      ],
    });
    assert.deepEqual(r.messages, [
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      {
        role: "assistant",
        content: [
          // The Gemini signature that rode inside the id is restored on the call.
          {
            type: "tool_call",
            id: "call_1",
            name: "get_weather",
            arguments: '{"city":"Paris"}',
            signature: "gemini-sig",
          },
          { type: "tool_call", id: "call_2", name: "get_time", arguments: "" },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolCallId: "call_1",
            name: "get_weather",
            content: [{ type: "text", text: "sunny" }],
          },
          {
            type: "tool_result",
            toolCallId: "call_2",
            name: "get_time",
            content: [{ type: "text", text: "noon" }],
          },
        ],
      },
    ]);
  });

  test("reasoning items: encrypted_content is the signature, redacted thinking comes back as such", () => {
    const r = decode({
      model: "m",
      input: [
        { role: "user", content: "Hi" },
        {
          type: "reasoning",
          id: "rs_1",
          summary: [{ type: "summary_text", text: "Thinking it over." }],
          encrypted_content: "EqQBCkYIBxgC",
        },
        // Signed, with no text: kept (a gateway that dropped such blocks lost replayed reasoning).
        { type: "reasoning", summary: [], encrypted_content: "gAAAAABo" },
        { type: "reasoning", summary: [], encrypted_content: "redacted_thinking:opaque-bytes" },
        // Neither text nor signature: nothing to keep.
        { type: "reasoning", summary: [] },
        { type: "reasoning", summary: [], content: [{ type: "reasoning_text", text: "raw thoughts" }] },
        { role: "assistant", content: "Hello." },
      ],
    });
    assert.deepEqual(r.messages[1], {
      role: "assistant",
      content: [
        { type: "thinking", text: "Thinking it over.", signature: "EqQBCkYIBxgC" },
        { type: "thinking", text: "", signature: "gAAAAABo" },
        { type: "redacted_thinking", data: "opaque-bytes" },
        { type: "thinking", text: "raw thoughts" },
        { type: "text", text: "Hello." },
      ],
    });
  });

  test("custom tool calls carry their free text as the `input` member of the arguments", () => {
    const r = decode({
      model: "m",
      tools: [{ type: "custom", name: "apply_patch", description: "Patch files." }],
      input: [
        { role: "user", content: "Fix it" },
        { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: "*** Begin Patch" },
        { type: "custom_tool_call_output", call_id: "call_p", output: "Done" },
      ],
    });
    assert.deepEqual(r.messages[1].content, [
      { type: "tool_call", id: "call_p", name: "apply_patch", arguments: '{"input":"*** Begin Patch"}' },
    ]);
    assert.deepEqual(r.messages[2].content, [
      {
        type: "tool_result",
        toolCallId: "call_p",
        name: "apply_patch",
        content: [{ type: "text", text: "Done" }],
      },
    ]);
    assert.deepEqual(r.tools, [
      {
        name: "apply_patch",
        description: "Patch files.",
        parameters: {
          type: "object",
          properties: { input: { type: "string" } },
          required: ["input"],
          additionalProperties: false,
        },
        custom: {},
      },
    ]);
  });

  test("items of hosted tools are dropped and named, never refused", () => {
    const r = decode({
      model: "m",
      input: [
        { role: "user", content: "Search" },
        { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "q" } },
        { type: "web_search_call", id: "ws_2", status: "completed", action: { type: "search", query: "r" } },
        { type: "compaction", encrypted_content: "x" },
      ],
    });
    assert.deepEqual(r.ignored, ["input[].web_search_call", "input[].compaction"]);
    assert.equal(r.messages.length, 1);
  });
});

describe("what the decoder does not serve is a 400 naming it; memory is resolved before it", () => {
  test("conversation, background, an unresolved item_reference, a previous_response_id not a string", () => {
    rejects({ model: "m", input: "x", conversation: "conv_1" }, "conversation", /not served/);
    rejects({ model: "m", input: "x", background: true }, "background", /stream the response instead/);
    rejects(
      { model: "m", input: [{ type: "item_reference", id: "msg_1" }] },
      "input[0]",
      /no stored item to refer to/,
    );
    rejects({ model: "m", input: "x", previous_response_id: 7 }, "previous_response_id", /string/);
  });

  test("store is checked, never named as ignored", () => {
    assert.deepEqual(decode({ model: "m", input: "x", store: true }).ignored, []);
    rejects({ model: "m", input: "x", store: "yes" }, "store", /boolean/);
  });

  test("null previous_response_id and background false are fine (SDKs send them)", () => {
    assert.equal(
      decode({ model: "m", input: "x", previous_response_id: null, background: false }).model,
      "m",
    );
  });
});

describe("tools and tool choice", () => {
  test("function tools cross; web_search is carried, other hosted tools dropped and named; a namespace's tools are flattened", () => {
    const r = decode({
      model: "m",
      input: "x",
      tools: [
        {
          type: "function",
          name: "shell",
          description: "Run",
          parameters: { type: "object" },
          strict: false,
        },
        { type: "function", name: "noop", parameters: null, strict: null },
        {
          type: "namespace",
          name: "mcp",
          description: "MCP",
          tools: [
            { type: "function", name: "read", parameters: { type: "object" } },
            { type: "custom", name: "patch" },
            { type: "file_search" },
          ],
        },
        { type: "web_search" },
        { type: "web_search" },
      ],
      tool_choice: "auto",
      parallel_tool_calls: false,
    });
    assert.deepEqual(r.tools, [
      { name: "shell", description: "Run", parameters: { type: "object" } },
      { name: "noop", parameters: { type: "object", properties: {} } },
      {
        name: "mcp__read",
        parameters: { type: "object" },
        namespace: { group: "mcp", tool: "read", description: "MCP" },
      },
      {
        name: "mcp__patch",
        parameters: {
          type: "object",
          properties: { input: { type: "string" } },
          required: ["input"],
          additionalProperties: false,
        },
        custom: {},
        namespace: { group: "mcp", tool: "patch", description: "MCP" },
      },
    ]);
    assert.deepEqual(r.toolChoice, { type: "auto" });
    assert.equal(r.parallelToolCalls, false);
    assert.deepEqual(r.ignored, ["tools[].file_search"]);
    assert.deepEqual(r.webSearch, {});
  });

  test("a call of a namespace's tool is known by its flattened name", () => {
    const r = decode({
      model: "m",
      input: [
        { type: "function_call", call_id: "c1", name: "read", namespace: "mcp", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "ok" },
      ],
    });
    assert.equal((r.messages[0].content[0] as any).name, "mcp__read");
    assert.equal((r.messages[1].content[0] as any).name, "mcp__read");
  });

  test("tool_choice forms", () => {
    const choice = (tool_choice: unknown) => decode({ model: "m", input: "x", tool_choice });
    assert.deepEqual(choice("required").toolChoice, { type: "required" });
    assert.deepEqual(choice({ type: "function", name: "f" }).toolChoice, { type: "tool", name: "f" });
    assert.deepEqual(choice({ type: "custom", name: "p" }).toolChoice, { type: "tool", name: "p" });
    const allowed = choice({
      type: "allowed_tools",
      mode: "required",
      tools: [{ type: "function", name: "f" }],
    });
    assert.deepEqual(allowed.toolChoice, { type: "required" });
    assert.deepEqual(allowed.ignored, ["tool_choice.tools"]);
    const hosted = choice({ type: "web_search_preview" });
    assert.equal(hosted.toolChoice, undefined);
    assert.deepEqual(hosted.ignored, ["tool_choice"]);
  });
});

describe("settings", () => {
  test("sampling, limits, output format and reasoning", () => {
    const r = decode({
      model: "m",
      input: "x",
      stream: true,
      max_output_tokens: 500,
      temperature: 0.3,
      top_p: 0.9,
      text: {
        format: {
          type: "json_schema",
          name: "w",
          schema: { type: "object" },
          strict: true,
          description: "d",
        },
      },
      reasoning: { effort: "high", summary: "auto" },
      safety_identifier: "user-42",
    });
    assert.equal(r.stream, true);
    assert.equal(r.streamUsage, true, "the Responses API always reports usage");
    assert.equal(r.maxOutputTokens, 500);
    assert.equal(r.temperature, 0.3);
    assert.equal(r.topP, 0.9);
    assert.deepEqual(r.responseFormat, {
      type: "json_schema",
      name: "w",
      schema: { type: "object" },
      strict: true,
      description: "d",
    });
    assert.deepEqual(r.reasoning, { effort: "high" });
    assert.equal(r.user, "user-42");
    assert.deepEqual(r.ignored, []);
  });

  test("reasoning effort none switches reasoning off; max is the highest IR effort", () => {
    assert.deepEqual(decode({ model: "m", input: "x", reasoning: { effort: "none" } }).reasoning, {
      effort: "none",
      enabled: false,
    });
    assert.deepEqual(decode({ model: "m", input: "x", reasoning: { effort: "max" } }).reasoning, {
      effort: "xhigh",
    });
    assert.equal(decode({ model: "m", input: "x", reasoning: { summary: "auto" } }).reasoning, undefined);
  });

  test("what a translation cannot carry is named", () => {
    const r = decode({
      model: "m",
      input: "x",
      metadata: { session: "s1" },
      store: true,
      truncation: "auto",
      prompt_cache_key: "k",
      service_tier: "flex",
      text: { verbosity: "low" },
      top_logprobs: 2,
      include: ["reasoning.encrypted_content"],
      stream_options: { include_obfuscation: false },
      client_metadata: { anything: true },
    });
    assert.deepEqual(r.ignored, [
      "top_logprobs",
      "text.verbosity",
      "metadata",
      "prompt_cache_key",
      "service_tier",
    ]);
  });

  test("store false, empty metadata and truncation disabled ask for nothing", () => {
    assert.deepEqual(
      decode({ model: "m", input: "x", store: false, metadata: {}, truncation: "disabled" }).ignored,
      [],
    );
  });

  test("bad values are 400s naming the field", () => {
    rejects({ input: "x" }, "model", /must be a string/);
    rejects({ model: "m" }, "input", /is required/);
    rejects({ model: "m", input: "x", temperature: 3 }, "temperature", /<= 2/);
    rejects({ model: "m", input: "x", max_output_tokens: 0 }, "max_output_tokens", />= 1/);
    rejects({ model: "m", input: "x", reasoning: { effort: "huge" } }, "reasoning.effort", /must be one of/);
    rejects(
      { model: "m", input: "x", text: { format: { type: "xml" } } },
      "text.format.type",
      /must be one of/,
    );
    rejects({ model: "m", input: [{ role: "robot", content: "x" }] }, "input[0].role", /must be one of/);
    rejects(
      { model: "m", input: [{ role: "user", content: [{ type: "video" }] }] },
      "input[0].content[0].type",
      /must be one of/,
    );
    rejects({ model: "m", input: [{ content: "x" }] }, "input[0].type", /is required/);
  });
});

describe("Codex CLI's request", () => {
  test("decodes whole: developer and user messages, function and namespace tools kept, web_search named", () => {
    const r = decode({
      model: "local/think-1",
      instructions: "You are Codex.",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions>" }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "List the files." }] },
      ],
      tools: [
        {
          type: "function",
          name: "shell_command",
          description: "Runs a command",
          strict: false,
          parameters: {
            type: "object",
            properties: { command: { type: "string" } },
            required: ["command"],
            additionalProperties: false,
          },
        },
        {
          type: "namespace",
          name: "mcp__fs",
          description: "files",
          tools: [{ type: "function", name: "read" }],
        },
        { type: "web_search", external_web_access: false },
      ],
      tool_choice: "auto",
      parallel_tool_calls: true,
      reasoning: { effort: "medium", summary: "auto" },
      store: false,
      stream: true,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "019a-session",
      client_metadata: { "x-codex-turn": "1" },
    });
    assert.deepEqual(r.system, [
      { type: "text", text: "You are Codex." },
      { type: "text", text: "<permissions>" },
    ]);
    assert.deepEqual(
      r.tools.map((t) => t.name),
      ["shell_command", "mcp__fs__read"],
    );
    // Codex's search limited to OpenAI's cached index (external_web_access: false) cannot cross.
    assert.deepEqual(r.ignored, ["tools[].web_search", "prompt_cache_key"]);
    assert.equal(r.webSearch, undefined);
    assert.deepEqual(r.reasoning, { effort: "medium" });
  });
});

describe("decodeRequest: wrongly typed tool schemas are a 400 naming the path", () => {
  const tool = (parameters: unknown) => ({ type: "function", name: "weather", parameters });

  test('parameters.properties.city: "{}" and an empty type list', () => {
    rejects(
      { model: "m", input: "x", tools: [tool({ type: "object", properties: { city: "{}" } })] },
      "tools[0].parameters.properties.city",
      /must be a JSON Schema/,
    );
    rejects(
      { model: "m", input: "x", tools: [tool({ type: "object", properties: { city: { type: [] } } })] },
      "tools[0].parameters.properties.city.type",
      /at least one type/,
    );
  });

  test("text.format.schema is checked the same way; a Codex strict schema passes", () => {
    rejects(
      { model: "m", input: "x", text: { format: { type: "json_schema", name: "a", schema: { items: 1 } } } },
      "text.format.schema.items",
      /must be a JSON Schema/,
    );
    const parameters = {
      type: "object",
      properties: {
        command: { type: "array", items: { type: "string" } },
        workdir: { type: ["string", "null"] },
      },
      required: ["command", "workdir"],
      additionalProperties: false,
    };
    const request = decode({ model: "m", input: "x", tools: [tool(parameters)] });
    assert.deepEqual(request.tools[0].parameters, parameters);
  });
});

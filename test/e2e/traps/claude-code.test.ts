// Known traps (docs/architecture.md §10), agents through a gateway: a request shaped like Claude Code's, end
// to end.
// - BerriAI/litellm#22963: Claude Code's `output_config` was forwarded to an OpenAI-style upstream,
//   which rejected it ("Unknown parameter: 'output_config'"). Here the same request must reach an
//   OpenAI-protocol and a Gemini-protocol upstream as a valid request, and an Anthropic-protocol
//   upstream byte for byte.
// - BerriAI/litellm#35061: Claude Code's `max_tokens: 1` model probe failed. Here it must answer
//   through every upstream protocol with a message the SDK accepts.

import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { PAYG_KEY } from "../../support/gateway.ts";
import { CLAUDE_CODE_TOOLS } from "./claude-code-tools.ts";
import { onlyRequest, type Routes, startRoutes } from "./routes.ts";

let routes: Routes;
before(async () => {
  routes = await startRoutes();
});
after(() => routes?.close());
beforeEach(() => routes.reset());

const SYSTEM_1 = "You are Claude Code, Anthropic's official CLI for Claude.";
const SYSTEM_2 = "You are an interactive CLI tool that helps users with software engineering tasks.";
const INLINE_SYSTEM = "Plan mode is active. Do not make any edits.";
const FIRST_ASK = "List the TypeScript files here.";
const REMINDER = "<system-reminder>The date is 2025-11-03.</system-reminder>";
const FOLLOW_UP = "Now summarise what you found.";
const CALL_ID = "toolu_01HxQv3kW8pZ2nQbT9yLmR4s";
const TOOL_OUTPUT = "src/a.ts\nsrc/b.ts";
const USER_ID =
  "user_4c0b6f1e9d2a7c3b5e8f1a2d4c6b8e0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b_account_8f14e45f-ceea-467f-a0e6-1d2b3c4d5e6f_session_0e6a1b2c-3d4e-5f60-7182-93a4b5c6d7e8";

/** Betas as Claude Code sends them: one header with a comma-joined list, and repeated headers. */
const BETA_HEADERS: string[] = [
  "claude-code-20250219,interleaved-thinking-2025-05-14",
  "context-management-2025-06-27",
  "effort-2025-11-24, fine-grained-tool-streaming-2025-05-14",
];
const ALL_BETAS = BETA_HEADERS.flatMap((h) => h.split(",").map((b) => b.trim()));

function claudeCodeBody(model: string): string {
  // Written as text, `model` first, so the relay's byte-exact forwarding can be checked by one replace.
  return JSON.stringify({
    model,
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: REMINDER },
          { type: "text", text: FIRST_ASK, cache_control: { type: "ephemeral" } },
        ],
      },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: CALL_ID, name: "Glob", input: { pattern: "**/*.ts" } }],
      },
      { role: "system", content: INLINE_SYSTEM },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: CALL_ID,
            content: TOOL_OUTPUT,
            cache_control: { type: "ephemeral" },
          },
          { type: "text", text: FOLLOW_UP },
        ],
      },
    ],
    temperature: 1,
    system: [
      { type: "text", text: SYSTEM_1, cache_control: { type: "ephemeral" } },
      { type: "text", text: SYSTEM_2, cache_control: { type: "ephemeral", ttl: "1h" } },
    ],
    tools: CLAUDE_CODE_TOOLS.map((tool, i) =>
      i === CLAUDE_CODE_TOOLS.length - 1 ? { ...tool, cache_control: { type: "ephemeral" } } : tool,
    ),
    metadata: { user_id: USER_ID },
    max_tokens: 32000,
    thinking: { type: "adaptive" },
    output_config: { effort: "high" },
    context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    stream: true,
  });
}

/** POST /v1/messages?beta=true over node:http, so that `anthropic-beta` can be repeated as Claude Code does. */
function sendAsClaudeCode(
  body: string,
): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const url = new URL(`${routes.gw.url}/v1/messages?beta=true`);
  // Given as a raw list, node adds no header of its own: host and length are written here.
  const rawHeaders = [
    "host",
    url.host,
    "content-length",
    String(Buffer.byteLength(body)),
    "content-type",
    "application/json",
    "anthropic-version",
    "2023-06-01",
    "authorization",
    `Bearer ${PAYG_KEY}`,
    "x-app",
    "cli",
    "user-agent",
    "claude-cli/2.0.31 (external, cli)",
    "anthropic-dangerous-direct-browser-access",
    "true",
    ...BETA_HEADERS.flatMap((value) => ["anthropic-beta", value]),
  ];
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: rawHeaders }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => {
        text += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function eventNames(sse: string): string[] {
  return [...sse.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
}

/** Every key anywhere in a JSON value (to prove a field is absent at any depth). */
function allKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) allKeys(v, into);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      allKeys(v, into);
    }
  return into;
}

const ANTHROPIC_ONLY = [
  "output_config",
  "context_management",
  "cache_control",
  "thinking",
  "metadata",
  "betas",
];

function assertNoAnthropicOnlyFields(body: unknown): void {
  const keys = allKeys(body);
  for (const field of ANTHROPIC_ONLY) assert.equal(keys.has(field), false, `upstream body carries ${field}`);
}

/** The answer streamed to Claude Code is a complete messages stream it can assemble. */
function assertMessagesStream(res: { status: number; text: string }): void {
  assert.equal(res.status, 200, res.text);
  const events = eventNames(res.text);
  assert.equal(events[0], "message_start");
  assert.equal(events.at(-1), "message_stop");
  assert.ok(events.includes("message_delta"));
  assert.ok(!events.includes("error"), res.text);
}

// Gemini's Schema (OpenAPI 3.0 subset): the only keywords and type names the API accepts in `parameters`.
const GEMINI_SCHEMA_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);
const GEMINI_TYPES = new Set(["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"]);
const GEMINI_FORMATS = new Set(["enum", "date-time", "int32", "int64", "float", "double"]);

function assertGeminiSchema(schema: any, at: string): void {
  assert.equal(typeof schema, "object", at);
  for (const key of Object.keys(schema))
    assert.ok(GEMINI_SCHEMA_KEYS.has(key), `${at}.${key} is not a Schema keyword`);
  if (schema.type !== undefined) assert.ok(GEMINI_TYPES.has(schema.type), `${at}.type = ${schema.type}`);
  if (schema.format !== undefined)
    assert.ok(GEMINI_FORMATS.has(schema.format), `${at}.format = ${schema.format}`);
  if (schema.type === "OBJECT") {
    assert.ok(
      schema.properties && Object.keys(schema.properties).length > 0,
      `${at}: OBJECT needs properties`,
    );
  }
  for (const [name, sub] of Object.entries(schema.properties ?? {}))
    assertGeminiSchema(sub, `${at}.properties.${name}`);
  if (schema.items) assertGeminiSchema(schema.items, `${at}.items`);
  for (const [i, sub] of (schema.anyOf ?? []).entries()) assertGeminiSchema(sub, `${at}.anyOf[${i}]`);
}

function assertGeminiDeclarations(body: any): void {
  assert.equal(body.tools.length, 1);
  const declarations: any[] = body.tools[0].functionDeclarations;
  assert.deepEqual(
    declarations.map((d) => d.name),
    CLAUDE_CODE_TOOLS.map((t) => t.name),
  );
  for (const [i, d] of declarations.entries()) {
    const original = CLAUDE_CODE_TOOLS[i];
    assert.match(d.name, /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/);
    assert.equal(d.description, original.description);
    assert.ok(
      !(d.parameters && d.parametersJsonSchema),
      `${d.name}: parameters and parametersJsonSchema together`,
    );
    if (d.parameters) assertGeminiSchema(d.parameters, `${d.name}.parameters`);
    // JSON Schema that Schema cannot say goes as it is: nothing lost, nothing invented.
    if (d.parametersJsonSchema) assert.deepEqual(d.parametersJsonSchema, original.input_schema);
    const props = Object.keys((original.input_schema.properties as object) ?? {});
    if (props.length > 0) assert.ok(d.parameters || d.parametersJsonSchema, `${d.name} lost its parameters`);
  }
  // A tool Schema can express exactly is sent as Schema (upper-case types), the others as JSON Schema.
  const pr = declarations.find((d) => d.name === "mcp__github__get_pull_request");
  assert.equal(pr.parameters?.properties.pull_number.type, "INTEGER");
  const bash = declarations.find((d) => d.name === "Bash");
  assert.equal(bash.parametersJsonSchema.$schema, "http://json-schema.org/draft-07/schema#");
}

function assertGeminiConversation(body: any): void {
  const systemTexts = body.systemInstruction.parts.map((p: any) => p.text);
  assert.deepEqual(systemTexts, [SYSTEM_1, SYSTEM_2, INLINE_SYSTEM]);
  assert.deepEqual(
    body.contents.map((c: any) => c.role),
    ["user", "model", "user"],
  );
  assert.deepEqual(body.contents[0].parts, [{ text: REMINDER }, { text: FIRST_ASK }]);
  const [call] = body.contents[1].parts;
  assert.equal(call.functionCall.name, "Glob");
  assert.deepEqual(call.functionCall.args, { pattern: "**/*.ts" });
  const [response, followUp] = body.contents[2].parts;
  assert.equal(response.functionResponse.name, "Glob", "Gemini needs the function name back");
  assert.ok(
    JSON.stringify(response.functionResponse.response).includes(JSON.stringify(TOOL_OUTPUT).slice(1, -1)),
  );
  assert.deepEqual(followUp, { text: FOLLOW_UP });
}

describe("Claude Code's request, streamed, with 25 tools (litellm#22963: output_config reached an OpenAI upstream)", () => {
  test("reaches an OpenAI-protocol upstream as a valid chat-completions request", async () => {
    const res = await sendAsClaudeCode(claudeCodeBody("fo/gpt"));
    assertMessagesStream(res);
    const sent = onlyRequest(routes.openai);
    assert.equal(sent.pathname, "/v1/chat/completions");
    assert.equal(sent.headers.authorization, "Bearer k-openai");
    assert.equal(sent.headers["anthropic-beta"], undefined, "betas mean nothing to this upstream");
    const body = sent.body;
    assertNoAnthropicOnlyFields(body);
    assert.equal(body.model, "gpt-5-mini");
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.max_completion_tokens, 32000);
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.temperature, 1);
    // output_config.effort "high" is the chat protocol's reasoning_effort "high".
    assert.equal(body.reasoning_effort, "high");
    // metadata is unsupported on the messages face (docs/architecture.md §8): dropped, so the session id does
    // not leak.
    assert.equal(body.user, undefined);
    assert.equal(body.tool_choice, undefined);

    const [system, ...rest] = body.messages;
    assert.equal(system.role, "system");
    const systemText: string = system.content;
    for (const text of [SYSTEM_1, SYSTEM_2, INLINE_SYSTEM]) assert.ok(systemText.includes(text), text);
    assert.ok(systemText.indexOf(SYSTEM_1) < systemText.indexOf(SYSTEM_2));
    assert.deepEqual(
      rest.map((m: any) => m.role),
      ["user", "assistant", "tool", "user"],
    );
    const userText =
      typeof rest[0].content === "string"
        ? rest[0].content
        : rest[0].content.map((p: any) => p.text).join("");
    assert.ok(userText.includes(REMINDER) && userText.includes(FIRST_ASK));
    assert.equal(rest[1].tool_calls.length, 1);
    assert.equal(rest[1].tool_calls[0].id, CALL_ID);
    assert.equal(rest[1].tool_calls[0].type, "function");
    assert.equal(rest[1].tool_calls[0].function.name, "Glob");
    assert.deepEqual(JSON.parse(rest[1].tool_calls[0].function.arguments), { pattern: "**/*.ts" });
    assert.deepEqual(rest[2], { role: "tool", tool_call_id: CALL_ID, content: TOOL_OUTPUT });
    assert.equal(rest[3].content, FOLLOW_UP);

    assert.equal(body.tools.length, 25);
    for (const [i, tool] of body.tools.entries()) {
      const original = CLAUDE_CODE_TOOLS[i];
      assert.equal(tool.type, "function");
      assert.equal(tool.function.name, original.name);
      assert.equal(tool.function.description, original.description);
      assert.deepEqual(tool.function.parameters, original.input_schema);
      assert.match(tool.function.name, /^[a-zA-Z0-9_-]{1,64}$/);
    }
  });

  test("reaches a Gemini 2.5 upstream as a valid streamGenerateContent request", async () => {
    const res = await sendAsClaudeCode(claudeCodeBody("fg/flash"));
    assertMessagesStream(res);
    const sent = onlyRequest(routes.gemini);
    assert.equal(sent.pathname, "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
    assert.equal(sent.query.get("alt"), "sse");
    assert.equal(sent.headers["x-goog-api-key"], "k-gemini");
    const body = sent.body;
    assertNoAnthropicOnlyFields(body);
    assert.equal(body.model, undefined, "the model is in the path");
    assertGeminiConversation(body);
    assertGeminiDeclarations(body);
    assert.equal(body.toolConfig, undefined);
    assert.equal(body.generationConfig.maxOutputTokens, 32000);
    assert.equal(body.generationConfig.temperature, 1);
    // Effort "high" on a budget-based model: Google's own mapping for "high" (docs/translation.md).
    assert.deepEqual(body.generationConfig.thinkingConfig, { thinkingBudget: 24576, includeThoughts: true });
  });

  test("reaches a Gemini 3 upstream with the effort as a thinking level", async () => {
    const res = await sendAsClaudeCode(claudeCodeBody("fg/pro3"));
    assertMessagesStream(res);
    const body = onlyRequest(routes.gemini).body;
    assertNoAnthropicOnlyFields(body);
    assertGeminiConversation(body);
    assertGeminiDeclarations(body);
    assert.deepEqual(body.generationConfig.thinkingConfig, { thinkingLevel: "HIGH", includeThoughts: true });
    // Gemini 3 refuses a model turn whose calls carry no signature; the replayed Glob call had none.
    assert.equal(body.contents[1].parts[0].thoughtSignature, "skip_thought_signature_validator");
  });

  test("reaches an Anthropic-protocol upstream unchanged: byte for byte but the model and metadata, every beta forwarded", async () => {
    const clientBody = claudeCodeBody("fa/claude");
    const res = await sendAsClaudeCode(clientBody);
    assertMessagesStream(res);
    const sent = onlyRequest(routes.anthropic);
    assert.equal(sent.pathname, "/v1/messages");
    // `metadata` (unsupported on this face) is the one member taken out, with its separator.
    const expected = clientBody
      .replace('"model":"fa/claude"', '"model":"claude-sonnet-4-5"')
      .replace(/,"metadata":\{[^{}]*\}/, "");
    assert.equal(sent.rawBody, expected);
    assert.equal(sent.headers["x-api-key"], "k-anthropic");
    assert.equal(sent.headers["anthropic-version"], "2023-06-01");
    const betas = String(sent.headers["anthropic-beta"])
      .split(",")
      .map((b) => b.trim());
    assert.deepEqual([...betas].sort(), [...ALL_BETAS].sort());
  });
});

describe("Claude Code's max_tokens: 1 model probe (litellm#35061)", () => {
  const client = () => new Anthropic({ apiKey: PAYG_KEY, baseURL: routes.gw.url, maxRetries: 0 });

  /** The probe as Claude Code's /model sends it: beta endpoint, one token, a cached "Hi". */
  function probe(model: string) {
    return client().beta.messages.create({
      model,
      max_tokens: 1,
      betas: ["claude-code-20250219"],
      messages: [
        { role: "user", content: [{ type: "text", text: "Hi", cache_control: { type: "ephemeral" } }] },
      ],
    });
  }

  // One token of text, then a reasoning model that spent its one token thinking and said nothing.
  const oneToken = {
    blocks: [{ type: "text" as const, text: "Hi" }],
    finish: "length" as const,
    usage: { input: 8, output: 1 },
  };
  const spentThinking = { blocks: [], finish: "length" as const, usage: { input: 8, reasoning: 1 } };

  const upstreams = [
    { model: "fo/gpt", fake: () => routes.openai, limit: (b: any) => b.max_completion_tokens },
    { model: "fg/flash", fake: () => routes.gemini, limit: (b: any) => b.generationConfig?.maxOutputTokens },
    { model: "fa/claude", fake: () => routes.anthropic, limit: (b: any) => b.max_tokens },
  ];
  for (const { model, fake, limit } of upstreams) {
    test(`answers through ${model} with a message the SDK accepts`, async () => {
      fake().script(oneToken, spentThinking);
      const first = await probe(model);
      assert.equal(first.type, "message");
      assert.equal(first.role, "assistant");
      assert.equal(first.stop_reason, "max_tokens");
      assert.deepEqual(first.content, [{ type: "text", text: "Hi" }]);
      assert.equal(first.usage.input_tokens, 8);
      assert.equal(first.usage.output_tokens, 1);
      const second = await probe(model);
      assert.equal(second.stop_reason, "max_tokens");
      assert.deepEqual(second.content, [], "no empty text block stands in for nothing");
      assert.equal(second.usage.input_tokens, 8);
      assert.equal(second.usage.output_tokens, 1);
      assert.equal(fake().requests.length, 2);
      for (const sent of fake().requests) {
        assert.equal(limit(sent.body), 1, "the client's limit is passed on as it is");
        if (model !== "fa/claude") assertNoAnthropicOnlyFields(sent.body);
      }
    });
  }
});

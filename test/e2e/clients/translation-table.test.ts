// docs/translation.md, checked end to end: what each client protocol drops (named in the
// `x-switchyard-ignored` response header, never sent upstream), what a target cannot take (a 400 in
// the client's protocol, nothing sent upstream), and the mapping rows that are easiest to get wrong
// (reasoning effort ↔ budget ↔ level, tool choice, finish reasons).

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { FakeUpstream, Finish } from "../../fakes/index.ts";
import { headersFor, onlyRequest, post, type Routes, startRoutes } from "../traps/routes.ts";

let routes: Routes;
before(async () => {
  routes = await startRoutes();
});
after(() => routes?.close());
beforeEach(() => routes.reset());

function ignoredHeader(headers: Headers): string[] {
  return (headers.get("x-switchyard-ignored") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .sort();
}

const CHAT = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  messages: [{ role: "user", content: "Hello." }],
  ...extra,
});
const MESSAGES = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 2000,
  messages: [{ role: "user", content: "Hello." }],
  ...extra,
});
const GEMINI = (extra: Record<string, unknown> = {}) => ({
  contents: [{ role: "user", parts: [{ text: "Hello." }] }],
  ...extra,
});

describe("x-switchyard-ignored names what was dropped, and the upstream never sees it", () => {
  const chatDropped = {
    store: true,
    seed: 7,
    user: "end-user-1",
    service_tier: "flex",
    prompt_cache_key: "k-1",
    safety_identifier: "hash-1",
    logit_bias: { "50256": -100 },
    metadata: { team: "alpha" },
  };

  for (const [model, fake] of [
    ["fo/gpt", () => routes.openai],
    ["fa/claude", () => routes.anthropic],
  ] as const) {
    test(`chat client → ${model}: the API's unsupported fields`, async () => {
      const res = await post(routes.gw, "/v1/chat/completions", CHAT(model, chatDropped), headersFor("chat"));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(ignoredHeader(res.headers), Object.keys(chatDropped).sort());
      const sent = onlyRequest(fake()).body;
      for (const field of Object.keys(chatDropped))
        assert.equal(sent[field], undefined, `${field} went upstream`);
    });
  }

  test("messages client → fo/gpt: unsupported fields, server tools and fields no other protocol has", async () => {
    const res = await post(
      routes.gw,
      "/v1/messages",
      MESSAGES("fo/gpt", {
        service_tier: "auto",
        metadata: { user_id: "user-1" },
        context_management: { edits: [{ type: "clear_thinking_20251015" }] },
        thinking: { type: "enabled", budget_tokens: 1024, display: "omitted" },
        tools: [
          { type: "web_search_20250305", name: "web_search", max_uses: 2 },
          {
            name: "lookup",
            input_schema: { type: "object", properties: { q: { type: "string" } } },
            defer_loading: false,
          },
          // Deferred, and no search has loaded it: hidden from the model (docs/translation.md §2c).
          { name: "hidden", input_schema: { type: "object" }, defer_loading: true },
        ],
      }),
      headersFor("messages"),
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(ignoredHeader(res.headers), [
      "context_management",
      "metadata",
      "service_tier",
      "thinking.display",
      "tools[1].defer_loading",
      "tools[2]",
      // The web search tool crosses as web_search_options (docs/translation.md §13c); its limit cannot.
      "web_search.max_uses",
    ]);
    const sent = onlyRequest(routes.openai).body;
    assert.deepEqual(
      sent.tools.map((t: any) => t.function.name),
      ["lookup"],
    );
    assert.deepEqual(sent.web_search_options, {});
    for (const field of ["service_tier", "metadata", "context_management", "user"])
      assert.equal(sent[field], undefined, `${field} went upstream`);
    assert.ok(!JSON.stringify(sent).includes("defer_loading"));
  });

  test("content-generation client → fa/claude: safety settings, cached content, server tools, output media", async () => {
    const res = await post(
      routes.gw,
      "/v1beta/models/fa/claude:generateContent",
      GEMINI({
        safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "BLOCK_NONE" }],
        cachedContent: "cachedContents/abc123",
        tools: [{ googleSearch: {} }],
        generationConfig: { responseModalities: ["TEXT", "IMAGE"], speechConfig: { voiceConfig: {} } },
      }),
      headersFor("gemini"),
    );
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(ignoredHeader(res.headers), [
      "cachedContent",
      "generationConfig.responseModalities",
      "generationConfig.speechConfig",
      "safetySettings",
    ]);
    const sent = onlyRequest(routes.anthropic).body;
    // Google Search becomes Anthropic's own web search tool (docs/translation.md §13c).
    assert.deepEqual(sent.tools, [{ type: "web_search_20250305", name: "web_search" }]);
    assert.deepEqual(Object.keys(sent).sort(), ["max_tokens", "messages", "model", "tools"]);
  });
});

describe("what a target cannot take is a 400 in the client's protocol, and nothing goes upstream", () => {
  const audioByUrl = GEMINI({
    contents: [
      {
        role: "user",
        parts: [{ fileData: { mimeType: "audio/mp3", fileUri: "https://example.com/a.mp3" } }],
      },
    ],
  });

  for (const [model, fake] of [
    ["fo/gpt", () => routes.openai],
    ["fa/claude", () => routes.anthropic],
  ] as const) {
    test(`content-generation client: audio by URL → ${model}`, async () => {
      const res = await post(
        routes.gw,
        `/v1beta/models/${model}:generateContent`,
        audioByUrl,
        headersFor("gemini"),
      );
      assert.equal(res.status, 400);
      assert.equal(res.json.error.status, "INVALID_ARGUMENT");
      assert.match(res.json.error.message, /^contents: .*audio/);
      assert.equal(fake().requests.length, 0);
    });
  }

  test("messages client: an image given as a file id → fo/gpt", async () => {
    const res = await post(
      routes.gw,
      "/v1/messages",
      MESSAGES("fo/gpt", {
        messages: [
          { role: "user", content: [{ type: "image", source: { type: "file", file_id: "file_011abc" } }] },
        ],
      }),
      headersFor("messages"),
    );
    assert.equal(res.status, 400);
    assert.equal(res.json.type, "error");
    assert.equal(res.json.error.type, "invalid_request_error");
    assert.match(res.json.error.message, /^messages: .*file id/);
    assert.equal(routes.openai.requests.length, 0);
  });

  test("chat client: a tool result answering no call → fg/flash (Gemini needs the function name)", async () => {
    const res = await post(
      routes.gw,
      "/v1/chat/completions",
      CHAT("fg/flash", { messages: [{ role: "tool", tool_call_id: "call_unknown", content: "42" }] }),
      headersFor("chat"),
    );
    assert.equal(res.status, 400);
    assert.equal(res.json.error.type, "invalid_request_error");
    assert.match(res.json.error.message, /call_unknown/);
    // The chat face names its prompt member: an IR position would not be the client's.
    assert.equal(res.json.error.param, "messages");
    assert.equal(routes.gemini.requests.length, 0);
  });

  test("each face's own refusals: chat functions, the code-execution beta, candidateCount 2", async () => {
    const chat = await post(
      routes.gw,
      "/v1/chat/completions",
      CHAT("fo/gpt", { functions: [{ name: "f", parameters: { type: "object" } }] }),
      headersFor("chat"),
    );
    assert.equal(chat.status, 400);
    assert.equal(chat.json.error.param, "functions");
    const messages = await post(routes.gw, "/v1/messages", MESSAGES("fo/gpt"), {
      ...headersFor("messages"),
      "anthropic-beta": "code-execution-2025-08-25",
    });
    assert.equal(messages.status, 400);
    assert.match(messages.json.error.message, /anthropic-beta/);
    const gemini = await post(
      routes.gw,
      "/v1beta/models/fo/gpt:generateContent",
      GEMINI({ generationConfig: { candidateCount: 2 } }),
      headersFor("gemini"),
    );
    assert.equal(gemini.status, 400);
    assert.match(gemini.json.error.message, /generationConfig\.candidateCount/);
    assert.equal(routes.openai.requests.length, 0);
  });
});

describe("reasoning: effort ↔ budget ↔ thinkingLevel", () => {
  async function sentFor(
    face: "chat" | "messages" | "gemini",
    model: string,
    body: unknown,
    fake: FakeUpstream,
  ) {
    const path =
      face === "chat"
        ? "/v1/chat/completions"
        : face === "messages"
          ? "/v1/messages"
          : `/v1beta/models/${model}:generateContent`;
    const res = await post(routes.gw, path, body, headersFor(face));
    assert.equal(res.status, 200, res.text);
    const sent = fake.requests.at(-1)!.body;
    fake.reset();
    return sent;
  }

  test("a chat effort becomes a messages budget, a Gemini 2.5 budget and a Gemini 3 level", async () => {
    const body = (model: string) => CHAT(model, { reasoning_effort: "low", max_completion_tokens: 20000 });
    const anthropic = await sentFor("chat", "fa/claude", body("fa/claude"), routes.anthropic);
    assert.deepEqual(anthropic.thinking, { type: "enabled", budget_tokens: 2048 });
    const flash = await sentFor("chat", "fg/flash", body("fg/flash"), routes.gemini);
    assert.equal(flash.generationConfig.thinkingConfig.thinkingBudget, 1024);
    const pro3 = await sentFor("chat", "fg/pro3", body("fg/pro3"), routes.gemini);
    assert.equal(pro3.generationConfig.thinkingConfig.thinkingLevel, "LOW");
  });

  test("a messages budget becomes the nearest chat effort, and stays a budget for Gemini", async () => {
    const body = (model: string) =>
      MESSAGES(model, { max_tokens: 20000, thinking: { type: "enabled", budget_tokens: 5000 } });
    assert.equal(
      (await sentFor("messages", "fo/gpt", body("fo/gpt"), routes.openai)).reasoning_effort,
      "medium",
    );
    const flash = await sentFor("messages", "fg/flash", body("fg/flash"), routes.gemini);
    assert.equal(flash.generationConfig.thinkingConfig.thinkingBudget, 5000);
  });

  test("a Gemini level becomes a chat effort and a messages budget; budget 0 switches thinking off", async () => {
    const level = GEMINI({
      generationConfig: { maxOutputTokens: 30000, thinkingConfig: { thinkingLevel: "HIGH" } },
    });
    assert.equal((await sentFor("gemini", "fo/gpt", level, routes.openai)).reasoning_effort, "high");
    assert.deepEqual((await sentFor("gemini", "fa/claude", level, routes.anthropic)).thinking, {
      type: "enabled",
      budget_tokens: 16384,
    });
    const off = GEMINI({ generationConfig: { thinkingConfig: { thinkingBudget: 0 } } });
    assert.deepEqual((await sentFor("gemini", "fa/claude", off, routes.anthropic)).thinking, {
      type: "disabled",
    });
    assert.equal((await sentFor("gemini", "fo/gpt", off, routes.openai)).reasoning_effort, undefined);
  });

  test("chat relay: the gateway's reasoning object becomes reasoning_effort, as on the translated path", async () => {
    const res = await post(
      routes.gw,
      "/v1/chat/completions",
      CHAT("fo/gpt", { reasoning: { max_tokens: 5000 } }),
      headersFor("chat"),
    );
    assert.equal(res.status, 200, res.text);
    const sent = onlyRequest(routes.openai).body;
    assert.equal(sent.reasoning, undefined, "OpenAI has no `reasoning` parameter");
    assert.equal(sent.reasoning_effort, "medium");
  });
});

describe("tool choice", () => {
  const chatTools = [
    {
      type: "function",
      function: { name: "a", parameters: { type: "object", properties: { x: { type: "string" } } } },
    },
    {
      type: "function",
      function: { name: "b", parameters: { type: "object", properties: { y: { type: "string" } } } },
    },
  ];

  test("chat required / named / parallel off → messages any / tool + disable_parallel_tool_use, Gemini ANY / allowed names", async () => {
    await post(
      routes.gw,
      "/v1/chat/completions",
      CHAT("fa/claude", { tools: chatTools, tool_choice: "required" }),
      headersFor("chat"),
    );
    assert.deepEqual(routes.anthropic.requests[0].body.tool_choice, { type: "any" });
    await post(
      routes.gw,
      "/v1/chat/completions",
      CHAT("fa/claude", {
        tools: chatTools,
        tool_choice: { type: "function", function: { name: "b" } },
        parallel_tool_calls: false,
      }),
      headersFor("chat"),
    );
    assert.deepEqual(routes.anthropic.requests[1].body.tool_choice, {
      type: "tool",
      name: "b",
      disable_parallel_tool_use: true,
    });
    await post(
      routes.gw,
      "/v1/chat/completions",
      CHAT("fg/flash", { tools: chatTools, tool_choice: { type: "function", function: { name: "b" } } }),
      headersFor("chat"),
    );
    assert.deepEqual(routes.gemini.requests[0].body.toolConfig, {
      functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["b"] },
    });
  });

  test("messages any with parallel use off → chat required, parallel_tool_calls false; Gemini NONE → chat none", async () => {
    await post(
      routes.gw,
      "/v1/messages",
      MESSAGES("fo/gpt", {
        tools: [{ name: "a", input_schema: { type: "object", properties: { x: { type: "string" } } } }],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
      }),
      headersFor("messages"),
    );
    assert.equal(routes.openai.requests[0].body.tool_choice, "required");
    assert.equal(routes.openai.requests[0].body.parallel_tool_calls, false);
    await post(
      routes.gw,
      "/v1beta/models/fo/gpt:generateContent",
      GEMINI({
        tools: [
          {
            functionDeclarations: [
              { name: "a", parameters: { type: "OBJECT", properties: { x: { type: "STRING" } } } },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: "NONE" } },
      }),
      headersFor("gemini"),
    );
    assert.equal(routes.openai.requests[1].body.tool_choice, "none");
  });
});

describe("finish reasons", () => {
  // [upstream finish as the fake scripts it, client face, what the client must read]
  const rows: Array<[string, () => FakeUpstream, Finish, "chat" | "messages" | "gemini", string]> = [
    ["fa/claude", () => routes.anthropic, "content_filter", "chat", "content_filter"],
    ["fa/claude", () => routes.anthropic, "stop_sequence", "gemini", "STOP"],
    ["fg/flash", () => routes.gemini, "content_filter", "messages", "refusal"],
    ["fg/flash", () => routes.gemini, "length", "chat", "length"],
    ["fo/gpt", () => routes.openai, "length", "gemini", "MAX_TOKENS"],
    ["fo/gpt", () => routes.openai, "tool_calls", "messages", "tool_use"],
  ];
  for (const [model, fake, finish, face, expected] of rows) {
    test(`${model} ${finish} → ${face} client: ${expected}`, async () => {
      const blocks =
        finish === "tool_calls"
          ? [{ type: "tool_call" as const, name: "a", args: { x: "1" } }]
          : [{ type: "text" as const, text: "Partial" }];
      fake().script({ blocks, finish, stopSequence: finish === "stop_sequence" ? "END" : undefined });
      const path =
        face === "chat"
          ? "/v1/chat/completions"
          : face === "messages"
            ? "/v1/messages"
            : `/v1beta/models/${model}:generateContent`;
      const body = face === "chat" ? CHAT(model) : face === "messages" ? MESSAGES(model) : GEMINI();
      const res = await post(routes.gw, path, body, headersFor(face));
      assert.equal(res.status, 200, res.text);
      const got =
        face === "chat"
          ? res.json.choices[0].finish_reason
          : face === "messages"
            ? res.json.stop_reason
            : res.json.candidates[0].finishReason;
      assert.equal(got, expected);
    });
  }
});

// Tool names across protocols. Gemini's function names may hold dots and colons (Gemini CLI's MCP
// tools: Google Workspace's `calendar.listEvents`), which OpenAI ("Invalid 'tools[0].function.name':
// string does not match pattern") and Anthropic ("tools.0.custom.name: String should match pattern
// '^[a-zA-Z0-9_-]{1,128}$'") refuse for the whole request. A translated request's names are fitted to
// the upstream (dots and colons as underscores), earlier turns' calls and results too, and the answer's
// calls come back under the client's names (src/ir/tool-names.ts). The fakes refuse as each API does.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { type Content, type FunctionDeclaration, GoogleGenAI } from "@google/genai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let chat: FakeUpstream;
let claude: FakeUpstream;
let ai: GoogleGenAI;

before(async () => {
  [chat, claude] = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("anthropic")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-tool-names-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("fo", chat), fakeProvider("fa", claude)],
      models: [fakeModel("fo/m", ["fo"]), fakeModel("fa/m", ["fa"])],
    }),
    { dir },
  );
  ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
});
beforeEach(() => {
  chat.reset();
  claude.reset();
});
after(async () => {
  await gw?.stop();
  await Promise.all([chat?.close(), claude?.close()]);
});

type Json = Record<string, unknown>;

const TOOLS: FunctionDeclaration[] = [
  { name: "calendar.listEvents", description: "List events", parametersJsonSchema: { type: "object" } },
  { name: "gmail:search", description: "Search mail", parametersJsonSchema: { type: "object" } },
  { name: "read_file", description: "Read a file", parametersJsonSchema: { type: "object" } },
];

test("the fakes refuse a dotted tool name as OpenAI and Anthropic do", async () => {
  const openaiRes = await fetch(`${chat.url}/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer k", "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        { type: "function", function: { name: "calendar.listEvents", parameters: { type: "object" } } },
      ],
    }),
  });
  assert.equal(openaiRes.status, 400);
  assert.equal(((await openaiRes.json()) as { error: Json }).error.param, "tools[0].function.name");
  const claudeRes = await fetch(`${claude.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": "k", "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      max_tokens: 10,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "calendar.listEvents", input_schema: { type: "object" } }],
    }),
  });
  assert.equal(claudeRes.status, 400);
  assert.match(JSON.stringify(await claudeRes.json()), /tools\.0\.custom\.name: String should match pattern/);
});

for (const [label, model, fake] of [
  ["a chat upstream", "fo/m", () => chat],
  ["a messages upstream", "fa/m", () => claude],
] as const) {
  test(`a Gemini client's dotted and coloned tool names reach ${label} fitted, and its calls come back as the client named them`, async () => {
    const upstream = fake();
    upstream.script({ blocks: [{ type: "tool_call", name: "calendar_listEvents", args: { day: "today" } }] });
    const answer = await ai.models.generateContent({
      model,
      contents: "What is on my calendar?",
      config: { tools: [{ functionDeclarations: TOOLS }] },
    });
    assert.deepEqual(
      answer.functionCalls?.map((call) => [call.name, call.args]),
      [["calendar.listEvents", { day: "today" }]],
    );
    const sent = upstream.requests.at(-1)!.body as Json;
    const names = (sent.tools as Json[]).map(
      (tool) => (tool.function as Json | undefined)?.name ?? tool.name,
    );
    assert.deepEqual(names, ["calendar_listEvents", "gmail_search", "read_file"]);

    // The next turn carries the call and its result under the client's names; upstream, fitted.
    upstream.reset();
    upstream.script({ blocks: [{ type: "text", text: "A standup at ten." }] });
    const history: Content[] = [
      { role: "user", parts: [{ text: "What is on my calendar?" }] },
      { role: "model", parts: [{ functionCall: { name: "calendar.listEvents", args: { day: "today" } } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "calendar.listEvents", response: { events: ["standup"] } } }],
      },
    ];
    const next = await ai.models.generateContent({
      model,
      contents: history,
      config: { tools: [{ functionDeclarations: TOOLS }] },
    });
    assert.equal(next.text, "A standup at ten.");
    const replay = JSON.stringify(upstream.requests.at(-1)!.body);
    assert.match(replay, /calendar_listEvents/);
    assert.doesNotMatch(replay, /calendar\.listEvents/);
  });
}

test("a streamed call comes back under the client's name too", async () => {
  chat.script({ blocks: [{ type: "tool_call", name: "gmail_search", args: { q: "invoice" } }], chunks: 3 });
  const calls: Array<string | undefined> = [];
  for await (const chunk of await ai.models.generateContentStream({
    model: "fo/m",
    contents: "Find the invoice",
    config: { tools: [{ functionDeclarations: TOOLS }] },
  }))
    for (const call of chunk.functionCalls ?? []) calls.push(call.name);
  assert.deepEqual(calls, ["gmail:search"]);
});

test("names an upstream takes go as they are: nothing is renamed", async () => {
  await ai.models.generateContent({
    model: "fo/m",
    contents: "hi",
    config: { tools: [{ functionDeclarations: [TOOLS[2]!] }] },
  });
  const sent = chat.requests.at(-1)!.body as Json;
  assert.equal(((sent.tools as Json[])[0]!.function as Json).name, "read_file");
});

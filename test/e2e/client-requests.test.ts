// Never refuse what the real API accepts (docs/architecture.md §8): every request body a real client
// sends (test/fixtures/client-requests/, README there) goes through every route, relayed to the
// upstream of its own protocol and translated to each other one, and no route may answer it 4xx.
// Then what a route must do with a few of them in particular: Gemini CLI's classifier schema, in
// Gemini's own type names, relayed as it came and translated to JSON Schema's names.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { after, before, beforeEach, describe, test } from "node:test";
import { PAYG_KEY } from "../support/gateway.ts";
import { type Matrix, MODEL, startMatrix, UPSTREAMS, type Upstream } from "./matrix/harness.ts";

type Face = "chat" | "messages" | "gemini" | "responses";

interface ClientRequest {
  file: string;
  /** Which client sends it, and in what mode. */
  client: string;
  /** Where the body was taken from (a capture, the client's source, its own tests). */
  source: string;
  face: Face;
  /** content-generation: the streamed method (the others say it in the body). */
  stream?: boolean;
  /** The path's query, as the client sends it (Claude Code's `?beta=true`). */
  query?: string;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

const DIR = new URL("../fixtures/client-requests/", import.meta.url);

const FIXTURES: ClientRequest[] = readdirSync(DIR)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, DIR), "utf8")) }));

function fixture(file: string): ClientRequest {
  const found = FIXTURES.find((f) => f.file === file);
  if (!found) throw new Error(`no fixture ${file}`);
  return found;
}

/** The credential header each face's clients send. */
function credentials(face: Face): Record<string, string> {
  if (face === "messages") return { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01" };
  if (face === "gemini") return { "x-goog-api-key": PAYG_KEY };
  return { authorization: `Bearer ${PAYG_KEY}` };
}

function pathOf(request: ClientRequest, model: string): string {
  const query = request.query ? `?${request.query}` : "";
  switch (request.face) {
    case "chat":
      return `/v1/chat/completions${query}`;
    case "messages":
      return `/v1/messages${query}`;
    case "responses":
      return `/v1/responses${query}`;
    case "gemini":
      return request.stream === true
        ? `/v1beta/models/${model}:streamGenerateContent?alt=sse`
        : `/v1beta/models/${model}:generateContent`;
  }
}

/** The fixture's body with the route's model named where its face names it. */
function bodyFor(request: ClientRequest, model: string): Record<string, unknown> {
  return request.face === "gemini" ? request.body : { ...request.body, model };
}

async function send(matrix: Matrix, request: ClientRequest, upstream: Upstream) {
  const model = MODEL[upstream];
  const res = await fetch(matrix.gw.url + pathOf(request, model), {
    method: "POST",
    headers: { "content-type": "application/json", ...credentials(request.face), ...request.headers },
    body: JSON.stringify(bodyFor(request, model)),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const RELAYED: Record<Face, Upstream> = {
  chat: "openai",
  messages: "anthropic",
  gemini: "gemini",
  responses: "openai-responses",
};

let matrix: Matrix;
before(async () => {
  matrix = await startMatrix();
});
after(() => matrix?.close());
beforeEach(() => matrix.reset());

describe("every client's request through every route", () => {
  test("there are fixtures for each client face", () => {
    const faces = new Set(FIXTURES.map((f) => f.face));
    for (const face of ["chat", "messages", "gemini", "responses"] as const)
      assert.ok(faces.has(face), `no fixture for the ${face} face`);
  });

  // Each fixture goes to the four upstreams at once (each fake records its own requests).
  for (const request of FIXTURES)
    test(`${request.file} (${request.client})`, async () => {
      await Promise.all(
        UPSTREAMS.map(async (upstream) => {
          const route = upstream === RELAYED[request.face] ? "relayed" : "translated";
          const res = await send(matrix, request, upstream);
          assert.ok(res.status < 400, `${route} to ${upstream}: ${res.status}: ${res.text}`);
          assert.ok(matrix.fakes[upstream].requests.length >= 1, `${upstream} was not called`);
        }),
      );
    });
});

describe("Gemini CLI's classifier: Gemini type names in responseJsonSchema", () => {
  const classifier = fixture("gemini-cli-classifier.json");
  const sentSchema = (classifier.body.generationConfig as { responseJsonSchema: unknown }).responseJsonSchema;

  test("relayed to a content-generation upstream as it came", async () => {
    const res = await send(matrix, classifier, "gemini");
    assert.equal(res.status, 200, res.text);
    const upstreamBody = matrix.fakes.gemini.requests[0].body as any;
    assert.deepEqual(upstreamBody.generationConfig.responseJsonSchema, sentSchema);
  });

  test("translated to a chat upstream with JSON Schema's type names", async () => {
    const res = await send(matrix, classifier, "openai");
    assert.equal(res.status, 200, res.text);
    const upstreamBody = matrix.fakes.openai.requests[0].body as any;
    assert.equal(upstreamBody.response_format.type, "json_schema");
    assert.deepEqual(upstreamBody.response_format.json_schema.schema, {
      type: "object",
      properties: {
        complexity_reasoning: { type: "string", description: "Brief explanation for the score." },
        complexity_score: { type: "integer", description: "Complexity score from 1-100." },
      },
      required: ["complexity_reasoning", "complexity_score"],
    });
  });

  test("Gemini's names in any case, in a tool's parametersJsonSchema too, reach a messages upstream as JSON Schema's", async () => {
    const request: ClientRequest = {
      ...classifier,
      body: {
        contents: [{ role: "user", parts: [{ text: "weather?" }] }],
        tools: [
          {
            functionDeclarations: [
              {
                name: "weather",
                parametersJsonSchema: {
                  type: "Object",
                  properties: { city: { type: "string" }, days: { type: ["INTEGER", "null"] } },
                },
              },
            ],
          },
        ],
      },
    };
    const res = await send(matrix, request, "anthropic");
    assert.equal(res.status, 200, res.text);
    const tool = (matrix.fakes.anthropic.requests[0].body as any).tools[0];
    assert.deepEqual(tool.input_schema, {
      type: "object",
      properties: { city: { type: "string" }, days: { type: ["integer", "null"] } },
    });
  });

  test("a name that is no type in either spelling is still a 400 naming the field", async () => {
    const request: ClientRequest = {
      ...classifier,
      body: {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        generationConfig: { responseMimeType: "application/json", responseJsonSchema: { type: "MAP" } },
      },
    };
    const res = await send(matrix, request, "gemini");
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /generationConfig\.responseJsonSchema\.type/);
  });
});

describe("Claude Code's tool search: tool_reference, defer_loading, the tool search tools", () => {
  const claudeCode = fixture("claude-code-tool-search.json");
  const serverSearch = fixture("anthropic-server-tool-search.json");

  test("relayed to a messages upstream unchanged, the beta with it", async () => {
    for (const request of [claudeCode, fixture("claude-code-tool-search-loaded.json"), serverSearch]) {
      matrix.reset();
      const res = await send(matrix, request, "anthropic");
      assert.equal(res.status, 200, res.text);
      const sent = matrix.fakes.anthropic.requests[0];
      // `metadata` is the one member the messages face strips on every route (docs/architecture.md §8).
      const { model: _model, ...body } = sent.body;
      const { metadata: _metadata, ...expected } = request.body;
      assert.deepEqual(body, expected);
      assert.match(String(sent.headers["anthropic-beta"]), /advanced-tool-use-2025-11-20/);
      // Nothing of the tool search was left out, so nothing of it is named.
      assert.doesNotMatch(res.headers.get("x-switchyard-ignored") ?? "", /tools|content/);
    }
  });

  /** Where the fixture's one tool_reference sits, and the index of each tool by name. */
  function layout(request: ClientRequest) {
    const body = request.body as any;
    let reference = "";
    body.messages.forEach((message: any, i: number) => {
      if (!Array.isArray(message.content)) return;
      message.content.forEach((block: any, j: number) => {
        if (block.type !== "tool_result" || !Array.isArray(block.content)) return;
        block.content.forEach((inner: any, k: number) => {
          if (inner.type === "tool_reference") reference = `messages[${i}].content[${j}].content[${k}]`;
        });
      });
    });
    const toolAt = (name: string) => body.tools.findIndex((t: any) => t.name === name);
    return { reference, toolAt };
  }

  // Written from its docs (an MCP tool loaded), and captured from the pinned Claude Code (WebFetch).
  const cases = [
    { request: claudeCode, loaded: "mcp__github__create_issue", hidden: "mcp__github__list_issues" },
    {
      request: fixture("claude-code-tool-search-loaded.json"),
      loaded: "WebFetch",
      hidden: "DeferredToolPlaceholder",
    },
  ];
  for (const { request, loaded, hidden } of cases)
    for (const upstream of ["openai", "gemini", "openai-responses"] as const)
      test(`${request.file} translated to ${upstream}: ${loaded} in full, the reference as text, ${hidden} named`, async () => {
        const res = await send(matrix, request, upstream);
        assert.equal(res.status, 200, res.text);
        const sent = JSON.stringify(matrix.fakes[upstream].requests[0].body);
        const { reference, toolAt } = layout(request);
        const description = (request.body as any).tools[toolAt(loaded)].description as string;
        for (const name of ["Bash", "ToolSearch", loaded])
          assert.ok(sent.includes(`"${name}"`), `${name} not offered upstream`);
        assert.ok(sent.includes(JSON.stringify(description).slice(1, 40)), "the loaded tool's description");
        assert.ok(!sent.includes(`"${hidden}"`), "a deferred tool not loaded reached the upstream");
        assert.ok(sent.includes(`Tool loaded: ${loaded}`), "the reference as text");
        assert.ok(!sent.includes("tool_reference") && !sent.includes("defer_loading"));
        const ignored = (res.headers.get("x-switchyard-ignored") ?? "").split(/,\s*/);
        for (const name of [`tools[${toolAt(hidden)}]`, `tools[${toolAt(loaded)}].defer_loading`, reference])
          assert.ok(ignored.includes(name), `${name} not in x-switchyard-ignored: ${ignored}`);
      });

  test("with the tool search server tool, which no other upstream runs, every deferred tool goes in full", async () => {
    const res = await send(matrix, serverSearch, "openai");
    assert.equal(res.status, 200, res.text);
    const tools = (matrix.fakes.openai.requests[0].body as any).tools.map((t: any) => t.function.name);
    assert.deepEqual(tools, ["get_weather", "search_files"]);
  });

  test("a tool_reference without a tool name is a 400 naming it", async () => {
    const body = structuredClone(claudeCode.body) as any;
    body.messages[2].content[0].content = [{ type: "tool_reference" }];
    const res = await send(matrix, { ...claudeCode, body }, "anthropic");
    assert.equal(res.status, 400, res.text);
    assert.match(res.text, /messages\[2\]\.content\[0\]\.content\[0\]\.tool_name/);
  });
});

test("a deferred tool that tool_choice names is offered to another upstream, so the choice holds", async () => {
  const request = fixture("claude-code-tool-search.json");
  const body = { ...request.body, tool_choice: { type: "tool", name: "mcp__github__list_issues" } };
  const res = await send(matrix, { ...request, body }, "openai");
  assert.equal(res.status, 200, res.text);
  const sent = matrix.fakes.openai.requests[0].body as any;
  assert.ok(sent.tools.some((t: any) => t.function.name === "mcp__github__list_issues"));
  assert.deepEqual(sent.tool_choice, { type: "function", function: { name: "mcp__github__list_issues" } });
});

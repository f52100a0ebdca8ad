// The 4 × 4 matrix, Responses API column: the unmodified `openai` SDK (`responses.create` and
// `responses.stream`) against one gateway whose four models are served by fake OpenAI chat, Anthropic,
// Gemini and OpenAI Responses upstreams, each route streamed and not. Every test asserts what the
// client got AND what the upstream received. Plus: the same-protocol relay is byte-exact but for id
// and model, and what a translation cannot carry (Codex's namespace and web_search tools) is dropped
// and named, never refused.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import OpenAI from "openai";
import type { RecordedRequest } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import {
  ANSWER,
  ASSISTANT_1,
  callId,
  IMAGE_PROMPT,
  IMAGE_URL,
  JSON_ANSWER,
  JSON_PROMPT,
  JSON_SCHEMA,
  LENGTH_MAX_TOKENS,
  MULTIBYTE_TEXT,
  PARALLEL_ARGS,
  PARALLEL_PROMPT,
  PARALLEL_RESULTS,
  PNG_BASE64,
  parallelReply,
  STOP_PROMPT,
  SYSTEM,
  TEMPERATURE,
  THINKING_SIGNATURE,
  THINKING_TEXT,
  TIME_TOOL,
  TOOL_ANSWER,
  TOOL_PROMPT,
  textReply,
  thinkingReply,
  toolCallReply,
  USAGE,
  USER_1,
  USER_2,
  WEATHER_ARGS,
  WEATHER_RESULT,
  WEATHER_RESULT_TEXT,
  WEATHER_TOOL,
} from "./fixtures.ts";
import { type Matrix, MODEL, startMatrix, UPSTREAM_MODEL, UPSTREAMS, type Upstream } from "./harness.ts";
import {
  checkClientCallId,
  checkEnvelope,
  checkImages,
  checkJsonFormat,
  checkMultiTurn,
  checkNothingElse,
  checkPrompt,
  checkReasoningSettings,
  checkSignaturesReplayed,
  checkToolsOffered,
  checkToolTurn,
  type ReasoningExpectation,
  type Route,
  responsesMessage,
  routeName,
} from "./upstream-checks.ts";
import { reportedUsage } from "./usage-expectations.ts";
import { frameData, replaceFirstString, sseFrames } from "./wire-text.ts";

type Json = Record<string, any>;
type Params = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">;
type Item = OpenAI.Responses.ResponseInputItem;

let m: Matrix;
let client: OpenAI;

before(async () => {
  m = await startMatrix();
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${m.gw.url}/v1`, maxRetries: 0 });
});
after(() => m?.close());
beforeEach(() => m.reset());

const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: "function",
    name: WEATHER_TOOL.name,
    description: WEATHER_TOOL.description,
    parameters: WEATHER_TOOL.schema as unknown as Record<string, unknown>,
    strict: false,
  },
  {
    type: "function",
    name: TIME_TOOL.name,
    description: TIME_TOOL.description,
    parameters: TIME_TOOL.schema as unknown as Record<string, unknown>,
    strict: false,
  },
];

const FORMAT = { type: "json_schema" as const, name: "weather", schema: JSON_SCHEMA, strict: true };

/** reasoning effort "low" with a summary, as each upstream must receive it (documented mapping). */
const REASONING: ReasoningExpectation = {
  openai: { reasoning_effort: "low" },
  anthropic: { thinking: { type: "enabled", budget_tokens: 2048 } },
  gemini: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
  "openai-responses": { reasoning: { effort: "low", summary: "auto" } },
};
const ASK_REASONING = {
  reasoning: { effort: "low" as const, summary: "auto" as const },
  include: ["reasoning.encrypted_content" as const],
};

/** What one call gave the client: the assembled response and, when streamed, every event. */
interface Result {
  response: OpenAI.Responses.Response;
  events: OpenAI.Responses.ResponseStreamEvent[];
}

/** Sends without asking anything to be stored, as Codex CLI and the Agents SDK do. */
async function respond(route: Route, params: Params): Promise<Result> {
  const stateless = { ...params, store: false };
  if (!route.stream)
    return { response: await client.responses.create({ ...stateless, stream: false }), events: [] };
  const stream = client.responses.stream(stateless);
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { response: await stream.finalResponse(), events };
}

function user(text: string): Item {
  return responsesMessage("user", text) as Item;
}

function calls(result: Result): OpenAI.Responses.ResponseFunctionToolCall[] {
  return result.response.output.filter((item) => item.type === "function_call");
}

function only(fake: Upstream): RecordedRequest {
  assert.equal(m.fakes[fake].requests.length, 1, "one upstream request");
  return m.fakes[fake].requests[0];
}

/** Every event in order, sequence numbers from 0; the response named by the generation id and catalog model. */
function checkIdentity(result: Result, upstream: Upstream): void {
  assert.match(result.response.id, /^gen-/);
  assert.equal(result.response.model, MODEL[upstream]);
  if (result.events.length === 0) return;
  result.events.forEach((event, i) => {
    assert.equal(event.sequence_number, i, `${event.type} in order`);
  });
  assert.equal(result.events[0].type, "response.created");
  assert.equal(result.events[1].type, "response.in_progress");
  for (const event of result.events)
    if ("response" in event) {
      assert.equal(event.response.id, result.response.id, "every lifecycle event names the generation");
      assert.equal(event.response.model, MODEL[upstream]);
    }
}

function eventsOf<T extends OpenAI.Responses.ResponseStreamEvent["type"]>(
  result: Result,
  type: T,
): Array<Extract<OpenAI.Responses.ResponseStreamEvent, { type: T }>> {
  return result.events.filter(
    (e): e is Extract<OpenAI.Responses.ResponseStreamEvent, { type: T }> => e.type === type,
  );
}

for (const upstream of UPSTREAMS) {
  for (const stream of [false, true]) {
    const route: Route = { client: "openai-responses", upstream, stream };
    const model = MODEL[upstream];
    const fake = () => m.fakes[upstream];

    describe(routeName(route), () => {
      test("multi-turn text with instructions", async () => {
        fake().script(textReply(ANSWER));
        const result = await respond(route, {
          model,
          instructions: SYSTEM,
          input: [user(USER_1), responsesMessage("assistant", ASSISTANT_1) as Item, user(USER_2)],
          temperature: TEMPERATURE,
        });
        assert.equal(result.response.output_text, ANSWER);
        assert.equal(result.response.status, "completed");
        checkIdentity(result, upstream);
        if (stream) {
          assert.ok(eventsOf(result, "response.output_text.delta").length >= 2, "text arrives in pieces");
          assert.equal(result.events.at(-1)?.type, "response.completed");
        }
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkMultiTurn(req, route);
        checkNothingElse(req);
      });

      test("an image as base64 PNG and as a URL", async () => {
        fake().script(textReply("A transparent pixel and a cat."));
        const result = await respond(route, {
          model,
          input: [
            {
              type: "message",
              role: "user",
              content: [
                { type: "input_text", text: IMAGE_PROMPT },
                { type: "input_image", detail: "auto", image_url: `data:image/png;base64,${PNG_BASE64}` },
                { type: "input_image", detail: "auto", image_url: IMAGE_URL },
              ],
            },
          ],
        });
        assert.equal(result.response.output_text, "A transparent pixel and a cat.");
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkImages(req, route);
        checkNothingElse(req);
      });

      test("a function call whose arguments arrive in pieces, then the function-output turn", async () => {
        fake().script(toolCallReply(upstream), textReply(TOOL_ANSWER));
        const first = await respond(route, {
          model,
          input: [user(TOOL_PROMPT)],
          tools: TOOLS,
          tool_choice: "required",
        });
        assert.equal(first.response.status, "completed");
        const [call] = calls(first);
        assert.ok(call, JSON.stringify(first.response.output));
        assert.equal(call.name, WEATHER_TOOL.name);
        assert.deepEqual(JSON.parse(call.arguments), WEATHER_ARGS);
        checkClientCallId(call.call_id, callId(upstream, 1));
        if (stream) {
          const pieces = eventsOf(first, "response.function_call_arguments.delta").map((e) => e.delta);
          // Gemini sends a call whole; the others stream the arguments text, passed on piece by piece.
          if (upstream === "gemini") assert.equal(pieces.length, 1);
          else assert.ok(pieces.length >= 3, `arguments in ${pieces.length} pieces`);
          assert.equal(pieces.join(""), call.arguments);
          assert.equal(eventsOf(first, "response.function_call_arguments.done")[0].arguments, call.arguments);
        }
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route, "required");
        checkNothingElse(req1);

        // The next turn replays the output as the SDK returned it, then the function's output.
        const second = await respond(route, {
          model,
          input: [
            user(TOOL_PROMPT),
            ...(first.response.output as Item[]),
            { type: "function_call_output", call_id: call.call_id, output: WEATHER_RESULT_TEXT },
          ],
          tools: TOOLS,
        });
        assert.equal(second.response.output_text, TOOL_ANSWER);
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, undefined);
        checkToolsOffered(req2, route);
        checkToolTurn(
          req2,
          route,
          TOOL_PROMPT,
          [{ id: callId(upstream, 1), name: WEATHER_TOOL.name, args: WEATHER_ARGS }],
          [WEATHER_RESULT],
        );
        checkNothingElse(req2);
      });

      test("two parallel function calls, answered together", async () => {
        fake().script(parallelReply(upstream), textReply(TOOL_ANSWER));
        const first = await respond(route, {
          model,
          input: [user(PARALLEL_PROMPT)],
          tools: TOOLS,
          tool_choice: "auto",
        });
        const got = calls(first);
        assert.deepEqual(
          got.map((c) => ({ name: c.name, args: JSON.parse(c.arguments) })),
          PARALLEL_ARGS.map((args) => ({ name: WEATHER_TOOL.name, args })),
        );
        got.forEach((c, i) => {
          checkClientCallId(c.call_id, callId(upstream, i + 1));
        });
        assert.equal(new Set(got.map((c) => c.call_id)).size, 2, "distinct call ids");
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, PARALLEL_PROMPT);
        checkToolsOffered(req1, route, "auto");
        checkNothingElse(req1);

        await respond(route, {
          model,
          input: [
            user(PARALLEL_PROMPT),
            ...(first.response.output as Item[]),
            ...got.map(
              (c, i): Item => ({
                type: "function_call_output",
                call_id: c.call_id,
                output: JSON.stringify(PARALLEL_RESULTS[i]),
              }),
            ),
          ],
          tools: TOOLS,
        });
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, undefined);
        checkToolsOffered(req2, route);
        checkToolTurn(
          req2,
          route,
          PARALLEL_PROMPT,
          PARALLEL_ARGS.map((args, i) => ({ id: callId(upstream, i + 1), name: WEATHER_TOOL.name, args })),
          PARALLEL_RESULTS,
        );
        checkNothingElse(req2);
      });

      test("structured JSON output (text.format json_schema)", async () => {
        fake().script(textReply(JSON.stringify(JSON_ANSWER)));
        const result = await respond(route, { model, input: [user(JSON_PROMPT)], text: { format: FORMAT } });
        assert.deepEqual(JSON.parse(result.response.output_text), JSON_ANSWER);
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkPrompt(req, route, JSON_PROMPT);
        // The same format as chat-completions writes it, which the checks compare with.
        checkJsonFormat(req, route, {
          type: "json_schema",
          json_schema: { name: FORMAT.name, schema: JSON_SCHEMA, strict: true },
        });
        checkNothingElse(req);
      });

      test("the max-output-tokens limit ends the response as incomplete", async () => {
        fake().script(textReply("One two three four five", { finish: "length" }));
        const result = await respond(route, {
          model,
          input: [user(STOP_PROMPT)],
          max_output_tokens: LENGTH_MAX_TOKENS,
        });
        assert.equal(result.response.status, "incomplete");
        assert.deepEqual(result.response.incomplete_details, { reason: "max_output_tokens" });
        if (stream) assert.equal(result.events.at(-1)?.type, "response.incomplete");
        const req = only(upstream);
        checkEnvelope(req, route, LENGTH_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkNothingElse(req);
      });

      test("thinking signatures survive a second tool-calling turn", async () => {
        fake().script(thinkingReply(upstream), textReply(TOOL_ANSWER));
        const first = await respond(route, {
          model,
          input: [user(TOOL_PROMPT)],
          tools: TOOLS,
          ...ASK_REASONING,
        });
        const reasoning = first.response.output.filter((item) => item.type === "reasoning");
        assert.equal(reasoning.length, 1, JSON.stringify(first.response.output));
        assert.deepEqual(reasoning[0].summary, [{ type: "summary_text", text: THINKING_TEXT }]);
        assert.equal(
          reasoning[0].encrypted_content,
          THINKING_SIGNATURE,
          "the signature rides in encrypted_content",
        );
        if (stream)
          assert.equal(
            eventsOf(first, "response.reasoning_summary_text.delta")
              .map((e) => e.delta)
              .join(""),
            THINKING_TEXT,
          );
        const [call] = calls(first);
        assert.equal(call?.name, WEATHER_TOOL.name);
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route);
        checkReasoningSettings(req1, route, REASONING);
        checkNothingElse(req1);

        await respond(route, {
          model,
          input: [
            user(TOOL_PROMPT),
            ...(first.response.output as Item[]),
            { type: "function_call_output", call_id: call.call_id, output: WEATHER_RESULT_TEXT },
          ],
          tools: TOOLS,
          ...ASK_REASONING,
        });
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, undefined);
        checkToolsOffered(req2, route);
        checkReasoningSettings(req2, route, REASONING);
        checkSignaturesReplayed(req2, route);
        checkToolTurn(
          req2,
          route,
          TOOL_PROMPT,
          [{ id: callId(upstream, 1), name: WEATHER_TOOL.name, args: { city: "Paris" } }],
          [WEATHER_RESULT],
        );
        checkNothingElse(req2);
      });

      test("usage: input includes cache, output includes reasoning, every detail present", async () => {
        fake().script(textReply("ok", { usage: USAGE }));
        const result = await respond(route, { model, input: [user("hi")] });
        const n = reportedUsage(upstream);
        const usage = result.response.usage as Json;
        assert.equal(usage.input_tokens, n.prompt);
        assert.equal(usage.output_tokens, n.completion);
        assert.equal(usage.total_tokens, n.prompt + n.completion);
        assert.equal(usage.input_tokens_details.cached_tokens, n.cacheRead);
        assert.equal(usage.input_tokens_details.cache_write_tokens, n.cacheWrite5m + n.cacheWrite1h);
        // Codex fails on a missing reasoning_tokens: always there, 0 when the upstream says nothing.
        assert.equal(usage.output_tokens_details.reasoning_tokens, n.reasoning);
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkPrompt(req, route, "hi");
        checkNothingElse(req);
      });

      if (stream)
        test("multi-byte text split across network reads arrives intact", async () => {
          fake().script(textReply(MULTIBYTE_TEXT, { chunks: 1 }));
          const result = await respond(route, { model, input: [user("Echo.")] });
          assert.equal(result.response.output_text, MULTIBYTE_TEXT);
        });
    });
  }
}

describe("what a translation cannot carry is dropped and named, never refused (Codex's request)", () => {
  const CODEX_TOOLS = [
    {
      type: "function",
      name: "shell_command",
      description: "Runs a shell command.",
      strict: false,
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
    },
    {
      type: "namespace",
      name: "mcp__files",
      description: "Files",
      tools: [{ type: "function", name: "read" }],
    },
    { type: "web_search", external_web_access: false },
  ];

  async function post(modelId: string): Promise<Response> {
    return fetch(`${m.gw.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: modelId,
        instructions: "You are Codex.",
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "List the files." }] },
        ],
        tools: CODEX_TOOLS,
        tool_choice: "auto",
        parallel_tool_calls: true,
        reasoning: { summary: "auto" },
        store: false,
        stream: true,
        include: ["reasoning.encrypted_content"],
        prompt_cache_key: "019a-session",
        client_metadata: { "x-codex-turn": "1" },
      }),
    });
  }

  test("to a chat upstream: the function tool and the namespace's tools go, web_search is named", async () => {
    m.fakes.openai.script(textReply("Listing."));
    const res = await post(MODEL.openai);
    assert.equal(res.status, 200);
    const ignored = (res.headers.get("x-switchyard-ignored") ?? "").split(", ");
    assert.deepEqual(ignored, ["tools[].web_search", "prompt_cache_key"]);
    const text = await res.text();
    assert.ok(text.includes("event: response.completed"), text.slice(-300));
    const body = m.fakes.openai.requests[0].body;
    assert.deepEqual(
      body.tools.map((t: Json) => t.function.name),
      ["shell_command", "mcp__files__read"],
    );
  });

  test("a call of a namespace's tool (flattened toward the upstream) reaches the client naming its group, and goes back", async () => {
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${m.gw.url}/v1`, maxRetries: 0 });
    m.fakes.anthropic.script(
      {
        blocks: [{ type: "tool_call", id: "toolu_ns_1", name: "mcp__files__read", args: { path: "a.txt" } }],
      },
      textReply("It says hi."),
    );
    const tools = CODEX_TOOLS as OpenAI.Responses.Tool[];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "Read a.txt" }];
    const first = await client.responses
      .stream({ model: MODEL.anthropic, input, tools, store: false })
      .finalResponse();
    const call = first.output.find((item) => item.type === "function_call");
    assert.ok(call && call.type === "function_call", JSON.stringify(first.output));
    assert.deepEqual(
      { name: call.name, namespace: call.namespace, arguments: call.arguments },
      { name: "read", namespace: "mcp__files", arguments: '{"path":"a.txt"}' },
    );
    // The response echoes the tools as the client wrote them, the group regrouped.
    assert.deepEqual(
      (first.tools as Json[]).map((t) => [t.type, t.name]),
      [
        ["function", "shell_command"],
        ["namespace", "mcp__files"],
      ],
    );
    await client.responses.create({
      model: MODEL.anthropic,
      input: [
        ...input,
        {
          type: "function_call",
          call_id: call.call_id,
          name: "read",
          namespace: "mcp__files",
          arguments: call.arguments,
        },
        { type: "function_call_output", call_id: call.call_id, output: "hi" },
      ],
      tools,
      store: false,
    });
    const messages = m.fakes.anthropic.requests[1].body.messages;
    const use = messages[1].content.find((b: Json) => b.type === "tool_use");
    assert.deepEqual({ id: use.id, name: use.name }, { id: "toolu_ns_1", name: "mcp__files__read" });
    assert.equal(messages[2].content[0].tool_use_id, "toolu_ns_1");
  });

  test("to a Responses upstream (relayed): every tool goes as the client wrote it, nothing is named", async () => {
    m.fakes["openai-responses"].script(textReply("Listing."));
    const res = await post(MODEL["openai-responses"]);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-switchyard-ignored"), null);
    await res.text();
    assert.deepEqual(m.fakes["openai-responses"].requests[0].body.tools, CODEX_TOOLS);
  });
});

describe("Responses relay (Responses client → Responses upstream) is byte-exact but for id and model", () => {
  const EXTRA = { x_vendor_trace: { id: "nested-id", model: "nested-model" }, x_flag: [1, 2.5] };

  /** A body with what the gateway does not translate: hosted tools, a reasoning item, unknown fields. */
  function rawBody(stream: boolean): string {
    return (
      '{"model":"fr/m",' +
      (stream ? '"stream":true,' : "") +
      '"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"Weather? \\u00e9t\\u00e9"}]},' +
      '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAA+/=="},' +
      '{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"},' +
      '{"type":"function_call_output","call_id":"call_1","output":"18 \\u00b0C"}],' +
      '"tools":[{"type":"web_search"},{"type":"function","name":"get_weather","parameters":{"type":"object"},"strict":false}],' +
      '"include":["reasoning.encrypted_content"],"reasoning":{"effort":"low","summary":"auto"},' +
      '"store":false,"prompt_cache_key":"k-1","x_unknown_field":{"keep":[1,2.50]},"temperature":0.70}'
    );
  }

  async function post(raw: string): Promise<{ text: string; id: string }> {
    const res = await fetch(`${m.gw.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: raw,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const id = res.headers.get("x-generation-id") ?? "";
    assert.match(id, /^gen-/);
    return { text: await res.text(), id };
  }

  function checkRequest(raw: string): void {
    const req = m.fakes["openai-responses"].requests[0];
    assert.equal(
      req.rawBody,
      raw.replace('"model":"fr/m"', `"model":"${UPSTREAM_MODEL["openai-responses"]}"`),
    );
  }

  function identity(data: string, id: string): string {
    return replaceFirstString(replaceFirstString(data, "id", id), "model", MODEL["openai-responses"]);
  }

  test("a whole response", async () => {
    const raw = rawBody(false);
    m.fakes["openai-responses"].script(textReply("Sunny.", { extraFields: EXTRA }));
    const { text, id } = await post(raw);
    checkRequest(raw);
    assert.equal(text, identity(m.taps["openai-responses"].answers[0].text, id));
    assert.deepEqual(JSON.parse(text).x_vendor_trace, EXTRA.x_vendor_trace, "nested id/model untouched");
  });

  test("a stream: every event as sent, the response object of lifecycle events with the generation's id", async () => {
    const raw = rawBody(true);
    m.fakes["openai-responses"].script({
      blocks: [
        { type: "thinking", text: "Checking.", signature: "gAAAA-2" },
        { type: "text", text: "Sunny and 18 degrees." },
      ],
      extraFields: EXTRA,
      usage: USAGE,
    });
    const { text, id } = await post(raw);
    checkRequest(raw);
    const lifecycle = /^event: response\.(created|in_progress|completed|incomplete|failed)\n/;
    const expected = sseFrames(m.taps["openai-responses"].answers[0].text)
      .map((frame) => {
        const data = frameData(frame);
        const edited = lifecycle.test(frame) ? identity(data, id) : data;
        return `${frame.split("\n")[0]}\ndata: ${edited}\n\n`;
      })
      .join("");
    assert.equal(text, expected);
    assert.ok(text.includes('"encrypted_content":"gAAAA-2"'));
  });
});

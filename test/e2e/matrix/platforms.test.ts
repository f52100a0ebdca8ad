// The matrix's cloud-platform rows (platform-harness.ts): the four client protocols' official SDKs ×
// {Bedrock Anthropic, Bedrock Converse, Vertex Gemini, Vertex Anthropic, Azure chat, Azure Responses},
// streamed and not: a text answer and its lookup (the platform provider, the endpoint's exact cost),
// a tool round trip whose result reaches the upstream linked to its call, and a reasoning second
// turn whose signature reaches the upstream unchanged. The upstream side is checked in each
// platform's wire: the vendor's body (upstream-checks.ts) or Converse's.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { type Content, GoogleGenAI, type Part, type Schema } from "@google/genai";
import OpenAI from "openai";
import type { RecordedRequest, Reply } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import { lookupSettled, rawNumber } from "../../support/lookup.ts";
import {
  ANSWER,
  callId,
  THINKING_SIGNATURE,
  THINKING_TEXT,
  TOOL_ANSWER,
  TOOL_PROMPT,
  textReply,
  thinkingReply,
  toolCallReply,
  USER_1,
  WEATHER_ARGS,
  WEATHER_RESULT,
  WEATHER_RESULT_TEXT,
  WEATHER_TOOL,
} from "./fixtures.ts";
import type { Upstream } from "./harness.ts";
import {
  type PlatformMatrix,
  type PlatformRow,
  type PlatformWire,
  ROW_CLIENTS,
  type RowName,
  startPlatformMatrix,
} from "./platform-harness.ts";
import {
  checkClientCallId,
  checkSignaturesReplayed,
  checkToolTurn,
  responsesMessage,
} from "./upstream-checks.ts";

type Json = Record<string, any>;

/** The call id Bedrock's Converse issues in these tests. */
const CONVERSE_CALL_ID = "tooluse_Bx1q8RkTz01";
const PRICED_USAGE = { input: 1000, output: 500 };

let m: PlatformMatrix;
let drivers: Record<Upstream, Driver>;

before(async () => {
  m = await startPlatformMatrix();
  drivers = {
    openai: chatDriver(new OpenAI({ apiKey: PAYG_KEY, baseURL: `${m.gw.url}/v1`, maxRetries: 0 })),
    anthropic: messagesDriver(new Anthropic({ apiKey: PAYG_KEY, baseURL: m.gw.url, maxRetries: 0 })),
    gemini: geminiDriver(new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: m.gw.url } })),
    "openai-responses": responsesDriver(
      new OpenAI({ apiKey: PAYG_KEY, baseURL: `${m.gw.url}/v1`, maxRetries: 0 }),
    ),
  };
});
after(() => m?.close());
beforeEach(() => m.reset());

// ── What each client does, in its own SDK ────────────────────────────────────────────────────────

/** A first turn that called the weather tool: what the client saw, and what it sends back. */
interface ToolTurn {
  call: { id: string; name: string; args: unknown };
  /** The reasoning text the client was shown. */
  thinking: string;
  /** The client's next request, given the tool's result. */
  answer(): Promise<string>;
}

interface Driver {
  /** Asks USER_1; the answer's text and its generation id. */
  ask(model: string, stream: boolean): Promise<{ text: string; id: string }>;
  /** Asks TOOL_PROMPT with the weather tool offered, with reasoning on when asked. */
  askTool(model: string, stream: boolean, reasoning: boolean): Promise<ToolTurn>;
}

function chatDriver(client: OpenAI): Driver {
  const tools: OpenAI.ChatCompletionTool[] = [
    {
      type: "function",
      function: {
        name: WEATHER_TOOL.name,
        description: WEATHER_TOOL.description,
        parameters: WEATHER_TOOL.schema,
      },
    },
  ];
  async function chat(
    stream: boolean,
    params: Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "stream">,
  ) {
    if (!stream) {
      const completion = await client.chat.completions.create({ ...params, stream: false });
      const message: Json = completion.choices[0].message;
      return {
        completion,
        message,
        reasoning: message.reasoning ?? "",
        details: message.reasoning_details ?? [],
      };
    }
    const run = client.chat.completions.stream({ ...params, stream: true });
    const deltas: Json[] = [];
    for await (const chunk of run) if (chunk.choices[0]?.delta) deltas.push(chunk.choices[0].delta);
    const completion = await run.finalChatCompletion();
    // The SDK's helper keeps only the last piece of fields it does not know: gather them.
    const details = deltas.flatMap((d) => d.reasoning_details ?? []);
    const reasoning = deltas.map((d) => d.reasoning ?? "").join("");
    const message: Json = { ...completion.choices[0].message };
    if (details.length > 0) message.reasoning_details = details;
    if (reasoning) message.reasoning = reasoning;
    return { completion, message, reasoning, details };
  }
  return {
    async ask(model, stream) {
      const { completion, message } = await chat(stream, {
        model,
        messages: [{ role: "user", content: USER_1 }],
      });
      return { text: message.content, id: completion.id };
    },
    async askTool(model, stream, reasoning) {
      const effort = reasoning ? { reasoning_effort: "low" as const } : {};
      const prompt: OpenAI.ChatCompletionMessageParam = { role: "user", content: TOOL_PROMPT };
      const first = await chat(stream, { model, messages: [prompt], tools, ...effort });
      const call = first.message.tool_calls?.[0];
      assert.equal(call?.type, "function");
      return {
        call: { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) },
        thinking: first.reasoning,
        async answer() {
          const tool = { role: "tool" as const, tool_call_id: call.id, content: WEATHER_RESULT_TEXT };
          const next = await chat(stream, {
            model,
            messages: [prompt, first.message as OpenAI.ChatCompletionMessageParam, tool],
            tools,
            ...effort,
          });
          return next.message.content;
        },
      };
    },
  };
}

function messagesDriver(client: Anthropic): Driver {
  const tools: Anthropic.Tool[] = [
    {
      name: WEATHER_TOOL.name,
      description: WEATHER_TOOL.description,
      input_schema: WEATHER_TOOL.schema as unknown as Anthropic.Tool.InputSchema,
    },
  ];
  async function send(stream: boolean, params: Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">) {
    return stream
      ? client.messages.stream(params).finalMessage()
      : client.messages.create({ ...params, stream: false });
  }
  const textOf = (message: Anthropic.Message) =>
    message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  return {
    async ask(model, stream) {
      const message = await send(stream, {
        model,
        max_tokens: 1000,
        messages: [{ role: "user", content: [{ type: "text", text: USER_1 }] }],
      });
      return { text: textOf(message), id: message.id };
    },
    async askTool(model, stream, reasoning) {
      const params = {
        model,
        max_tokens: 4096,
        tools,
        ...(reasoning ? { thinking: { type: "enabled", budget_tokens: 2048 } as const } : {}),
      };
      const prompt: Anthropic.MessageParam = { role: "user", content: [{ type: "text", text: TOOL_PROMPT }] };
      const first = await send(stream, { ...params, messages: [prompt] });
      const use = first.content.find((b) => b.type === "tool_use");
      assert.ok(use);
      return {
        call: { id: use.id, name: use.name, args: use.input },
        thinking: first.content.flatMap((b) => (b.type === "thinking" ? [b.thinking] : [])).join(""),
        async answer() {
          const result: Anthropic.ToolResultBlockParam = {
            type: "tool_result",
            tool_use_id: use.id,
            content: [{ type: "text", text: WEATHER_RESULT_TEXT }],
          };
          const next = await send(stream, {
            ...params,
            messages: [
              prompt,
              { role: "assistant", content: first.content },
              { role: "user", content: [result] },
            ],
          });
          return textOf(next);
        },
      };
    },
  };
}

function geminiDriver(ai: GoogleGenAI): Driver {
  const tools = [
    {
      functionDeclarations: [
        {
          name: WEATHER_TOOL.name,
          description: WEATHER_TOOL.description,
          parameters: WEATHER_TOOL.geminiSchema as unknown as Schema,
        },
      ],
    },
  ];
  async function generate(model: string, stream: boolean, contents: Content[], config: Json = {}) {
    if (!stream) {
      const whole = await ai.models.generateContent({ model, contents, config });
      return { id: whole.responseId ?? "", parts: whole.candidates?.[0]?.content?.parts ?? [] };
    }
    const parts: Part[] = [];
    let id = "";
    for await (const chunk of await ai.models.generateContentStream({ model, contents, config })) {
      id = chunk.responseId ?? id;
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    }
    return { id, parts };
  }
  const textOf = (parts: Part[], thought: boolean) =>
    parts
      .filter((p) => p.text !== undefined && Boolean(p.thought) === thought)
      .map((p) => p.text)
      .join("");
  return {
    async ask(model, stream) {
      const { id, parts } = await generate(model, stream, [{ role: "user", parts: [{ text: USER_1 }] }]);
      return { text: textOf(parts, false), id };
    },
    async askTool(model, stream, reasoning) {
      const config = {
        tools,
        ...(reasoning ? { thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 } } : {}),
      };
      const prompt: Content = { role: "user", parts: [{ text: TOOL_PROMPT }] };
      const first = await generate(model, stream, [prompt], config);
      const call = first.parts.find((p) => p.functionCall)?.functionCall;
      assert.ok(call?.name);
      return {
        call: { id: call.id ?? "", name: call.name, args: call.args },
        thinking: textOf(first.parts, true),
        async answer() {
          const response: Part = {
            functionResponse: {
              ...(call.id ? { id: call.id } : {}),
              name: call.name,
              response: { ...WEATHER_RESULT },
            },
          };
          const next = await generate(
            model,
            stream,
            [prompt, { role: "model", parts: first.parts }, { role: "user", parts: [response] }],
            config,
          );
          return textOf(next.parts, false);
        },
      };
    },
  };
}

function responsesDriver(client: OpenAI): Driver {
  type Params = Omit<OpenAI.Responses.ResponseCreateParamsNonStreaming, "stream">;
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: "function",
      name: WEATHER_TOOL.name,
      description: WEATHER_TOOL.description,
      parameters: WEATHER_TOOL.schema as unknown as Record<string, unknown>,
      strict: false,
    },
  ];
  const askReasoning = {
    reasoning: { effort: "low" as const, summary: "auto" as const },
    include: ["reasoning.encrypted_content" as const],
  };
  // Nothing stored, as Codex CLI and the Agents SDK send.
  async function respond(stream: boolean, params: Params): Promise<OpenAI.Responses.Response> {
    const stateless = { ...params, store: false };
    return stream
      ? client.responses.stream(stateless).finalResponse()
      : client.responses.create({ ...stateless, stream: false });
  }
  const prompt = (text: string) => responsesMessage("user", text) as OpenAI.Responses.ResponseInputItem;
  return {
    async ask(model, stream) {
      const response = await respond(stream, { model, input: [prompt(USER_1)] });
      return { text: response.output_text, id: response.id };
    },
    async askTool(model, stream, reasoning) {
      const params = { model, tools, ...(reasoning ? askReasoning : {}) };
      const first = await respond(stream, { ...params, input: [prompt(TOOL_PROMPT)] });
      const call = first.output.find((item) => item.type === "function_call");
      assert.ok(call);
      const summary = first.output.flatMap((item) => (item.type === "reasoning" ? item.summary : []));
      return {
        call: { id: call.call_id, name: call.name, args: JSON.parse(call.arguments) },
        thinking: summary.map((s) => s.text).join(""),
        async answer() {
          const next = await respond(stream, {
            ...params,
            input: [
              prompt(TOOL_PROMPT),
              ...(first.output as OpenAI.Responses.ResponseInputItem[]),
              { type: "function_call_output", call_id: call.call_id, output: WEATHER_RESULT_TEXT },
            ],
          });
          return next.output_text;
        },
      };
    },
  };
}

// ── What each platform's upstream must have received ─────────────────────────────────────────────

/** The vendor's own checks read only the body; Converse has its own. */
function asRecorded(body: Json): RecordedRequest {
  return { body } as RecordedRequest;
}

function upstreamCallId(wire: PlatformWire): string | undefined {
  return wire === "converse" ? CONVERSE_CALL_ID : callId(wire, 1);
}

function toolCallScript(wire: PlatformWire): Reply {
  if (wire !== "converse") return toolCallReply(wire);
  return {
    blocks: [{ type: "tool_call", id: CONVERSE_CALL_ID, name: WEATHER_TOOL.name, args: WEATHER_ARGS }],
    chunks: 4,
  };
}

function thinkingScript(wire: PlatformWire): Reply {
  if (wire !== "converse") return thinkingReply(wire);
  return {
    blocks: [
      { type: "thinking", text: THINKING_TEXT, signature: THINKING_SIGNATURE },
      { type: "tool_call", id: CONVERSE_CALL_ID, name: WEATHER_TOOL.name, args: { city: "Paris" } },
    ],
    chunks: 3,
  };
}

/** The second request: the prompt, the assistant's call, and the result answering it by id. */
function checkResultLinked(
  row: PlatformRow,
  client: Upstream,
  stream: boolean,
  body: Json,
  args: object,
): void {
  if (row.wire !== "converse") {
    const calls = [{ id: callId(row.wire, 1), name: WEATHER_TOOL.name, args }];
    checkToolTurn(asRecorded(body), { client, upstream: row.wire, stream }, TOOL_PROMPT, calls, [
      WEATHER_RESULT,
    ]);
    return;
  }
  const messages: Json[] = body.messages;
  assert.equal(messages.length, 3, JSON.stringify(messages));
  assert.deepEqual(messages[0], { role: "user", content: [{ text: TOOL_PROMPT }] });
  const uses = messages[1].content.flatMap((b: Json) => (b.toolUse ? [b.toolUse] : []));
  assert.deepEqual(uses, [{ toolUseId: CONVERSE_CALL_ID, name: WEATHER_TOOL.name, input: args }]);
  const results = messages[2].content.flatMap((b: Json) => (b.toolResult ? [b.toolResult] : []));
  assert.equal(results.length, 1, JSON.stringify(messages[2]));
  assert.equal(results[0].toolUseId, CONVERSE_CALL_ID, "the result answers the call");
  const [content] = results[0].content;
  assert.deepEqual(content.json ?? JSON.parse(content.text), WEATHER_RESULT);
}

/** The second request carries the reasoning and EXACTLY the signature the upstream issued. */
function checkSignatureBack(row: PlatformRow, client: Upstream, stream: boolean, body: Json): void {
  if (row.wire !== "converse") {
    checkSignaturesReplayed(asRecorded(body), { client, upstream: row.wire, stream });
    return;
  }
  const assistant = body.messages.find((message: Json) => message.role === "assistant");
  const reasoning = assistant.content.flatMap((b: Json) => (b.reasoningContent ? [b.reasoningContent] : []));
  assert.deepEqual(reasoning, [{ reasoningText: { text: THINKING_TEXT, signature: THINKING_SIGNATURE } }]);
}

// ── The table ────────────────────────────────────────────────────────────────────────────────────

for (const [rowName, clients] of Object.entries(ROW_CLIENTS) as Array<[RowName, readonly Upstream[]]>)
  for (const client of clients)
    for (const stream of [false, true])
      describe(`${client} client → ${rowName}${stream ? ", streamed" : ""}`, () => {
        const row = () => m.rows.find((r) => r.name === rowName)!;

        test("text; the lookup names the platform provider and prices the endpoint exactly", async () => {
          row().script(textReply(ANSWER, { usage: PRICED_USAGE }));
          const answer = await drivers[client].ask(row().model, stream);
          assert.equal(answer.text, ANSWER);
          assert.equal(row().bodies().length, 1, "one upstream request");
          const generation = await lookupSettled(m.gw.url, answer.id, PAYG_KEY);
          assert.equal(generation.provider, row().provider);
          assert.equal(rawNumber(generation, "billAmount"), row().cost);
        });

        test("tool round trip: the result reaches the upstream linked to its call", async () => {
          row().script(toolCallScript(row().wire), textReply(TOOL_ANSWER));
          const turn = await drivers[client].askTool(row().model, stream, false);
          assert.deepEqual(
            { name: turn.call.name, args: turn.call.args },
            { name: WEATHER_TOOL.name, args: WEATHER_ARGS },
          );
          // Gemini names no call: relayed, its call reaches a Gemini client as Gemini sent it.
          if (client === "gemini" && row().wire === "gemini") assert.equal(turn.call.id, "");
          else checkClientCallId(turn.call.id, upstreamCallId(row().wire));
          assert.equal(await turn.answer(), TOOL_ANSWER);
          const bodies = row().bodies();
          assert.equal(bodies.length, 2);
          checkResultLinked(row(), client, stream, bodies[1]!, WEATHER_ARGS);
        });

        test("reasoning second turn: the signature goes back upstream unchanged", async () => {
          row().script(thinkingScript(row().wire), textReply(TOOL_ANSWER));
          const turn = await drivers[client].askTool(row().model, stream, true);
          assert.equal(turn.thinking, THINKING_TEXT);
          assert.equal(await turn.answer(), TOOL_ANSWER);
          const bodies = row().bodies();
          assert.equal(bodies.length, 2);
          checkSignatureBack(row(), client, stream, bodies[1]!);
          checkResultLinked(row(), client, stream, bodies[1]!, { city: "Paris" });
        });
      });

test("Vertex's access token was renewed during the run, never sent expired", async () => {
  const vertexRows = m.rows.filter((r) => r.provider === "pv");
  if (m.tokens.issued.length < 2) {
    // A run faster than a token's 0.8 s: wait until it is due, then call once more.
    await new Promise((resolve) => setTimeout(resolve, 850));
    vertexRows[0]!.script(textReply(ANSWER));
    assert.equal((await drivers.openai.ask(vertexRows[0]!.model, false)).text, ANSWER);
  }
  assert.ok(m.tokens.issued.length >= 2, `tokens issued: ${m.tokens.issued.length}`);
});

// Known traps (docs/architecture.md §10), streamed tool calls, end to end through the gateway:
//
//   maximhq/bifrost#3443         messages→chat streams repeated `function.type` on every chunk, sent an
//                                empty `arguments: ""` chunk, and left an argument-less call as "" not "{}"
//   maximhq/bifrost#2786, #2048  `input_json_delta` pieces stalled and arrived in one burst
//   BerriAI/litellm#25605        streamed messages-protocol tool calls via an OpenAI-style upstream came
//                                back with `input: {}` while the whole answer was right
//   maximhq/bifrost#6523         the opening role-only chat delta was dropped
//   Portkey-AI/gateway#1399      messages-protocol streams lacked `role: assistant`
//   Portkey-AI/gateway PR #949   an upstream `event: error` mid-stream was not caught

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { FakeUpstream, Reply } from "../../fakes/index.ts";
import {
  anthropicClient,
  type Face,
  headersFor,
  jsonFrames,
  openaiClient,
  pathFor,
  postStream,
  type Routes,
  type SseFrame,
  startRoutes,
} from "./routes.ts";

let routes: Routes;
before(async () => {
  routes = await startRoutes();
});
after(() => routes?.close());
beforeEach(() => routes.reset());

const ARGS = { city: "Oslo", unit: "celsius", days: 3, detail: { hourly: true, alerts: ["wind", "snow"] } };
const TOOL_SCHEMA = {
  type: "object",
  properties: {
    city: { type: "string" },
    unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    days: { type: "integer" },
    detail: {
      type: "object",
      properties: { hourly: { type: "boolean" }, alerts: { type: "array", items: { type: "string" } } },
    },
  },
  required: ["city"],
};

function streamBody(face: Face, model: string): unknown {
  const ask = "Forecast for Oslo, please.";
  if (face === "chat")
    return {
      model,
      stream: true,
      messages: [{ role: "user", content: ask }],
      tools: [
        { type: "function", function: { name: "forecast", parameters: TOOL_SCHEMA } },
        { type: "function", function: { name: "now" } },
      ],
    };
  if (face === "messages")
    return {
      model,
      stream: true,
      max_tokens: 1024,
      messages: [{ role: "user", content: ask }],
      tools: [
        { name: "forecast", input_schema: TOOL_SCHEMA },
        { name: "now", input_schema: { type: "object", properties: {} } },
      ],
    };
  return {
    contents: [{ role: "user", parts: [{ text: ask }] }],
    tools: [
      { functionDeclarations: [{ name: "forecast", parametersJsonSchema: TOOL_SCHEMA }, { name: "now" }] },
    ],
  };
}

function stream(face: Face, model: string, fake: FakeUpstream, reply: Reply) {
  fake.script(reply);
  return postStream(routes.gw, pathFor(face, model, true), streamBody(face, model), headersFor(face));
}

const CALLS: Reply = {
  blocks: [
    { type: "text", text: "Looking it up." },
    { type: "tool_call", name: "forecast", args: ARGS },
    { type: "tool_call", name: "now", args: {} },
  ],
  chunks: 5,
};

describe("chat-completions tool-call chunks as clients assemble them (bifrost#3443)", () => {
  for (const [name, fake] of [
    ["Anthropic", () => routes.anthropic],
    ["Gemini", () => routes.gemini],
  ] as const) {
    test(`from a ${name} upstream: type and id once, no empty argument piece, "{}" for no arguments`, async () => {
      const model = name === "Anthropic" ? "fa/claude" : "fg/flash";
      const res = await stream("chat", model, fake(), CALLS);
      assert.equal(res.status, 200);
      const pieces = jsonFrames(res.frames).flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
      const byIndex = new Map<number, any[]>();
      for (const piece of pieces) byIndex.set(piece.index, [...(byIndex.get(piece.index) ?? []), piece]);
      assert.equal(byIndex.size, 2);
      const assembled: Record<string, string> = {};
      for (const [index, list] of byIndex) {
        const [opening, ...rest] = list;
        assert.equal(opening.type, "function", `call ${index} opens with its type`);
        assert.match(opening.id, /\S/);
        for (const piece of rest) {
          assert.equal(piece.type, undefined, `call ${index}: type repeated`);
          assert.equal(piece.id, undefined, `call ${index}: id repeated`);
          assert.equal(piece.function?.name, undefined, `call ${index}: name repeated`);
          assert.notEqual(piece.function?.arguments, "", `call ${index}: an empty arguments piece`);
        }
        assembled[opening.function.name] = list.map((p) => p.function?.arguments ?? "").join("");
      }
      assert.deepEqual(JSON.parse(assembled.forecast), ARGS);
      assert.equal(assembled.now, "{}");
    });
  }

  test('the openai SDK\'s assembled completion has the arguments, "{}" for the argument-less call', async () => {
    routes.anthropic.script(CALLS, CALLS);
    const client = openaiClient(routes.gw);
    const request = {
      model: "fa/claude",
      messages: [{ role: "user" as const, content: "Forecast?" }],
      tools: [
        { type: "function" as const, function: { name: "forecast", parameters: TOOL_SCHEMA } },
        { type: "function" as const, function: { name: "now" } },
      ],
    };
    const streamed = await client.chat.completions.stream(request).finalChatCompletion();
    const whole = await client.chat.completions.create(request);
    for (const completion of [streamed, whole]) {
      const calls = completion.choices[0].message
        .tool_calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
      assert.deepEqual(
        calls.map((c) => c.function.name),
        ["forecast", "now"],
      );
      assert.deepEqual(JSON.parse(calls[0].function.arguments), ARGS);
      assert.equal(calls[1].function.arguments, "{}");
      assert.equal(completion.choices[0].finish_reason, "tool_calls");
    }
  });
});

describe("argument pieces are relayed as they come, not in one burst (bifrost#2786, #2048)", () => {
  const DELAY = 50;
  const slow: Reply = {
    blocks: [{ type: "tool_call", name: "forecast", args: ARGS }],
    chunks: 5,
    chunkDelayMs: DELAY,
  };

  /** The arrival times of the frames carrying argument pieces. */
  function spread(frames: SseFrame[], carries: (frame: SseFrame) => boolean): number[] {
    return frames.filter(carries).map((f) => f.at);
  }

  function assertSpread(times: number[]): void {
    assert.ok(times.length >= 4, `only ${times.length} argument pieces`);
    // Five pieces written DELAY ms apart upstream: if they arrive as they come, first to last spans
    // at least three of those pauses; a burst arrives within a few ms.
    assert.ok(times.at(-1)! - times[0] >= 3 * DELAY, `pieces arrived in a burst: ${times.map(Math.round)}`);
  }

  test("messages client ← OpenAI-style upstream: one input_json_delta per upstream piece, when it comes", async () => {
    const res = await stream("messages", "fo/gpt", routes.openai, slow);
    const times = spread(
      res.frames,
      (f) => f.event === "content_block_delta" && f.data.includes("input_json_delta"),
    );
    assertSpread(times);
  });

  test("messages client ← Anthropic upstream (relay): the same", async () => {
    const res = await stream("messages", "fa/claude", routes.anthropic, slow);
    const times = spread(
      res.frames,
      (f) =>
        f.event === "content_block_delta" &&
        f.data.includes("input_json_delta") &&
        !f.data.includes('"partial_json":""'),
    );
    assertSpread(times);
  });

  test("chat client ← Anthropic upstream: one arguments chunk per upstream piece, when it comes", async () => {
    const res = await stream("chat", "fa/claude", routes.anthropic, slow);
    const times = spread(
      res.frames,
      (f) => /"arguments":"[^"]/.test(f.data) || /"arguments":"\\"/.test(f.data),
    );
    assertSpread(times);
  });
});

describe("streamed tool calls through an OpenAI-style upstream keep their input (litellm#25605)", () => {
  test("the messages SDK's streamed and whole answers carry the same, complete input", async () => {
    const reply: Reply = { blocks: [{ type: "tool_call", name: "forecast", args: ARGS }], chunks: 7 };
    routes.openai.script(reply, reply);
    const client = anthropicClient(routes.gw);
    const request: Anthropic.MessageCreateParamsNonStreaming = {
      model: "fo/gpt",
      max_tokens: 1024,
      tools: [{ name: "forecast", input_schema: TOOL_SCHEMA as Anthropic.Tool.InputSchema }],
      messages: [{ role: "user", content: "Forecast for Oslo, please." }],
    };
    const streamed = await client.messages.stream(request).finalMessage();
    const whole = await client.messages.create(request);
    for (const message of [streamed, whole]) {
      const use = message.content.find((b) => b.type === "tool_use") as Anthropic.ToolUseBlock;
      assert.deepEqual(use.input, ARGS);
      assert.equal(message.stop_reason, "tool_use");
    }
    // Both requests offered the tool, streamed or not.
    for (const sent of routes.openai.requests) {
      assert.equal(sent.body.tools[0].function.name, "forecast");
      assert.deepEqual(sent.body.tools[0].function.parameters, TOOL_SCHEMA);
    }
  });
});

describe("streams open the way clients assemble them (bifrost#6523, portkey#1399)", () => {
  for (const [model, fake] of [
    ["fa/claude", () => routes.anthropic],
    ["fg/flash", () => routes.gemini],
  ] as const) {
    test(`chat client ← ${model}: the first chunk is the role-only delta`, async () => {
      const res = await stream("chat", model, fake(), { blocks: [{ type: "text", text: "Hello there." }] });
      const [first, second] = jsonFrames(res.frames);
      assert.deepEqual(first.choices[0].delta, { role: "assistant", content: "", refusal: null });
      assert.equal(first.choices[0].finish_reason, null);
      assert.equal(second.choices[0].delta.role, undefined, "the role comes once");
    });
  }

  for (const [model, fake] of [
    ["fo/gpt", () => routes.openai],
    ["fg/flash", () => routes.gemini],
  ] as const) {
    test(`messages client ← ${model}: message_start carries role assistant, before any block`, async () => {
      const res = await stream("messages", model, fake(), {
        blocks: [{ type: "text", text: "Hello there." }],
      });
      assert.equal(res.frames[0].event, "message_start");
      const start = JSON.parse(res.frames[0].data);
      assert.equal(start.message.role, "assistant");
      assert.equal(start.message.type, "message");
      assert.deepEqual(start.message.content, []);
      assert.ok(
        res.frames.every((f) => f.event !== undefined),
        "every messages event is named",
      );
    });
  }
});

describe("an upstream error in the middle of a stream reaches the client (portkey PR #949)", () => {
  const broken: Reply = {
    blocks: [{ type: "text", text: "This answer will be cut off by an error." }],
    chunks: 6,
    fault: "midstream-error",
  };

  test("Anthropic `event: error` → chat client: a last chunk carrying the error, then [DONE]; the SDK throws", async () => {
    const res = await stream("chat", "fa/claude", routes.anthropic, broken);
    assert.equal(res.frames.at(-1)?.data, "[DONE]");
    const last = jsonFrames(res.frames).at(-1);
    assert.equal(typeof last.error?.message, "string");
    assert.ok(!jsonFrames(res.frames).some((c) => c.choices?.[0]?.finish_reason), "no normal finish");

    routes.anthropic.script(broken);
    const client = openaiClient(routes.gw);
    await assert.rejects(async () => {
      const s = await client.chat.completions.create({
        model: "fa/claude",
        stream: true,
        messages: [{ role: "user", content: "Hi" }],
      });
      for await (const _ of s) {
        // drain
      }
    }, OpenAI.APIError);
  });

  test("OpenAI error chunk → messages client: an `event: error`, no message_stop; the SDK throws", async () => {
    const res = await stream("messages", "fo/gpt", routes.openai, broken);
    const events = res.frames.map((f) => f.event);
    assert.equal(events.at(-1), "error");
    assert.ok(!events.includes("message_stop"));
    const error = JSON.parse(res.frames.at(-1)!.data);
    assert.equal(error.type, "error");
    assert.equal(typeof error.error.type, "string");

    routes.openai.script(broken);
    await assert.rejects(
      anthropicClient(routes.gw)
        .messages.stream({ model: "fo/gpt", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] })
        .finalMessage(),
      Anthropic.APIError,
    );
  });

  test("Anthropic `event: error` → messages client (relay): passed on as the upstream sent it", async () => {
    const res = await stream("messages", "fa/claude", routes.anthropic, broken);
    const last = res.frames.at(-1)!;
    assert.equal(last.event, "error");
    assert.deepEqual(JSON.parse(last.data), {
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
  });

  test("Anthropic `event: error` → content-generation client: a last chunk holding the error object", async () => {
    const res = await stream("gemini", "fa/claude", routes.anthropic, broken);
    const last = jsonFrames(res.frames).at(-1);
    assert.equal(typeof last.error?.code, "number");
    assert.equal(typeof last.error?.status, "string");
    assert.ok(!jsonFrames(res.frames).some((c) => c.candidates?.[0]?.finishReason), "no normal finish");
  });
});

// Known traps (docs/architecture.md §10), reasoning and signatures, end to end: official SDK (or raw HTTP
// where bytes matter) → gateway → fake upstream, then the client's replay of what it got → gateway → the same
// upstream.
//
//   BerriAI/litellm#41361    thinking blocks with empty text and a signature were dropped
//   maximhq/bifrost#6342     replayed thinking was restructured on the way to the same family
//   maximhq/bifrost#2446     a thinking model behind an OpenAI-style upstream broke a messages client
//   QuantumNous/new-api#1854 an empty text block beside thinking: "text content blocks must be non-empty"
//   BerriAI/litellm#16893, maximhq/bifrost#1437, Portkey-AI/gateway#1442
//                            Gemini's thoughtSignature on functionCall parts lost: "Function call is
//                            missing a thought_signature"
//   BerriAI/litellm#16805    Gemini streaming with tools put answer text into the reasoning field

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import {
  anthropicClient,
  headersFor,
  onlyRequest,
  openaiClient,
  post,
  type Routes,
  startRoutes,
} from "./routes.ts";

let routes: Routes;
let chat: OpenAI;
let messages: Anthropic;
before(async () => {
  routes = await startRoutes();
  chat = openaiClient(routes.gw);
  messages = anthropicClient(routes.gw);
});
after(() => routes?.close());
beforeEach(() => routes.reset());

const WEATHER_TOOL_CHAT: OpenAI.ChatCompletionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const WEATHER_TOOL_MESSAGES: Anthropic.Tool = {
  name: "get_weather",
  description: "Weather for a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

/** Reasoning text of a chat stream's deltas, and the answer text, kept apart as the client sees them. */
async function readChatStream(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let reasoning = "";
  let content = "";
  const details: any[] = [];
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for await (const chunk of stream) {
    const delta: any = chunk.choices[0]?.delta ?? {};
    if (typeof delta.reasoning === "string") reasoning += delta.reasoning;
    if (typeof delta.content === "string") content += delta.content;
    if (Array.isArray(delta.reasoning_details)) details.push(...delta.reasoning_details);
    for (const call of delta.tool_calls ?? []) {
      const seen = calls.get(call.index) ?? { id: "", name: "", arguments: "" };
      if (call.id) seen.id = call.id;
      if (call.function?.name) seen.name = call.function.name;
      if (call.function?.arguments) seen.arguments += call.function.arguments;
      calls.set(call.index, seen);
    }
  }
  return { reasoning, content, details, calls: [...calls.values()] };
}

describe("a chat client that drops reasoning_details in a tool loop on a thinking Anthropic model", () => {
  const SIGNATURE = "EqQBCkgIBRABGAIiQLs9-tool-turn";
  const toolTurn = {
    blocks: [
      { type: "thinking" as const, text: "The user wants Oslo's weather.", signature: SIGNATURE },
      { type: "tool_call" as const, id: "toolu_01A", name: "get_weather", args: { city: "Oslo" } },
    ],
  };
  const answer = { blocks: [{ type: "text" as const, text: "It is -2C in Oslo." }] };
  const ask = (messages: OpenAI.ChatCompletionMessageParam[]) =>
    chat.chat.completions
      .create({ model: "fa/claude", reasoning_effort: "low", tools: [WEATHER_TOOL_CHAT], messages })
      .withResponse();
  /** Turn 1, then turn 2 with the call sent back as `sent` makes it of turn 1's message. */
  async function toolLoop(sent: (message: any) => any) {
    routes.anthropic.script(toolTurn, answer);
    const question = { role: "user" as const, content: "Weather in Oslo?" };
    const first = (await ask([question])).data.choices[0].message as any;
    const call = first.tool_calls[0];
    const second = await ask([
      question,
      sent(first),
      { role: "tool", tool_call_id: call.id, content: "-2C" },
    ]);
    return { second, upstream: routes.anthropic.requests[1].body };
  }

  test("its turn 2 gets an answer with thinking off, named in x-switchyard-ignored, not the upstream's 400", async () => {
    const { second, upstream } = await toolLoop((m) => ({
      role: "assistant",
      content: null,
      tool_calls: m.tool_calls,
    }));
    assert.equal(second.data.choices[0].message.content, "It is -2C in Oslo.");
    assert.equal(upstream.thinking, undefined, "thinking is off for the call that could not carry it");
    assert.match(second.response.headers.get("x-switchyard-ignored") ?? "", /\breasoning\b/);
  });

  test("sent back with its reasoning_details, turn 2 keeps thinking and the signed block", async () => {
    const { second, upstream } = await toolLoop((m) => ({
      role: "assistant",
      content: null,
      tool_calls: m.tool_calls,
      reasoning_details: m.reasoning_details,
    }));
    assert.equal(second.data.choices[0].message.content, "It is -2C in Oslo.");
    assert.equal(upstream.thinking?.type, "enabled");
    assert.equal(upstream.messages[1].content[0].signature, SIGNATURE);
    assert.doesNotMatch(second.response.headers.get("x-switchyard-ignored") ?? "", /\breasoning\b/);
  });
});

describe("empty-text thinking blocks that carry a signature are kept (litellm#41361)", () => {
  const reply = {
    blocks: [
      { type: "thinking" as const, text: "", signature: "EqQBCkgIBRABGAIiQLs9-omitted-display" },
      { type: "text" as const, text: "Done." },
    ],
  };

  test("messages client ↔ Anthropic upstream: the block reaches the client and goes back upstream as it was", async () => {
    routes.anthropic.script(reply, reply);
    const first = await messages.messages.create({
      model: "fa/claude",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [{ role: "user", content: "Think, then say done." }],
    });
    assert.deepEqual(first.content[0], {
      type: "thinking",
      thinking: "",
      signature: "EqQBCkgIBRABGAIiQLs9-omitted-display",
    });
    const stream = messages.messages.stream({
      model: "fa/claude",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "Think, then say done." },
        { role: "assistant", content: first.content },
        { role: "user", content: "Again." },
      ],
    });
    const second = await stream.finalMessage();
    assert.deepEqual(second.content[0], first.content[0], "streamed, the signature still arrives");
    const replayed = routes.anthropic.requests[1].body.messages[1].content;
    assert.deepEqual(replayed[0], {
      type: "thinking",
      thinking: "",
      signature: "EqQBCkgIBRABGAIiQLs9-omitted-display",
    });
  });

  test("messages client ↔ OpenAI-style upstream (reasoning_details): kept both ways, streamed", async () => {
    routes.openai.script(reply, reply);
    const first = await messages.messages
      .stream({
        model: "fo/gpt",
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 1024 },
        messages: [{ role: "user", content: "Think, then say done." }],
      })
      .finalMessage();
    assert.deepEqual(first.content, [
      { type: "thinking", thinking: "", signature: "EqQBCkgIBRABGAIiQLs9-omitted-display" },
      { type: "text", text: "Done." },
    ]);
    await messages.messages.create({
      model: "fo/gpt",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
      messages: [
        { role: "user", content: "Think, then say done." },
        { role: "assistant", content: first.content },
        { role: "user", content: "Again." },
      ],
    });
    const assistant = routes.openai.requests[1].body.messages.find((m: any) => m.role === "assistant");
    const signed = (assistant.reasoning_details ?? []).filter((d: any) => d.signature);
    assert.equal(signed.length, 1, JSON.stringify(assistant));
    assert.equal(signed[0].signature, "EqQBCkgIBRABGAIiQLs9-omitted-display");
    assert.equal(signed[0].text, "");
  });

  test("chat client ↔ Anthropic upstream: the signature rides in reasoning_details and comes back", async () => {
    routes.anthropic.script(reply, reply);
    const first = await chat.chat.completions.create({
      model: "fa/claude",
      messages: [{ role: "user", content: "Think, then say done." }],
      reasoning_effort: "low",
    });
    const message: any = first.choices[0].message;
    assert.equal(message.content, "Done.");
    const details = message.reasoning_details.filter((d: any) => d.signature);
    assert.equal(details.length, 1);
    assert.equal(details[0].signature, "EqQBCkgIBRABGAIiQLs9-omitted-display");
    await chat.chat.completions.create({
      model: "fa/claude",
      reasoning_effort: "low",
      messages: [
        { role: "user", content: "Think, then say done." },
        { role: "assistant", content: message.content, reasoning_details: message.reasoning_details } as any,
        { role: "user", content: "Again." },
      ],
    });
    const replayed = routes.anthropic.requests[1].body.messages[1].content;
    assert.deepEqual(replayed, [
      { type: "thinking", thinking: "", signature: "EqQBCkgIBRABGAIiQLs9-omitted-display" },
      { type: "text", text: "Done." },
    ]);
  });

  test("chat client ↔ Gemini upstream: a signature on an empty thought part survives the round trip", async () => {
    const signed = {
      blocks: [
        { type: "thinking" as const, text: "", signature: "Cs0BAY89a1-gemini" },
        { type: "text" as const, text: "Done." },
      ],
    };
    routes.gemini.script(signed, signed);
    const { details, content } = await readChatStream(
      await chat.chat.completions.create({
        model: "fg/flash",
        stream: true,
        messages: [{ role: "user", content: "Think, then say done." }],
        reasoning_effort: "low",
      }),
    );
    assert.equal(content, "Done.");
    const withSignature = details.filter((d) => d.signature);
    assert.equal(withSignature.length, 1);
    assert.equal(withSignature[0].signature, "Cs0BAY89a1-gemini");
    await chat.chat.completions.create({
      model: "fg/flash",
      reasoning_effort: "low",
      messages: [
        { role: "user", content: "Think, then say done." },
        { role: "assistant", content, reasoning_details: details } as any,
        { role: "user", content: "Again." },
      ],
    });
    const model = routes.gemini.requests[1].body.contents.find((c: any) => c.role === "model");
    const signatures = model.parts.filter((p: any) => p.thoughtSignature).map((p: any) => p.thoughtSignature);
    assert.deepEqual(signatures, ["Cs0BAY89a1-gemini"]);
    assert.ok(model.parts.some((p: any) => p.text === "Done."));
  });
});

describe("replayed thinking goes to a same-protocol upstream byte for byte (bifrost#6342)", () => {
  // Interleaved thinking and tool calls, a redacted block, a tool result without content: the shapes
  // a restructuring gateway broke. Written with odd spacing so any re-encoding would show.
  const clientBody = JSON.stringify(
    {
      model: "fa/claude",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 2048 },
      tools: [WEATHER_TOOL_MESSAGES],
      messages: [
        { role: "user", content: "Weather in Oslo and in Bergen?" },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Oslo first.", signature: "sig-one" },
            { type: "tool_use", id: "toolu_01A", name: "get_weather", input: { city: "Oslo" } },
          ],
        },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01A" }] },
        {
          role: "assistant",
          content: [
            { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIw" },
            { type: "thinking", thinking: "", signature: "sig-two" },
            { type: "text", text: "Now Bergen." },
            { type: "tool_use", id: "toolu_01B", name: "get_weather", input: { city: "Bergen" } },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_01B", content: "9C, rain", is_error: false }],
        },
      ],
    },
    null,
    1,
  );

  test("messages client → Anthropic upstream: the upstream gets the client's bytes, only the model changed", async () => {
    const res = await post(routes.gw, "/v1/messages", clientBody, headersFor("messages"));
    assert.equal(res.status, 200, res.text);
    const sent = onlyRequest(routes.anthropic);
    assert.equal(sent.rawBody, clientBody.replace('"model": "fa/claude"', '"model": "claude-sonnet-4-5"'));
  });

  test("content-generation client → Gemini upstream: signed thought and call parts go on untouched", async () => {
    const body = JSON.stringify(
      {
        contents: [
          { role: "user", parts: [{ text: "Weather in Oslo?" }] },
          {
            role: "model",
            parts: [
              { text: "Oslo.", thought: true, thoughtSignature: "c2lnLXRob3VnaHQ=" },
              {
                functionCall: { name: "get_weather", args: { city: "Oslo" } },
                thoughtSignature: "c2lnLWNhbGw=",
              },
            ],
          },
          {
            role: "user",
            parts: [{ functionResponse: { name: "get_weather", response: { result: "4C" } } }],
          },
        ],
        generationConfig: { thinkingConfig: { includeThoughts: true } },
      },
      null,
      2,
    );
    const res = await post(routes.gw, "/v1beta/models/fg/pro3:generateContent", body, headersFor("gemini"));
    assert.equal(res.status, 200, res.text);
    const sent = onlyRequest(routes.gemini);
    assert.equal(sent.pathname, "/v1beta/models/gemini-3-pro-preview:generateContent");
    assert.equal(sent.rawBody, body);
  });
});

describe("no empty blocks, whatever the upstream sends (bifrost#2446, new-api#1854)", () => {
  const thinkingThenCall = {
    blocks: [
      { type: "thinking" as const, text: "The user wants the weather; I will call the tool." },
      { type: "text" as const, text: "Let me check." },
      { type: "tool_call" as const, name: "get_weather", args: { city: "Oslo" } },
    ],
  };

  for (const route of ["fo/gpt", "fd/reasoner"] as const) {
    test(`a thinking model behind ${route} streams to the messages SDK as well-formed blocks`, async () => {
      (route === "fo/gpt" ? routes.openai : routes.deepseek).script(thinkingThenCall);
      const stream = messages.messages.stream({
        model: route,
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [WEATHER_TOOL_MESSAGES],
        messages: [{ role: "user", content: "Weather in Oslo?" }],
      });
      // The SDK throws "Content block is not a thinking block" when a delta names the wrong block.
      const final = await stream.finalMessage();
      assert.deepEqual(
        final.content.map((b) => b.type),
        ["thinking", "text", "tool_use"],
      );
      const [thinking, text, call] = final.content as [
        Anthropic.ThinkingBlock,
        Anthropic.TextBlock,
        Anthropic.ToolUseBlock,
      ];
      assert.equal(thinking.thinking, "The user wants the weather; I will call the tool.");
      assert.equal(text.text, "Let me check.");
      assert.deepEqual(call.input, { city: "Oslo" });
      assert.equal(final.stop_reason, "tool_use");
    });
  }

  test("a tool-only answer with reasoning has no empty text block, streamed or not", async () => {
    const toolOnly = {
      blocks: [
        { type: "thinking" as const, text: "Calling the tool." },
        { type: "tool_call" as const, name: "get_weather", args: { city: "Oslo" } },
      ],
    };
    routes.openai.script(toolOnly, toolOnly);
    const request = {
      model: "fo/gpt",
      max_tokens: 4096,
      tools: [WEATHER_TOOL_MESSAGES],
      messages: [{ role: "user" as const, content: "Weather in Oslo?" }],
    };
    const whole = await messages.messages.create(request);
    const streamed = await messages.messages.stream(request).finalMessage();
    for (const message of [whole, streamed]) {
      assert.deepEqual(
        message.content.map((b) => b.type),
        ["thinking", "tool_use"],
      );
    }
  });

  test("a chat client's empty assistant content beside tool calls sends no empty text block upstream", async () => {
    routes.anthropic.script({ blocks: [{ type: "text", text: "4C" }] });
    await chat.chat.completions.create({
      model: "fa/claude",
      tools: [WEATHER_TOOL_CHAT],
      messages: [
        { role: "user", content: "Weather in Oslo?" },
        {
          role: "assistant",
          content: "",
          tool_calls: [
            {
              id: "call_1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: "4C, snow" },
      ],
    });
    const sent = onlyRequest(routes.anthropic).body;
    const blocks = sent.messages.flatMap((m: any) => (typeof m.content === "string" ? [] : m.content));
    for (const block of blocks)
      if (block.type === "text") assert.notEqual(block.text.trim(), "", JSON.stringify(sent));
    assert.deepEqual(sent.messages[1].content, [
      { type: "tool_use", id: "call_1", name: "get_weather", input: { city: "Oslo" } },
    ]);
  });

  test("a Gemini answer with nothing in it reaches a messages client as no block at all", async () => {
    routes.gemini.script({ blocks: [], finish: "stop" }, { blocks: [], finish: "stop" });
    const request = {
      model: "fg/flash",
      max_tokens: 100,
      messages: [{ role: "user" as const, content: "…" }],
    };
    const whole = await messages.messages.create(request);
    const streamed = await messages.messages.stream(request).finalMessage();
    assert.deepEqual(whole.content, []);
    assert.deepEqual(streamed.content, []);
  });
});

describe("Gemini thoughtSignature on functionCall parts comes back exactly (litellm#16893, bifrost#1437, portkey#1442)", () => {
  const signedCall = {
    blocks: [
      { type: "thinking" as const, text: "I should look this up.", signature: "CiQBz4-thought-sig" },
      {
        type: "tool_call" as const,
        name: "get_weather",
        args: { city: "Oslo" },
        signature: "CpYCAY89a1-call-sig==",
      },
    ],
  };

  /** The functionCall parts of the model turn the Gemini upstream received on its second request. */
  function replayedCalls(): any[] {
    const model = routes.gemini.requests[1].body.contents.find((c: any) => c.role === "model");
    return model.parts.filter((p: any) => p.functionCall);
  }

  for (const stream of [true, false]) {
    test(`chat client (${stream ? "streamed" : "whole"}): the tool-call id carries it; the next turn restores it`, async () => {
      routes.gemini.script(signedCall, { blocks: [{ type: "text", text: "4C in Oslo." }] });
      const ask: OpenAI.ChatCompletionMessageParam = { role: "user", content: "Weather in Oslo?" };
      let call: { id: string; name: string; arguments: string };
      if (stream) {
        const read = await readChatStream(
          await chat.chat.completions.create({
            model: "fg/pro3",
            stream: true,
            tools: [WEATHER_TOOL_CHAT],
            messages: [ask],
          }),
        );
        assert.equal(read.reasoning, "I should look this up.");
        [call] = read.calls;
      } else {
        const res = await chat.chat.completions.create({
          model: "fg/pro3",
          tools: [WEATHER_TOOL_CHAT],
          messages: [ask],
        });
        const c = res.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
        call = { id: c.id, name: c.function.name, arguments: c.function.arguments };
      }
      assert.equal(call.name, "get_weather");
      assert.deepEqual(JSON.parse(call.arguments), { city: "Oslo" });
      // A plain client replays only role, content and tool_calls: no reasoning_details, no extras.
      const second = await chat.chat.completions.create({
        model: "fg/pro3",
        tools: [WEATHER_TOOL_CHAT],
        messages: [
          ask,
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } },
            ],
          },
          { role: "tool", tool_call_id: call.id, content: "4C" },
        ],
      });
      assert.equal(second.choices[0].message.content, "4C in Oslo.");
      const [replayed] = replayedCalls();
      assert.equal(replayed.thoughtSignature, "CpYCAY89a1-call-sig==");
      assert.equal(replayed.functionCall.name, "get_weather");
      assert.deepEqual(replayed.functionCall.args, { city: "Oslo" });
      const response = routes.gemini.requests[1].body.contents.at(-1).parts[0].functionResponse;
      assert.equal(response.name, "get_weather");
      assert.equal(response.id, replayed.functionCall.id, "the response answers the call it belongs to");
    });
  }

  test("messages client (streamed): replaying the SDK's final message restores call and thought signatures", async () => {
    routes.gemini.script(signedCall, { blocks: [{ type: "text", text: "4C in Oslo." }] });
    const ask: Anthropic.MessageParam = { role: "user", content: "Weather in Oslo?" };
    const first = await messages.messages
      .stream({
        model: "fg/pro3",
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools: [WEATHER_TOOL_MESSAGES],
        messages: [ask],
      })
      .finalMessage();
    assert.deepEqual(
      first.content.map((b) => b.type),
      ["thinking", "tool_use"],
    );
    assert.equal((first.content[0] as Anthropic.ThinkingBlock).signature, "CiQBz4-thought-sig");
    const use = first.content[1] as Anthropic.ToolUseBlock;
    await messages.messages.create({
      model: "fg/pro3",
      max_tokens: 4096,
      thinking: { type: "enabled", budget_tokens: 1024 },
      tools: [WEATHER_TOOL_MESSAGES],
      messages: [
        ask,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "4C" }] },
      ],
    });
    const model = routes.gemini.requests[1].body.contents.find((c: any) => c.role === "model");
    const thought = model.parts.find((p: any) => p.thought);
    assert.equal(thought.thoughtSignature, "CiQBz4-thought-sig");
    const [call] = replayedCalls();
    assert.equal(call.thoughtSignature, "CpYCAY89a1-call-sig==");
  });

  test("content-generation client ← OpenAI-compatible upstream: extra_content's signature becomes the part's, and goes back", async () => {
    routes.openai.script(signedCall, { blocks: [{ type: "text", text: "4C" }] });
    const tools = [
      {
        functionDeclarations: [
          { name: "get_weather", parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } } },
        ],
      },
    ];
    const ask = { role: "user", parts: [{ text: "Weather in Oslo?" }] };
    const first = await post(
      routes.gw,
      "/v1beta/models/fo/gpt:generateContent",
      { contents: [ask], tools },
      headersFor("gemini"),
    );
    assert.equal(first.status, 200, first.text);
    const parts = first.json.candidates[0].content.parts;
    const callPart = parts.find((p: any) => p.functionCall);
    assert.equal(callPart.thoughtSignature, "CpYCAY89a1-call-sig==");
    const second = await post(
      routes.gw,
      "/v1beta/models/fo/gpt:generateContent",
      {
        contents: [
          ask,
          { role: "model", parts },
          {
            role: "user",
            parts: [{ functionResponse: { name: "get_weather", response: { result: "4C" } } }],
          },
        ],
        tools,
      },
      headersFor("gemini"),
    );
    assert.equal(second.status, 200, second.text);
    const assistant = routes.openai.requests[1].body.messages.find((m: any) => m.role === "assistant");
    assert.equal(assistant.tool_calls[0].extra_content.google.thought_signature, "CpYCAY89a1-call-sig==");
  });
});

describe("only thought: true marks reasoning in a Gemini stream with tools (litellm#16805)", () => {
  const answer = {
    blocks: [
      { type: "thinking" as const, text: "Considering which tool fits.", signature: "sig-t" },
      { type: "text" as const, text: "The answer text, not reasoning." },
      { type: "tool_call" as const, name: "get_weather", args: { city: "Oslo" }, signature: "sig-c" },
    ],
    chunks: 4,
  };

  test("chat client: reasoning deltas hold the thought, content deltas the answer", async () => {
    routes.gemini.script(answer);
    const read = await readChatStream(
      await chat.chat.completions.create({
        model: "fg/flash",
        stream: true,
        reasoning_effort: "medium",
        tools: [WEATHER_TOOL_CHAT],
        messages: [{ role: "user", content: "Weather in Oslo?" }],
      }),
    );
    assert.equal(read.reasoning, "Considering which tool fits.");
    assert.equal(read.content, "The answer text, not reasoning.");
    assert.equal(read.calls.length, 1);
    const detailText = read.details.map((d) => d.text ?? "").join("");
    assert.equal(detailText, "Considering which tool fits.");
  });

  test("messages client: one thinking block with the thought, one text block with the answer", async () => {
    routes.gemini.script(answer);
    const final = await messages.messages
      .stream({
        model: "fg/flash",
        max_tokens: 4096,
        thinking: { type: "enabled", budget_tokens: 2048 },
        tools: [WEATHER_TOOL_MESSAGES],
        messages: [{ role: "user", content: "Weather in Oslo?" }],
      })
      .finalMessage();
    assert.deepEqual(
      final.content.map((b) => b.type),
      ["thinking", "text", "tool_use"],
    );
    assert.equal((final.content[0] as Anthropic.ThinkingBlock).thinking, "Considering which tool fits.");
    assert.equal((final.content[1] as Anthropic.TextBlock).text, "The answer text, not reasoning.");
  });
});

// Custom tools on chat-completions (`tools[].type: "custom"`: free-text input, not JSON), with the
// openai SDK's chat API: offered, called and answered on every route. A chat upstream gets them as
// custom tools (relayed); a Responses upstream as custom tools; a messages or Gemini upstream as a
// function whose one string parameter, `input`, holds the text. Whatever the upstream, the client
// gets its call back as a custom call, `{type: "custom", custom: {name, input}}`.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { type FakeProtocol, type FakeUpstream, type Reply, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

const UPSTREAMS: FakeProtocol[] = ["openai", "anthropic", "gemini", "openai-responses"];
const PROVIDER: Record<FakeProtocol, string> = {
  openai: "fo",
  anthropic: "fa",
  gemini: "fg",
  "openai-responses": "fr",
};
const modelOf = (upstream: FakeProtocol) => `${PROVIDER[upstream]}/m`;

let gw: RunningGateway;
let client: OpenAI;
const fakes = {} as Record<FakeProtocol, FakeUpstream>;

before(async () => {
  for (const upstream of UPSTREAMS) fakes[upstream] = await startFakeUpstream(upstream, { apiKey: "k" });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-custom-tools-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: UPSTREAMS.map((u) => fakeProvider(PROVIDER[u], fakes[u])),
      models: UPSTREAMS.map((u) => fakeModel(modelOf(u), [PROVIDER[u]])),
    }),
    { dir },
  );
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
});

const GRAMMAR = { syntax: "regex" as const, definition: "[a-z -]+" };
const TOOLS: OpenAI.Chat.ChatCompletionTool[] = [
  { type: "custom", custom: { name: "run_shell", description: "Runs a shell command" } },
  {
    type: "custom",
    custom: { name: "pick_words", format: { type: "grammar", grammar: GRAMMAR } },
  },
];
const PROMPT = 'Use run_shell for "ls -la"';

type Message = OpenAI.Chat.ChatCompletionMessageParam;

/** The conversation's second turn: the custom call as the model made it, and its output. */
function secondTurn(callId: string): Message[] {
  return [
    { role: "user", content: PROMPT },
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: callId, type: "custom", custom: { name: "run_shell", input: "ls -la" } }],
    },
    { role: "tool", tool_call_id: callId, content: "notes.txt" },
  ];
}

/** A streamed completion read chunk by chunk (the SDK's stream helper assembles function calls only). */
async function streamChunks(model: string, messages: Message[]): Promise<OpenAI.Chat.ChatCompletionChunk[]> {
  const stream = await client.chat.completions.create({ model, messages, tools: TOOLS, stream: true });
  const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

function streamedCalls(chunks: OpenAI.Chat.ChatCompletionChunk[]): any[] {
  return chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
}

function streamedFinish(chunks: OpenAI.Chat.ChatCompletionChunk[]): string | null | undefined {
  return chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason;
}

describe("custom tools against the local model", () => {
  test("the model calls a custom tool as a custom call, then answers from its output", async () => {
    const first = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: PROMPT }],
      tools: TOOLS,
    });
    const choice = first.choices[0];
    assert.equal(choice.finish_reason, "tool_calls");
    const call = choice.message.tool_calls?.[0];
    assert.ok(call && call.type === "custom", JSON.stringify(choice.message));
    assert.deepEqual(call.custom, { name: "run_shell", input: "ls -la" });

    const second = await client.chat.completions.create({
      model: "local/echo-1",
      messages: secondTurn(call.id),
      tools: TOOLS,
    });
    assert.equal(second.choices[0].message.content, "Tool run_shell returned: notes.txt");
  });

  test("streamed: the custom call arrives whole in one delta", async () => {
    const chunks = await streamChunks("local/echo-1", [{ role: "user", content: PROMPT }]);
    const calls = streamedCalls(chunks);
    assert.equal(calls.length, 1, JSON.stringify(calls));
    assert.equal(calls[0].index, 0);
    assert.equal(calls[0].type, "custom");
    assert.match(calls[0].id, /^call_/);
    assert.deepEqual(calls[0].custom, { name: "run_shell", input: "ls -la" });
    assert.equal(streamedFinish(chunks), "tool_calls");
  });
});

/** The upstream's answer: a call of `run_shell` in its own terms (custom where it has custom tools). */
function callReply(upstream: FakeProtocol): Reply {
  const custom = upstream === "openai" || upstream === "openai-responses";
  return {
    blocks: [
      custom
        ? { type: "tool_call", id: "call_up_1", name: "run_shell", args: "ls -la", custom: true }
        : { type: "tool_call", id: "call_up_1", name: "run_shell", args: { input: "ls -la" } },
    ],
  };
}

/** What the upstream was offered: the custom tool in its own terms. */
function checkOffered(upstream: FakeProtocol, body: any): void {
  switch (upstream) {
    case "openai":
      assert.deepEqual(body.tools, TOOLS, "a chat upstream is relayed the tools as they came");
      return;
    case "openai-responses":
      assert.deepEqual(body.tools, [
        { type: "custom", name: "run_shell", description: "Runs a shell command" },
        { type: "custom", name: "pick_words", format: { type: "grammar", ...GRAMMAR } },
      ]);
      return;
    case "anthropic": {
      const tool = body.tools.find((t: any) => t.name === "run_shell");
      assert.equal(tool.description, "Runs a shell command");
      assert.deepEqual(tool.input_schema.required, ["input"]);
      assert.equal(tool.input_schema.properties.input.type, "string");
      return;
    }
    case "gemini": {
      const fn = body.tools[0].functionDeclarations.find((f: any) => f.name === "run_shell");
      const schema = fn.parameters ?? fn.parametersJsonSchema;
      assert.deepEqual(schema.required, ["input"]);
      assert.match(JSON.stringify(schema.properties.input.type), /string/i);
      return;
    }
  }
}

/** What the upstream got back on the second turn: the call, and its output under the call's id. */
function checkReplayed(upstream: FakeProtocol, body: any): void {
  switch (upstream) {
    case "openai": {
      const assistant = body.messages.find((m: any) => m.role === "assistant");
      assert.deepEqual(assistant.tool_calls, [
        { id: "call_up_1", type: "custom", custom: { name: "run_shell", input: "ls -la" } },
      ]);
      assert.deepEqual(
        body.messages.find((m: any) => m.role === "tool"),
        { role: "tool", tool_call_id: "call_up_1", content: "notes.txt" },
      );
      return;
    }
    case "openai-responses": {
      const call = body.input.find((i: any) => i.type === "custom_tool_call");
      assert.deepEqual(
        { call_id: call.call_id, name: call.name, input: call.input },
        { call_id: "call_up_1", name: "run_shell", input: "ls -la" },
      );
      const output = body.input.find((i: any) => i.type === "custom_tool_call_output");
      assert.equal(output.call_id, "call_up_1");
      assert.match(JSON.stringify(output.output), /notes\.txt/);
      return;
    }
    case "anthropic": {
      const blocks = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
      const use = blocks.find((b: any) => b.type === "tool_use");
      assert.deepEqual({ id: use.id, input: use.input }, { id: "call_up_1", input: { input: "ls -la" } });
      const result = blocks.find((b: any) => b.type === "tool_result");
      assert.equal(result.tool_use_id, "call_up_1");
      assert.match(JSON.stringify(result.content), /notes\.txt/);
      return;
    }
    case "gemini": {
      const parts = body.contents.flatMap((c: any) => c.parts);
      const call = parts.find((p: any) => p.functionCall).functionCall;
      assert.deepEqual(
        { name: call.name, args: call.args },
        { name: "run_shell", args: { input: "ls -la" } },
      );
      const response = parts.find((p: any) => p.functionResponse).functionResponse;
      assert.equal(response.name, "run_shell");
      assert.match(JSON.stringify(response.response), /notes\.txt/);
      return;
    }
  }
}

describe("custom tools to a fake upstream of each protocol", () => {
  for (const upstream of UPSTREAMS) {
    test(`${upstream} upstream: offered, called as a custom call, answered`, async () => {
      const fake = fakes[upstream];
      fake.reset();
      fake.script(callReply(upstream), { blocks: [{ type: "text", text: "One file: notes.txt." }] });
      const first = await client.chat.completions.create({
        model: modelOf(upstream),
        messages: [{ role: "user", content: PROMPT }],
        tools: TOOLS,
        tool_choice: { type: "custom", custom: { name: "run_shell" } },
      });
      checkOffered(upstream, fake.requests[0].body);
      const call = first.choices[0].message.tool_calls?.[0];
      assert.ok(call && call.type === "custom", JSON.stringify(first.choices[0].message));
      assert.deepEqual(call.custom, { name: "run_shell", input: "ls -la" });
      assert.equal(first.choices[0].finish_reason, "tool_calls");

      const second = await client.chat.completions.create({
        model: modelOf(upstream),
        messages: secondTurn(call.id),
        tools: TOOLS,
      });
      assert.equal(second.choices[0].message.content, "One file: notes.txt.");
      checkReplayed(upstream, fake.requests[1].body);
    });

    test(`${upstream} upstream, streamed: the call reaches the client as a custom call`, async () => {
      const fake = fakes[upstream];
      fake.reset();
      fake.script(callReply(upstream));
      const chunks = await streamChunks(modelOf(upstream), [{ role: "user", content: PROMPT }]);
      const calls = streamedCalls(chunks);
      assert.equal(streamedFinish(chunks), "tool_calls");
      // A relay passes the upstream's pieces on; a translation sends the call whole.
      const input = calls.map((c) => c.custom?.input ?? "").join("");
      assert.equal(input, "ls -la", JSON.stringify(calls));
      assert.equal(calls[0].type, "custom");
      assert.equal(calls[0].custom.name, "run_shell");
    });
  }

  test("a tool choice naming a custom tool reaches each upstream in its terms", async () => {
    const wanted: Record<FakeProtocol, (body: any) => unknown> = {
      openai: (body) => body.tool_choice,
      "openai-responses": (body) => body.tool_choice,
      anthropic: (body) => body.tool_choice,
      gemini: (body) => body.toolConfig?.functionCallingConfig,
    };
    const expected: Record<FakeProtocol, unknown> = {
      openai: { type: "custom", custom: { name: "pick_words" } },
      "openai-responses": { type: "custom", name: "pick_words" },
      anthropic: { type: "tool", name: "pick_words" },
      gemini: { mode: "ANY", allowedFunctionNames: ["pick_words"] },
    };
    for (const upstream of UPSTREAMS) {
      fakes[upstream].reset();
      await client.chat.completions.create({
        model: modelOf(upstream),
        messages: [{ role: "user", content: "Pick some words." }],
        tools: TOOLS,
        tool_choice: { type: "custom", custom: { name: "pick_words" } },
      });
      assert.deepEqual(wanted[upstream](fakes[upstream].requests[0].body), expected[upstream], upstream);
    }
  });
});

describe("a Responses client's custom tool through a chat upstream (translated)", () => {
  const RESPONSES_TOOLS: OpenAI.Responses.Tool[] = [
    { type: "custom", name: "run_shell", description: "Runs a shell command" },
  ];

  for (const stream of [false, true]) {
    test(`the chat upstream is offered a custom tool and its custom call comes back${stream ? ", streamed" : ""}`, async () => {
      const fake = fakes.openai;
      fake.reset();
      // Streamed, the call's input arrives in three `custom.input` pieces.
      fake.script({ ...callReply("openai"), chunks: 3 });
      const params = { model: modelOf("openai"), input: PROMPT, tools: RESPONSES_TOOLS, store: false };
      const response = stream
        ? await client.responses.stream(params).finalResponse()
        : await client.responses.create(params);
      const body = fake.requests[0].body as any;
      assert.deepEqual(body.tools, [
        { type: "custom", custom: { name: "run_shell", description: "Runs a shell command" } },
      ]);
      const call = response.output.find((item) => item.type === "custom_tool_call");
      assert.ok(call && call.type === "custom_tool_call", JSON.stringify(response.output));
      assert.deepEqual({ name: call.name, input: call.input }, { name: "run_shell", input: "ls -la" });
    });
  }
});

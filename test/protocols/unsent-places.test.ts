// Each upstream encoder names what it leaves out wherever in the request the lost thing sits: in the
// system text, in an assistant turn, inside a tool result's content (docs/translation.md §9). The
// encoders add the name in the branch that encodes that place, so each place is checked here for
// every target; a body-only caller (token counting) gets the same body without a collector.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ContentBlock, Message, Request, TextBlock } from "../../src/ir/request.ts";
import { anthropic } from "../../src/protocols/anthropic/index.ts";
import { bedrockConverse } from "../../src/protocols/bedrock-converse/index.ts";
import { gemini } from "../../src/protocols/gemini/index.ts";
import { openaiChat } from "../../src/protocols/openai-chat/index.ts";
import { openaiResponses } from "../../src/protocols/openai-responses/index.ts";
import type { UpstreamFace } from "../../src/protocols/types.ts";
import { withUnsent } from "./helpers.ts";

const TARGETS: ReadonlyArray<[string, UpstreamFace, string]> = [
  ["chat", openaiChat, "gpt-4.1"],
  ["responses", openaiResponses, "gpt-5"],
  ["messages", anthropic, "claude-sonnet-4-5"],
  ["gemini", gemini, "gemini-2.5-flash"],
  ["converse", bedrockConverse, "us.amazon.nova-pro-v1:0"],
];

function request(overrides: Partial<Request>): Request {
  return {
    model: "m",
    system: [],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [{ name: "f", parameters: { type: "object" } }],
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
    ...overrides,
  };
}

/** A call of `f` and its result holding `content`. */
function resultTurn(...content: Array<TextBlock | Extract<ContentBlock, { type: "image" | "document" }>>) {
  const messages: Message[] = [
    { role: "user", content: [{ type: "text", text: "q" }] },
    { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "f", arguments: "{}" }] },
    { role: "user", content: [{ type: "tool_result", toolCallId: "c1", name: "f", content }] },
  ];
  return { messages };
}

/** What each target names for this request (undefined: nothing). */
function namedBy(overrides: Partial<Request>): Record<string, string[] | undefined> {
  const named: Record<string, string[] | undefined> = {};
  for (const [name, face, model] of TARGETS) {
    const target = { model, stream: false };
    named[name] = withUnsent((unsent) => face.encodeRequest(request(overrides), target, unsent)).dropped;
  }
  return named;
}

const cited: TextBlock = { type: "text", text: "a", citations: [{ type: "char_location" }] };
const png = { kind: "base64" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };
const pdf = { kind: "base64" as const, mediaType: "application/pdf", data: "JVBERg==" };

describe("each encoder names a loss where it leaves it out", () => {
  test("citations replayed on system text: every target but messages' (which keeps them on blocks)", () => {
    const named = namedBy({ system: [cited] });
    for (const target of ["chat", "responses", "gemini", "converse"])
      assert.deepEqual(named[target], ["citations"], target);
  });

  test("citations on a tool result's text: lost by all but the messages protocol", () => {
    assert.deepEqual(namedBy(resultTurn(cited)), {
      chat: ["citations"],
      responses: ["citations"],
      messages: undefined,
      gemini: ["citations"],
      converse: ["citations"],
    });
  });

  test("an image's detail inside a tool result: only the OpenAI protocols carry it", () => {
    assert.deepEqual(namedBy(resultTurn({ type: "image", source: png, detail: "high" })), {
      chat: undefined,
      responses: undefined,
      messages: ["image.detail"],
      gemini: ["image.detail"],
      converse: ["image.detail"],
    });
  });

  test("a document's title and context inside a tool result", () => {
    const document = { type: "document" as const, source: pdf, filename: "a.pdf", title: "A", context: "c" };
    assert.deepEqual(namedBy(resultTurn(document)), {
      chat: ["document.title", "document.context"],
      responses: ["document.title", "document.context"],
      messages: undefined,
      gemini: ["document.title", "document.context"],
      converse: undefined,
    });
  });

  test("unsigned thinking with text in an assistant turn: only chat carries it (reasoning_details)", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "q" }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "hmm" },
          { type: "text", text: "a" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "go on" }] },
    ];
    assert.deepEqual(namedBy({ messages }), {
      chat: undefined,
      responses: ["thinking"],
      messages: ["thinking"],
      gemini: ["thinking"],
      converse: ["thinking"],
    });
  });

  test("a caller that wants the body alone passes no collector and gets the same body", () => {
    const overrides = { ...resultTurn(cited), seed: 1, topK: 3 };
    for (const [name, face, model] of TARGETS) {
      const target = { model, stream: false };
      const alone = face.encodeRequest(request(overrides), target);
      const collected = withUnsent((unsent) => face.encodeRequest(request(overrides), target, unsent));
      assert.deepEqual(alone.body, collected.body, name);
      assert.ok(collected.dropped, `${name} left something out, named in the collector`);
    }
  });
});

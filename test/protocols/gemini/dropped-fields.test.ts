import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Message, Request } from "../../../src/ir/request.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { withUnsent } from "../helpers.ts";
import { irRequest } from "./helpers.ts";

function dropped(overrides: Partial<Request>): string[] | undefined {
  const target = { model: "gemini-2.5-flash", stream: true };
  return withUnsent((unsent) => gemini.encodeRequest(irRequest(overrides), target, unsent)).dropped;
}

function history(...assistant: Message["content"]): Message[] {
  return [
    { role: "user", content: [{ type: "text", text: "q" }] },
    { role: "assistant", content: assistant },
    { role: "user", content: [{ type: "text", text: "go on" }] },
  ];
}

function userTurn(...content: Message["content"]): Message[] {
  return [{ role: "user", content }];
}

const tool = { name: "f", parameters: { type: "object", properties: { a: { type: "string" } } } };
const pdf = { kind: "base64" as const, mediaType: "application/pdf", data: "JVBERg==" };

describe("a Gemini upstream names what it cannot be told", () => {
  test("a request this protocol can say in full has no `dropped`", () => {
    assert.equal(dropped({}), undefined);
    const everythingExpressible = dropped({
      system: [{ type: "text", text: "S" }],
      messages: [
        ...userTurn(
          { type: "image", source: { kind: "url", url: "https://x.test/a.png" }, detail: "auto" },
          { type: "document", source: pdf, filename: "a.pdf", citations: false },
        ),
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "signed", signature: "sig" },
            { type: "thinking", text: "" },
            { type: "redacted_thinking", data: "another vendor's encrypted reasoning" },
            { type: "tool_call", id: "c1", name: "f", arguments: '{"a":"x"}', signature: "call-sig" },
          ],
        },
        ...userTurn({
          type: "tool_result",
          toolCallId: "c1",
          content: [{ type: "text", text: "bad" }],
          isError: true,
        }),
      ],
      tools: [{ ...tool, strict: false }],
      toolChoice: { type: "none" },
      parallelToolCalls: false,
      temperature: 0.5,
      topP: 0.9,
      topK: 20,
      frequencyPenalty: 0.1,
      presencePenalty: 0.1,
      seed: 9,
      logprobs: { topLogprobs: 2 },
      stopSequences: ["END"],
      responseFormat: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true },
      reasoning: { effort: "high", exclude: true },
    });
    assert.equal(everythingExpressible, undefined);
  });

  const cases: Array<[string, string, Partial<Request>]> = [
    ["user", "an end-user id", { user: "u-1" }],
    [
      "response_format.json_schema.description",
      "a schema's description",
      { responseFormat: { type: "json_schema", schema: { type: "object" }, description: "the answer" } },
    ],
    ["tools[].strict", "strict: true", { tools: [{ ...tool, strict: true }] }],
    ["parallel_tool_calls", "false beside tools", { tools: [tool], parallelToolCalls: false }],
    [
      "parallel_tool_calls",
      "false beside a required choice",
      { tools: [tool], toolChoice: { type: "required" }, parallelToolCalls: false },
    ],
    [
      "cache_control",
      "on a system block",
      { system: [{ type: "text", text: "S", cacheControl: { type: "ephemeral" } }] },
    ],
    ["cache_control", "on a tool", { tools: [{ ...tool, cacheControl: { type: "ephemeral" } }] }],
    [
      "cache_control",
      "inside a tool result",
      {
        messages: [
          { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "f", arguments: "{}" }] },
          ...userTurn({
            type: "tool_result",
            toolCallId: "c1",
            content: [{ type: "text", text: "r", cacheControl: { type: "ephemeral", ttl: "1h" } }],
          }),
        ],
      },
    ],
    [
      "citations",
      "replayed on an assistant text",
      { messages: history({ type: "text", text: "a", citations: [{ type: "x" }] }) },
    ],
    [
      "citations",
      "asked for on a document",
      { messages: userTurn({ type: "document", source: pdf, citations: true }) },
    ],
    [
      "image.detail",
      "low",
      {
        messages: userTurn({
          type: "image",
          source: { kind: "url", url: "https://x.test/a" },
          detail: "low",
        }),
      },
    ],
    [
      "document.title",
      "a document's title",
      { messages: userTurn({ type: "document", source: pdf, title: "Audit" }) },
    ],
    [
      "document.context",
      "a document's context",
      { messages: userTurn({ type: "document", source: pdf, context: "c" }) },
    ],
    [
      "thinking",
      "unsigned reasoning text from an earlier turn",
      { messages: history({ type: "thinking", text: "hmm" }) },
    ],
  ];
  for (const [name, when, overrides] of cases)
    test(`${name} is named: ${when}`, () => {
      assert.deepEqual(dropped(overrides), [name]);
    });

  test("parallel_tool_calls means nothing without tools", () => {
    assert.equal(dropped({ parallelToolCalls: false }), undefined);
    assert.equal(dropped({ tools: [tool], parallelToolCalls: true }), undefined);
  });

  test("every name once, in the vocabulary's order", () => {
    const names = dropped({
      tools: [{ ...tool, strict: true, cacheControl: { type: "ephemeral" } }],
      parallelToolCalls: false,
      user: "u",
      messages: [
        ...userTurn(
          { type: "document", source: pdf, title: "A", cacheControl: { type: "ephemeral" } },
          { type: "document", source: pdf, title: "B" },
        ),
        { role: "assistant", content: [{ type: "thinking", text: "t" }] },
      ],
    });
    assert.deepEqual(names, [
      "user",
      "tools[].strict",
      "parallel_tool_calls",
      "cache_control",
      "document.title",
      "thinking",
    ]);
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Message, Request } from "../../../src/ir/request.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { withUnsent } from "../helpers.ts";
import { irRequest } from "./helpers.ts";

function dropped(overrides: Partial<Request>): string[] | undefined {
  const target = { model: "gpt-4.1", stream: true };
  return withUnsent((unsent) => openaiChat.encodeRequest(irRequest(overrides), target, unsent)).dropped;
}

function userTurn(...content: Message["content"]): Message[] {
  return [{ role: "user", content }];
}

const tool = { name: "f", parameters: { type: "object" } };
const pdf = { kind: "base64" as const, mediaType: "application/pdf", data: "JVBERg==" };

describe("a chat-completions upstream names what it cannot be told", () => {
  test("a request this protocol can say in full has no `dropped`", () => {
    assert.equal(dropped({}), undefined);
    const everythingExpressible = dropped({
      system: [{ type: "text", text: "Be brief." }],
      messages: [
        ...userTurn(
          { type: "text", text: "see" },
          { type: "image", source: { kind: "url", url: "https://x.test/a.png" }, detail: "high" },
          { type: "document", source: { kind: "text", text: "notes", mediaType: "text/plain" }, title: "T" },
          { type: "document", source: pdf, title: "report.pdf", citations: false },
        ),
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "unsigned reasoning goes out as reasoning_details" },
            { type: "redacted_thinking", data: "enc" },
            { type: "tool_call", id: "c1", name: "f", arguments: "{}", signature: "sig" },
          ],
        },
        ...userTurn({
          type: "tool_result",
          toolCallId: "c1",
          content: [{ type: "text", text: "ok" }],
          isError: false,
        }),
      ],
      tools: [{ ...tool, strict: true }],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
      temperature: 0.2,
      topP: 0.9,
      frequencyPenalty: 0.1,
      presencePenalty: 0.1,
      seed: 7,
      logprobs: { topLogprobs: 2 },
      user: "u",
      responseFormat: { type: "json_schema", name: "r", description: "d", schema: { type: "object" } },
      reasoning: { budgetTokens: 9000, exclude: true },
    });
    assert.equal(everythingExpressible, undefined);
  });

  const cases: Array<[string, string, Partial<Request>]> = [
    ["top_k", "topK set", { topK: 40 }],
    [
      "reasoning",
      "reasoning switched off without saying none",
      { reasoning: { enabled: false, budgetTokens: 0 } },
    ],
    [
      "cache_control",
      "on a system block",
      { system: [{ type: "text", text: "S", cacheControl: { type: "ephemeral" } }] },
    ],
    ["cache_control", "on a tool", { tools: [{ ...tool, cacheControl: { type: "ephemeral", ttl: "1h" } }] }],
    [
      "citations",
      "replayed on an assistant text",
      {
        messages: [
          ...userTurn({ type: "text", text: "q" }),
          {
            role: "assistant",
            content: [{ type: "text", text: "a", citations: [{ type: "char_location" }] }],
          },
          ...userTurn({ type: "text", text: "more" }),
        ],
      },
    ],
    [
      "citations",
      "asked for on a document",
      { messages: userTurn({ type: "document", source: pdf, citations: true }) },
    ],
    [
      "tool_result.is_error",
      "an error result",
      {
        messages: [
          { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "f", arguments: "{}" }] },
          ...userTurn({
            type: "tool_result",
            toolCallId: "c1",
            content: [{ type: "text", text: "boom" }],
            isError: true,
          }),
        ],
      },
    ],
    [
      "document.context",
      "a document's context",
      { messages: userTurn({ type: "document", source: pdf, context: "from the 2024 audit" }) },
    ],
    [
      "document.title",
      "beside a filename",
      { messages: userTurn({ type: "document", source: pdf, title: "Audit", filename: "audit.pdf" }) },
    ],
    [
      "document.title",
      "beside a file id",
      {
        messages: userTurn({ type: "document", source: { kind: "file", fileId: "file-1" }, title: "Audit" }),
      },
    ],
  ];
  for (const [name, when, overrides] of cases)
    test(`${name} is named: ${when}`, () => {
      assert.deepEqual(dropped(overrides), [name]);
    });

  test("reasoning switched off is not named when the client itself said none (sent as `none`)", () => {
    assert.equal(dropped({ reasoning: { enabled: false, effort: "none" } }), undefined);
  });

  test("cache_control inside a tool result counts; each name comes once, in the vocabulary's order", () => {
    const names = dropped({
      topK: 5,
      messages: [
        { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "f", arguments: "{}" }] },
        ...userTurn(
          {
            type: "tool_result",
            toolCallId: "c1",
            isError: true,
            content: [{ type: "text", text: "x", cacheControl: { type: "ephemeral" } }],
          },
          { type: "text", text: "y", cacheControl: { type: "ephemeral" } },
          { type: "document", source: pdf, context: "c", citations: true },
        ),
      ],
    });
    assert.deepEqual(names, [
      "top_k",
      "cache_control",
      "citations",
      "document.context",
      "tool_result.is_error",
    ]);
  });
});

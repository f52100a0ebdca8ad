import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { Message, Request } from "../../../src/ir/request.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { withUnsent } from "../helpers.ts";
import { baseRequest } from "./helpers.ts";

const target = { model: "claude-sonnet-4-5-20250929", stream: true, maxOutputTokens: 64000 };

function dropped(
  overrides: Partial<Request>,
  maxOutputTokens = target.maxOutputTokens,
): string[] | undefined {
  const upstream = { ...target, maxOutputTokens };
  return withUnsent((unsent) => anthropic.encodeRequest(baseRequest(overrides), upstream, unsent)).dropped;
}

function history(...assistant: Message["content"]): Message[] {
  return [
    { role: "user", content: [{ type: "text", text: "q" }] },
    { role: "assistant", content: assistant },
    { role: "user", content: [{ type: "text", text: "go on" }] },
  ];
}

const tool = { name: "f", parameters: { type: "object" } };
const thinkingOn = { reasoning: { budgetTokens: 2048 } };

describe("a messages upstream names what it cannot be told", () => {
  test("a request this protocol can say in full has no `dropped`", () => {
    assert.equal(dropped({}), undefined);
    const everythingExpressible = dropped({
      system: [{ type: "text", text: "S", cacheControl: { type: "ephemeral" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "url", url: "https://x.test/a.png" }, detail: "auto" },
            {
              type: "document",
              source: { kind: "base64", mediaType: "application/pdf", data: "JVBERg==" },
              title: "T",
              context: "C",
              filename: "t.pdf",
              citations: true,
            },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "signed", signature: "sig" },
            { type: "thinking", text: "" },
            { type: "redacted_thinking", data: "enc" },
            { type: "text", text: "a", citations: [{ type: "char_location" }] },
            { type: "tool_call", id: "c1", name: "f", arguments: "{}", signature: "gemini-call-signature" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", toolCallId: "c1", content: [{ type: "text", text: "x" }], isError: true },
          ],
        },
      ],
      tools: [{ ...tool, strict: false, cacheControl: { type: "ephemeral", ttl: "1h" } }],
      toolChoice: { type: "tool", name: "f" },
      parallelToolCalls: false,
      temperature: 1.5,
      topP: 0.5,
      topK: 10,
      user: "u",
      stopSequences: ["END"],
      responseFormat: { type: "json_schema", name: "r", schema: { type: "object" }, strict: true },
      reasoning: { enabled: false },
    });
    assert.equal(everythingExpressible, undefined, "temperature clamped, not dropped; no thinking");
  });

  const cases: Array<[string, string, Partial<Request>]> = [
    ["frequency_penalty", "any value", { frequencyPenalty: 0 }],
    ["presence_penalty", "any value", { presencePenalty: 1 }],
    ["seed", "any value", { seed: 1 }],
    ["logprobs", "asked for", { logprobs: {} }],
    ["temperature", "beside thinking", { ...thinkingOn, temperature: 0.7 }],
    ["top_p", "below 0.95 beside thinking", { ...thinkingOn, topP: 0.9 }],
    ["top_k", "beside thinking", { ...thinkingOn, topK: 40 }],
    ["tools[].strict", "strict: true", { tools: [{ ...tool, strict: true }] }],
    [
      "response_format.json_schema.description",
      "a schema's description",
      { responseFormat: { type: "json_schema", schema: { type: "object" }, description: "the answer" } },
    ],
    [
      "image.detail",
      "high",
      {
        messages: [
          {
            role: "user",
            content: [{ type: "image", source: { kind: "url", url: "https://x.test/a" }, detail: "high" }],
          },
        ],
      },
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

  test("top_p of 0.95 or more stays beside thinking", () => {
    assert.equal(dropped({ ...thinkingOn, topP: 0.95 }), undefined);
  });

  test("reasoning is named when max_tokens leaves no room for the smallest budget", () => {
    assert.deepEqual(dropped({ maxOutputTokens: 1024, reasoning: { effort: "high" } }), ["reasoning"]);
    assert.deepEqual(dropped({ reasoning: { enabled: true } }, 1000), ["reasoning"]);
    assert.equal(dropped({ maxOutputTokens: 1025, reasoning: { effort: "high" } }), undefined);
    // Off, adaptive and display-only settings are always sent or mean nothing to send.
    assert.equal(dropped({ maxOutputTokens: 500, reasoning: { enabled: false } }), undefined);
    assert.equal(dropped({ maxOutputTokens: 500, reasoning: { adaptive: true } }), undefined);
    assert.equal(dropped({ maxOutputTokens: 500, reasoning: { exclude: true } }), undefined);
  });

  test("every name once, in the vocabulary's order", () => {
    const names = dropped({
      ...thinkingOn,
      seed: 3,
      temperature: 0.1,
      frequencyPenalty: 0.2,
      tools: [
        { ...tool, strict: true },
        { ...tool, name: "g", strict: true },
      ],
      messages: history(
        { type: "thinking", text: "a" },
        { type: "thinking", text: "b" },
        { type: "text", text: "c" },
      ),
    });
    assert.deepEqual(names, ["temperature", "frequency_penalty", "seed", "tools[].strict", "thinking"]);
  });
});

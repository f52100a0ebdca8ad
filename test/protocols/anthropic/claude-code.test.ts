// Claude Code's request shape (docs/architecture.md §9: what real clients send) decodes without error.

import assert from "node:assert/strict";
import { test } from "node:test";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";

const headers = {
  "anthropic-version": "2023-06-01",
  "anthropic-beta":
    "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,effort-2025-11-24",
  authorization: "Bearer sk-ss-v1-demo",
  "x-app": "cli",
};

const body = {
  model: "anthropic/claude-opus-4-6",
  max_tokens: 32000,
  stream: true,
  system: [
    {
      type: "text",
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cache_control: { type: "ephemeral" },
    },
    {
      type: "text",
      text: "Use the tools available to you.",
      cache_control: { type: "ephemeral", ttl: "1h" },
    },
  ],
  messages: [
    {
      role: "user",
      content: [
        { type: "text", text: "<system-reminder>Today is Monday.</system-reminder>" },
        { type: "text", text: "List the files.", cache_control: { type: "ephemeral" } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "", signature: "ErUBCkYIBRgCIkA..." },
        { type: "tool_use", id: "toolu_01ABC", name: "Bash", input: { command: "ls" } },
      ],
    },
    { role: "system", content: "The user switched to plan mode." },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_01ABC",
          content: "a.ts\nb.ts",
          is_error: false,
          cache_control: { type: "ephemeral" },
        },
      ],
    },
  ],
  tools: [
    {
      name: "Bash",
      description: "Run a shell command",
      input_schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { command: { type: "string" } },
        required: ["command"],
        additionalProperties: false,
      },
      cache_control: { type: "ephemeral" },
    },
  ],
  tool_choice: { type: "auto" },
  metadata: { user_id: "user_5f2c_account__session_0e6a" },
  thinking: { type: "adaptive" },
  output_config: { effort: "high" },
  context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
};

test("Claude Code's request decodes, keeping what crosses and naming what is dropped", () => {
  const req = anthropic.decodeRequest(body, { headers });
  assert.equal(req.stream, true);
  // metadata is unsupported on the messages face: dropped (relays still carry it byte for byte).
  assert.equal(req.user, undefined);
  assert.deepEqual(req.reasoning, { enabled: true, adaptive: true, effort: "high" });
  // The role:"system" entry joins the system blocks, after the top-level ones, with cache_control kept.
  assert.deepEqual(req.system, [
    {
      type: "text",
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cacheControl: { type: "ephemeral" },
    },
    { type: "text", text: "Use the tools available to you.", cacheControl: { type: "ephemeral", ttl: "1h" } },
    { type: "text", text: "The user switched to plan mode." },
  ]);
  assert.deepEqual(
    req.messages.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.deepEqual(req.messages[1].content[0], {
    type: "thinking",
    text: "",
    signature: "ErUBCkYIBRgCIkA...",
  });
  assert.deepEqual(req.messages[2].content[0], {
    type: "tool_result",
    toolCallId: "toolu_01ABC",
    content: [{ type: "text", text: "a.ts\nb.ts" }],
    isError: false,
    cacheControl: { type: "ephemeral" },
  });
  assert.equal(req.tools[0].cacheControl?.type, "ephemeral");
  assert.deepEqual(req.ignored.sort(), ["context_management", "metadata"]);
});

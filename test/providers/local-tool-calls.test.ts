// The local demo models' tool calls, as an agent such as Codex CLI drives them: the call's
// arguments come from what the user typed, and leave the tool's optional settings alone.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Request, ToolDefinition } from "../../src/ir/request.ts";
import { type LocalTokens, localReply } from "../../src/providers/local/reply.ts";
import { countTokensEach, truncateToTokens } from "../../src/providers/local/tokens.ts";

const tokens: LocalTokens = { countEach: countTokensEach, truncate: truncateToTokens };

/** Codex's shell tool, as it offers it: one required string, and optional knobs. */
const EXEC_COMMAND: ToolDefinition = {
  name: "exec_command",
  parameters: {
    type: "object",
    properties: {
      cmd: { type: "string" },
      workdir: { type: "string" },
      shell: { type: "string" },
      login: { type: "boolean" },
      yield_time_ms: { type: "number" },
    },
    required: ["cmd"],
    additionalProperties: false,
  },
};

function request(texts: string[], tools: ToolDefinition[]): Request {
  return {
    model: "local/echo-1",
    system: [],
    messages: [{ role: "user", content: texts.map((text) => ({ type: "text", text })) }],
    tools,
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
  };
}

async function callArguments(req: Request): Promise<unknown> {
  const reply = await localReply(req, { reasoning: false }, tokens);
  const call = reply.blocks.find((b) => b.type === "tool_call");
  assert.ok(call && call.type === "tool_call", JSON.stringify(reply.blocks));
  return JSON.parse(call.arguments);
}

test("a shell tool's optional workdir and shell are not filled with the prompt's phrase", async () => {
  const args = await callArguments(request(['Use exec_command to run "ls -la"'], [EXEC_COMMAND]));
  assert.deepEqual(args, { cmd: "ls -la" });
});

test("the phrase comes from what the user typed, not from Codex's environment context before it", async () => {
  const context =
    '<environment_context><permission_profile type="disabled"></permission_profile></environment_context>';
  const args = await callArguments(
    request([context, 'Use exec_command to run "echo hi > out.txt"'], [EXEC_COMMAND]),
  );
  assert.deepEqual(args, { cmd: "echo hi > out.txt" });
});

test("a schema without a required list still gets every property", async () => {
  const tool: ToolDefinition = {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" }, unit: { enum: ["c", "f"] } } },
  };
  assert.deepEqual(await callArguments(request(['Use get_weather for "Oslo"'], [tool])), {
    city: "Oslo",
    unit: "c",
  });
});

// Encoded requests sent to the Bedrock fake, which checks them as Bedrock does (turns that alternate,
// a toolConfig beside tool history, results linked to the previous turn's calls by id, no blank
// text), and its answers decoded: a tool round trip and a reasoning second turn, whole.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { request } from "undici";
import type { Request } from "../../../src/ir/request.ts";
import type { Response } from "../../../src/ir/response.ts";
import { bedrockConverse } from "../../../src/protocols/bedrock-converse/index.ts";
import { type FakeBedrock, startFakeBedrock } from "../../fakes/bedrock.ts";
import { baseRequest, CLAUDE, NOVA } from "./helpers.ts";

let bedrock: FakeBedrock;
before(async () => {
  bedrock = await startFakeBedrock();
});
after(() => bedrock.close());

async function converse(req: Request, model: string): Promise<Response> {
  const call = bedrockConverse.encodeRequest(req, { model, stream: false });
  const answer = await request(`${bedrock.url}${call.path}`, {
    method: "POST",
    body: JSON.stringify(call.body),
  });
  const json = await answer.body.json();
  if (answer.statusCode !== 200) throw bedrockConverse.decodeError(answer.statusCode, json, answer.headers);
  return bedrockConverse.decodeResponse(json);
}

test("a tool round trip: the call comes back, its result goes up linked by id, with the history's tools", async () => {
  bedrock.script({
    blocks: [{ type: "tool_call", id: "tooluse_abc", name: "get_weather", args: { city: "Oslo" } }],
  });
  const tools = [
    { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
  ];
  const first = await converse(
    baseRequest({ tools, messages: [{ role: "user", content: [{ type: "text", text: "Oslo?" }] }] }),
    NOVA,
  );
  assert.equal(first.finishReason, "tool_calls");
  const call = first.content[0];
  assert.equal(call.type, "tool_call");
  bedrock.script({ blocks: [{ type: "text", text: "Cold." }] });
  const second = await converse(
    baseRequest({
      tools,
      toolChoice: { type: "none" },
      messages: [
        { role: "user", content: [{ type: "text", text: "Oslo?" }] },
        { role: "assistant", content: first.content as Request["messages"][number]["content"] },
        {
          role: "user",
          content: [
            { type: "tool_result", toolCallId: "tooluse_abc", content: [{ type: "text", text: "-5C" }] },
          ],
        },
      ],
    }),
    NOVA,
  );
  assert.deepEqual(second.content, [{ type: "text", text: "Cold." }]);
  const sent = bedrock.requests.at(-1)?.body;
  assert.deepEqual(sent.messages[1].content[0].toolUse, {
    toolUseId: "tooluse_abc",
    name: "get_weather",
    input: { city: "Oslo" },
  });
  assert.equal(sent.messages[2].content[0].toolResult.toolUseId, "tooluse_abc");
});

test("a result naming no call of the previous turn is refused by the fake as by Bedrock (a 400)", async () => {
  const req = baseRequest({
    messages: [
      { role: "user", content: [{ type: "text", text: "go" }] },
      { role: "assistant", content: [{ type: "tool_call", id: "t1", name: "f", arguments: "{}" }] },
      {
        role: "user",
        content: [{ type: "tool_result", toolCallId: "other", content: [{ type: "text", text: "x" }] }],
      },
    ],
  });
  await assert.rejects(converse(req, NOVA), { status: 400, kind: "invalid_request" });
});

test("a reasoning second turn sends the signed reasoning back unchanged", async () => {
  bedrock.script({
    blocks: [
      { type: "thinking", text: "Two plus two.", signature: "EqQBCkgIARABGAIiQL" },
      { type: "text", text: "4" },
    ],
  });
  const reasoning = { budgetTokens: 1024 };
  const first = await converse(baseRequest({ reasoning, maxOutputTokens: 2048 }), CLAUDE);
  assert.deepEqual(first.content[0], {
    type: "thinking",
    text: "Two plus two.",
    signature: "EqQBCkgIARABGAIiQL",
  });
  await converse(
    baseRequest({
      reasoning,
      maxOutputTokens: 2048,
      messages: [
        { role: "user", content: [{ type: "text", text: "2+2?" }] },
        { role: "assistant", content: first.content as Request["messages"][number]["content"] },
        { role: "user", content: [{ type: "text", text: "And 3+3?" }] },
      ],
    }),
    CLAUDE,
  );
  const sent = bedrock.requests.at(-1)?.body;
  assert.deepEqual(sent.messages[1].content[0], {
    reasoningContent: { reasoningText: { text: "Two plus two.", signature: "EqQBCkgIARABGAIiQL" } },
  });
  assert.deepEqual(sent.additionalModelRequestFields, { thinking: { type: "enabled", budget_tokens: 1024 } });
});

// Bedrock CountTokens for a Claude model: the InvokeModel body the messages counter's body becomes,
// counted by the Bedrock fake (which refuses it as Bedrock does without `anthropic_version`).

import assert from "node:assert/strict";
import { test } from "node:test";
import { request } from "undici";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { bedrockConverse } from "../../../src/protocols/bedrock-converse/index.ts";
import { invokeModelCountCall } from "../../../src/providers/aws/count-tokens.ts";
import { startFakeBedrock } from "../../fakes/bedrock.ts";
import { baseRequest } from "../../protocols/bedrock-converse/helpers.ts";

const CLAUDE = "global.anthropic.claude-sonnet-4-5-20250929-v1:0";

test("a messages count body becomes a base64 InvokeModel body: no model, Bedrock's version, max_tokens above the budget, betas", () => {
  const counted = anthropic.tokenCounting?.encodeCountRequest(
    baseRequest({ system: [{ type: "text", text: "S" }], reasoning: { budgetTokens: 2048 } }),
    { model: "claude-sonnet-4-5" },
  );
  const call = invokeModelCountCall(CLAUDE, counted?.body as Record<string, unknown>, [
    "context-1m-2025-08-07",
  ]);
  assert.equal(call.path, "/model/global.anthropic.claude-sonnet-4-5-20250929-v1%3A0/count-tokens");
  const body = JSON.parse(Buffer.from(call.body.input.invokeModel.body, "base64").toString("utf8"));
  assert.equal(body.model, undefined);
  assert.equal(body.anthropic_version, "bedrock-2023-05-31");
  assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: 2048 });
  assert.equal(body.max_tokens, 2049);
  assert.deepEqual(body.anthropic_beta, ["context-1m-2025-08-07"]);
  assert.deepEqual(body.messages, [{ role: "user", content: [{ type: "text", text: "Hello" }] }]);
});

test("the fake counts both inputs, and its count decodes", async () => {
  const bedrock = await startFakeBedrock();
  try {
    const send = async (call: { path: string; body: unknown }) => {
      const answer = await request(`${bedrock.url}${call.path}`, {
        method: "POST",
        body: JSON.stringify(call.body),
      });
      return { status: answer.statusCode, json: await answer.body.json() };
    };
    const counted = anthropic.tokenCounting?.encodeCountRequest(baseRequest(), {
      model: "claude-sonnet-4-5",
    });
    const invoke = invokeModelCountCall(CLAUDE, counted?.body as Record<string, unknown>);
    const answer = await send(invoke);
    assert.equal(answer.status, 200);
    const expected = Math.ceil(Buffer.from(invoke.body.input.invokeModel.body, "base64").length / 4);
    assert.equal(bedrockConverse.countTokens.decodeCount(answer.json), expected);
    const converse = await send(
      bedrockConverse.countTokens.encodeCountRequest(baseRequest(), { model: "us.amazon.nova-pro-v1:0" }),
    );
    assert.equal(converse.status, 200);
    assert.equal(bedrock.requests[1].modelId, "us.amazon.nova-pro-v1:0");
    // The messages counter's body as it is (a model, no version) is refused as Bedrock refuses it.
    const unconverted = {
      input: { invokeModel: { body: Buffer.from(JSON.stringify(counted?.body)).toString("base64") } },
    };
    const refused = await send({ path: invoke.path, body: unconverted });
    assert.equal(refused.status, 400);
    assert.match(String((refused.json as { message: string }).message), /anthropic_version/);
  } finally {
    await bedrock.close();
  }
});

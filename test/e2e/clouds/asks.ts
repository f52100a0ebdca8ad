// What the cloud platform tests ask the gateway, shared: a messages request with a beta and a
// `cache_control` block (what a relay to Claude on a platform must carry), and an answer's text.

import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { PAYG_KEY } from "../../support/gateway.ts";

export function anthropicAt(gatewayUrl: string): Anthropic {
  return new Anthropic({ apiKey: PAYG_KEY, baseURL: gatewayUrl, maxRetries: 0 });
}

/** Asks `model` with `beta` and a cached block; checks the answer's text and catalog model. */
export async function askClaudeWithBeta(gatewayUrl: string, model: string, beta: string, expected: string) {
  const answer = await anthropicAt(gatewayUrl).beta.messages.create({
    model,
    max_tokens: 100,
    betas: [beta],
    messages: [
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
    ],
  });
  assert.equal(textOf(answer.content), expected);
  assert.equal(answer.model, model);
}

/** The first block's text, or false when it is not text. */
export function textOf(content: ReadonlyArray<{ type: string; text?: string }>): string | false {
  const first = content[0];
  return first?.type === "text" && typeof first.text === "string" && first.text;
}

/** Streams `model`'s answer to "hi" through the messages SDK; checks its text. */
export async function streamClaude(gatewayUrl: string, model: string, expected: string): Promise<void> {
  const message = await anthropicAt(gatewayUrl)
    .messages.stream({ model, max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
    .finalMessage();
  assert.equal(textOf(message.content), expected);
}

/** POSTs a messages body as it is (no SDK between: the raw answer is read), with the test key. */
export function postMessages(gatewayUrl: string, body: object): Promise<Response> {
  return fetch(`${gatewayUrl}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

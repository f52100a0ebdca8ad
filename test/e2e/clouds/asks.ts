// What the cloud platform tests ask the gateway, shared: a messages request with a beta and a
// `cache_control` block (what a relay to Claude on a platform must carry), and an answer's text.

import assert from "node:assert/strict";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import { OAuth2Client } from "google-auth-library";
import type { FakeGoogleTokens } from "../../fakes/platforms.ts";
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

/** The official @google/genai client on Vertex AI (`vertexai: true`) at the fake, holding a token its metadata server issued. */
export async function vertexGenAI(
  tokens: FakeGoogleTokens,
  vertexUrl: string,
  project: string,
  location: string,
): Promise<GoogleGenAI> {
  const res = await fetch(
    `http://${tokens.host}/computeMetadata/v1/instance/service-accounts/default/token`,
    {
      headers: { "metadata-flavor": "Google" },
    },
  );
  const { access_token } = (await res.json()) as { access_token: string };
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token, expiry_date: Date.now() + 3_600_000 });
  return new GoogleGenAI({
    vertexai: true,
    project,
    location,
    googleAuthOptions: { authClient },
    httpOptions: { baseUrl: vertexUrl, apiVersion: "v1" },
  });
}

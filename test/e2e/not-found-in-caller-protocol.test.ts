// A path the gateway does not serve is answered 404 in the protocol of the client that called it,
// so that each official SDK raises its own typed not-found error with a readable message: Gemini's
// shape for `/v1beta/…` and for any path ending in a `:method`, Anthropic's for `/v1/messages…`,
// OpenAI's for `/v1/responses…` and everything else.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;

before(async () => {
  gw = await startGateway();
});
after(() => gw?.stop());

/** The body of a Gemini SDK ApiError (the SDK keeps the answer's JSON as its message). */
async function geminiFailure(call: Promise<unknown>): Promise<{ status: number; body: any }> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { status: err.status, body: JSON.parse(err.message) };
  }
  assert.fail("the call succeeded");
}

describe("Gemini clients", () => {
  test("a method the gateway does not serve, under a custom API version, is a Gemini NOT_FOUND", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, apiVersion: "v2", httpOptions: { baseUrl: gw.url } });
    const { status, body } = await geminiFailure(
      ai.models.generateContent({ model: "local/echo-1", contents: "hi" }),
    );
    assert.equal(status, 404);
    assert.equal(body.error.code, 404);
    assert.equal(body.error.status, "NOT_FOUND");
    assert.match(body.error.message, /No route/);
  });

  test("an unknown path under /v1beta/ is a Gemini NOT_FOUND", async () => {
    const res = await fetch(`${gw.url}/v1beta/cachedContents`, { headers: { "x-goog-api-key": PAYG_KEY } });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as any).error.status, "NOT_FOUND");
  });

  test("/v1beta itself, and /v1beta/models/ without a model, are a Gemini NOT_FOUND", async () => {
    for (const path of ["/v1beta", "/v1beta?key=x", "/v1beta/", "/v1beta/models/"]) {
      const res = await fetch(`${gw.url}${path}`, { headers: { "x-goog-api-key": PAYG_KEY } });
      const body = (await res.json()) as any;
      assert.equal(res.status, 404, path);
      assert.equal(body.error.code, 404, path);
      assert.equal(body.error.status, "NOT_FOUND", path);
    }
  });

  test("an undecodable escape before a :method is a Gemini 400, not the chat shape", async () => {
    const res = await fetch(`${gw.url}/v2/models/%FF:generateContent`, { method: "POST", body: "{}" });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.status, "INVALID_ARGUMENT");
  });
});

describe("Anthropic clients", () => {
  test("message batches, which the gateway does not serve, are an Anthropic not_found_error", async () => {
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const err = await client.messages.batches.retrieve("msgbatch_0123").then(
      () => assert.fail("the call succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof Anthropic.NotFoundError, String(err));
    const body = err.error as any;
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "not_found_error");
    assert.match(body.error.message, /No route for GET \/v1\/messages\/batches\/msgbatch_0123/);
  });
});

describe("OpenAI Responses clients", () => {
  test("retrieving a stored response (the gateway stores none) is an OpenAI not_found_error", async () => {
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const err = await client.responses.retrieve("resp_0123").then(
      () => assert.fail("the call succeeded"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof OpenAI.NotFoundError, String(err));
    assert.equal(err.type, "not_found_error");
    assert.equal(err.code, "not_found");
  });
});

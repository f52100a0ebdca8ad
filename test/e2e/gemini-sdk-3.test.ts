// The unmodified `@google/genai` 3.x, whose default API version is `v1`: it calls
// `/v1/models/{m}:generateContent` and lists with `GET /v1/models`, which the gateway shares with the
// chat-completions listing. A Gemini client (one that sends `x-goog-api-key` or `?key=`) gets the
// content-generation endpoints and Gemini's listing shape there, as under `/v1beta/`.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ApiError, GoogleGenAI, type Model } from "@google/genai-3";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
let ai: GoogleGenAI;
const seen: string[] = [];

before(async () => {
  gw = await startGateway();
  // The SDK's own fetch, watched, so that each test proves which API version it used.
  const watched: typeof fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    seen.push(
      `${init?.method ?? (input instanceof Request ? input.method : "GET")} ${new URL(url).pathname}`,
    );
    return fetch(input, init);
  };
  ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url, fetch: watched } });
});
after(() => gw?.stop());

describe("listing under /v1/", () => {
  test("models.list() pages through the models in Gemini's shape", async () => {
    const models: Model[] = [];
    const pager = await ai.models.list({ config: { pageSize: 1 } });
    for await (const m of pager) models.push(m);
    const names = models.map((m) => m.name);
    assert.ok(names.includes("models/local/echo-1") && names.includes("models/local/think-1"), names.join());
    assert.ok(models.every((m) => typeof m.inputTokenLimit === "number"));
    assert.ok(
      seen.some((s) => s.startsWith("GET /v1/models")),
      seen.join(),
    );
  });

  test("models.get() answers one record in Gemini's shape", async () => {
    const model = await ai.models.get({ model: "local/think-1" });
    assert.equal(model.name, "models/local/think-1");
    assert.equal(model.thinking, true);
    assert.ok(model.supportedActions?.includes("generateContent"));
  });

  test("an unknown model is a Gemini NOT_FOUND", async () => {
    const err = await ai.models.get({ model: "local/nope" }).then(
      () => assert.fail("found"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ApiError);
    assert.equal(err.status, 404);
    assert.equal(JSON.parse(err.message).error.status, "NOT_FOUND");
  });

  test("?key= marks a Gemini caller too; without a Gemini credential the chat listing stays", async () => {
    const byQuery = (await (await fetch(`${gw.url}/v1/models?key=${PAYG_KEY}`)).json()) as any;
    assert.ok(Array.isArray(byQuery.models), JSON.stringify(byQuery).slice(0, 200));
    const one = (await (await fetch(`${gw.url}/v1/models/local/echo-1?key=${PAYG_KEY}`)).json()) as any;
    assert.equal(one.name, "models/local/echo-1");
    const chat = (await (await fetch(`${gw.url}/v1/models`)).json()) as any;
    assert.equal(chat.object, "list");
  });
});

describe("content generation under /v1/models/", () => {
  test("generateContent", async () => {
    const res = await ai.models.generateContent({ model: "local/echo-1", contents: "Hello from v1" });
    assert.equal(res.text, "You said: Hello from v1");
    assert.match(res.responseId ?? "", /^gen-/);
    assert.ok(seen.includes("POST /v1/models/local/echo-1:generateContent"), seen.join());
  });

  test("generateContentStream", async () => {
    let text = "";
    let last: any;
    for await (const chunk of await ai.models.generateContentStream({
      model: "local/echo-1",
      contents: "Stream on v1",
    })) {
      text += chunk.text ?? "";
      last = chunk;
    }
    assert.equal(text, "You said: Stream on v1");
    assert.equal(last.candidates[0].finishReason, "STOP");
    assert.ok(seen.includes("POST /v1/models/local/echo-1:streamGenerateContent"), seen.join());
  });

  test("the generation is recorded and looked up like any other", async () => {
    const res = await ai.models.generateContent({ model: "local/echo-1", contents: "look me up" });
    const record = await fetch(`${gw.url}/api/v1/management/generation?id=${res.responseId}`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    assert.equal(record.status, 200);
    assert.equal(((await record.json()) as any).api, "generateContent");
  });
});

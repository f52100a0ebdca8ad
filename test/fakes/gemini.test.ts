// The fake Gemini upstream driven by the official `@google/genai` SDK (no gateway).

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { ApiError, type GenerateContentResponse, GoogleGenAI } from "@google/genai";
import { type FakeUpstream, type Reply, startFakeUpstream } from "./index.ts";
import { post } from "./read-frames.ts";

const ARGS = { location: "Paris", days: 2 };
const RICH: Reply = {
  blocks: [
    { type: "thinking", text: "Think about Paris weather.", signature: "thought-sig-1" },
    { type: "text", text: "Looking it up." },
    { type: "tool_call", name: "get_weather", args: ARGS, signature: "call-sig-1" },
  ],
  usage: { input: 30, cacheRead: 70, output: 15, reasoning: 25 },
};

let fake: FakeUpstream;
let ai: GoogleGenAI;
before(async () => {
  fake = await startFakeUpstream("gemini");
  ai = new GoogleGenAI({ apiKey: "gm-fake", httpOptions: { baseUrl: fake.url } });
});
after(() => fake.close());
beforeEach(() => fake.reset());

const params = { model: "gemini-fake", contents: "weather?" };

describe("gemini fake, generateContent", () => {
  test("thought parts with thoughtSignature, a signed functionCall and usage semantics", async () => {
    fake.script(RICH);
    const response = await ai.models.generateContent(params);
    const candidate = response.candidates?.[0];
    assert.equal(candidate?.finishReason, "STOP");
    assert.equal(candidate?.content?.role, "model");
    assert.deepEqual(candidate?.content?.parts, [
      { text: "Think about Paris weather.", thought: true, thoughtSignature: "thought-sig-1" },
      { text: "Looking it up." },
      { functionCall: { name: "get_weather", args: ARGS }, thoughtSignature: "call-sig-1" },
    ]);
    assert.equal(response.functionCalls?.[0].id, undefined, "no id unless the script gives one");
    assert.equal(response.modelVersion, "gemini-fake");
    assert.equal(typeof response.responseId, "string");
    // promptTokenCount includes cached tokens; thoughts are outside candidates but inside the total.
    assert.equal(response.usageMetadata?.promptTokenCount, 100);
    assert.equal(response.usageMetadata?.cachedContentTokenCount, 70);
    assert.equal(response.usageMetadata?.candidatesTokenCount, 15);
    assert.equal(response.usageMetadata?.thoughtsTokenCount, 25);
    assert.equal(response.usageMetadata?.totalTokenCount, 140);

    const recorded = fake.requests.at(-1)!;
    assert.equal(recorded.path, "/v1beta/models/gemini-fake:generateContent");
    assert.equal(recorded.headers["x-goog-api-key"], "gm-fake");
    assert.equal(recorded.body.contents[0].parts[0].text, "weather?");
  });

  test("a scripted tool-call id is sent as functionCall.id", async () => {
    fake.script({ blocks: [{ type: "tool_call", id: "fc-1", name: "noop", args: "{}" }] });
    const response = await ai.models.generateContent(params);
    assert.deepEqual(response.functionCalls, [{ id: "fc-1", name: "noop", args: {} }]);
  });

  test("a missing key is PERMISSION_DENIED and status 429 is an ApiError 429", async () => {
    const noKey = await post(`${fake.url}/v1beta/models/gemini-fake:generateContent`, { contents: [] }, {});
    assert.equal(noKey.status, 403);
    assert.equal(JSON.parse(noKey.text).error.status, "PERMISSION_DENIED");
    fake.script({ status: 429, headers: { "retry-after": "2" } });
    await assert.rejects(ai.models.generateContent(params), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 429);
      assert.equal(JSON.parse(err.message).error.status, "RESOURCE_EXHAUSTED");
      return true;
    });
  });
});

describe("gemini fake, streamGenerateContent", () => {
  test("thought pieces, a whole signed functionCall, finishReason and usage on the last chunk", async () => {
    fake.script({ ...RICH, chunks: 2 });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);

    const parts = chunks.map((c) => c.candidates?.[0]?.content?.parts?.[0]);
    assert.deepEqual(parts, [
      { text: "Think about P", thought: true },
      { text: "aris weather.", thought: true, thoughtSignature: "thought-sig-1" },
      { text: "Looking" },
      { text: " it up." },
      { functionCall: { name: "get_weather", args: ARGS }, thoughtSignature: "call-sig-1" },
    ]);
    assert.ok(chunks.every((c) => c.responseId === chunks[0].responseId && c.modelVersion === "gemini-fake"));
    assert.ok(chunks.slice(0, -1).every((c) => !c.candidates?.[0].finishReason && !c.usageMetadata));
    const last = chunks.at(-1)!;
    assert.equal(last.candidates?.[0].finishReason, "STOP");
    assert.equal(last.usageMetadata?.promptTokenCount, 100);
    assert.equal(last.usageMetadata?.thoughtsTokenCount, 25);

    const recorded = fake.requests.at(-1)!;
    assert.equal(recorded.path, "/v1beta/models/gemini-fake:streamGenerateContent?alt=sse");
  });

  test("raw frames are one data: JSON each, CRLF-delimited, with no [DONE]", async () => {
    fake.script({ blocks: [{ type: "text", text: "abc" }], extraFields: { x_extra: true } });
    const res = await post(
      `${fake.url}/v1beta/models/gemini-fake:streamGenerateContent?alt=sse`,
      { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
      { "x-goog-api-key": "k" },
    );
    assert.match(res.text, /^data: \{.*\}\r\n\r\ndata: /);
    const data = res.frames.map((f) => JSON.parse(f.data));
    assert.equal(data.length, 3);
    assert.ok(data.every((d) => d.x_extra === true && d.candidates[0].index === 0));
  });

  test("a max-tokens finish is MAX_TOKENS", async () => {
    fake.script({ blocks: [{ type: "text", text: "cut" }], finish: "length" });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of await ai.models.generateContentStream(params)) chunks.push(chunk);
    assert.equal(chunks.at(-1)?.candidates?.[0].finishReason, "MAX_TOKENS");
  });
});

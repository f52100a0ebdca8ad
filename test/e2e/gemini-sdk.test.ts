// The unmodified `@google/genai` SDK against a running gateway: listing with its pager, content
// generation, streaming, function calling, thinking, and typed errors.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ApiError, GoogleGenAI, type Model } from "@google/genai";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
let ai: GoogleGenAI;

before(async () => {
  gw = await startGateway();
  ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
});
after(() => gw?.stop());

describe("listing", () => {
  test("pages through every model with the content-generation record fields", async () => {
    const models: Model[] = [];
    const pager = await ai.models.list({ config: { pageSize: 1 } });
    for await (const m of pager) models.push(m);
    const names = models.map((m) => m.name);
    assert.ok(
      names.includes("models/local/echo-1") && names.includes("models/local/think-1"),
      names.join(","),
    );
    for (const m of models) {
      const r = m as unknown as Record<string, any>;
      assert.equal(typeof r.displayName, "string");
      assert.equal(typeof r.description, "string");
      assert.equal(typeof r.inputTokenLimit, "number");
      assert.equal(typeof r.outputTokenLimit, "number");
      assert.equal(typeof r.thinking, "boolean");
    }
  });

  test("records carry modalities and pricings (fields the SDK's Model type does not surface)", async () => {
    const res = await fetch(`${gw.url}/v1beta/models?pageSize=1000`);
    const body = (await res.json()) as any;
    assert.ok(body.models.length >= 2);
    for (const r of body.models) {
      assert.ok(Array.isArray(r.inputModalities) && Array.isArray(r.outputModalities), r.name);
      // An embedding model is priced by its input alone.
      const writes = !r.outputModalities.includes("embeddings");
      assert.ok(r.pricings.prompt.length > 0 && (!writes || r.pricings.completion.length > 0), r.name);
    }
  });

  test("gets one model by the name the listing gave", async () => {
    const model = await ai.models.get({ model: "models/local/think-1" });
    assert.equal(model.name, "models/local/think-1");
  });
});

describe("generateContent", () => {
  test("generates content with usageMetadata and the generation id", async () => {
    const res = await ai.models.generateContent({
      model: "local/echo-1",
      contents: "Hello from Gemini land",
      config: { systemInstruction: "Be brief." },
    });
    assert.equal(res.text, "You said: Hello from Gemini land");
    assert.match(res.responseId ?? "", /^gen-/);
    assert.equal(res.candidates?.[0].finishReason, "STOP");
    const u = res.usageMetadata!;
    assert.ok(u.promptTokenCount! > 0 && u.candidatesTokenCount! > 0);
    assert.equal(u.totalTokenCount, u.promptTokenCount! + u.candidatesTokenCount!);
  });

  test("streams content; the last chunk carries finishReason and usage", async () => {
    const stream = await ai.models.generateContentStream({
      model: "local/echo-1",
      contents: "Stream it to me",
    });
    let text = "";
    let chunks = 0;
    let last: any;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.text ?? "";
      last = chunk;
    }
    assert.equal(text, "You said: Stream it to me");
    assert.ok(chunks > 1);
    assert.equal(last.candidates[0].finishReason, "STOP");
    assert.ok(last.usageMetadata.candidatesTokenCount > 0);
  });

  test("a bare model name resolves when one served model has it", async () => {
    const res = await ai.models.generateContent({ model: "echo-1", contents: "bare name" });
    assert.equal(res.text, "You said: bare name");
  });

  test("calls a function, then answers from its response", async () => {
    const tools = [
      {
        functionDeclarations: [
          {
            name: "get_weather",
            description: "Weather for a city",
            parametersJsonSchema: {
              type: "object",
              properties: { city: { type: "string" } },
              required: ["city"],
            },
          },
        ],
      },
    ];
    const first = await ai.models.generateContent({
      model: "local/echo-1",
      contents: 'Please get_weather for "Rome"',
      config: { tools },
    });
    const call = first.functionCalls?.[0];
    assert.ok(call);
    assert.equal(call.name, "get_weather");
    assert.deepEqual(call.args, { city: "Rome" });
    const second = await ai.models.generateContent({
      model: "local/echo-1",
      contents: [
        { role: "user", parts: [{ text: 'Please get_weather for "Rome"' }] },
        first.candidates![0].content!,
        {
          role: "user",
          parts: [{ functionResponse: { name: "get_weather", id: call.id, response: { result: "25C" } } }],
        },
      ],
      config: { tools },
    });
    assert.match(second.text ?? "", /25C/);
  });

  test("returns thought parts from a thinking model when asked", async () => {
    const res = await ai.models.generateContent({
      model: "local/think-1",
      contents: "Ponder this",
      config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
    });
    const parts = res.candidates![0].content!.parts!;
    const thought = parts.find((p) => p.thought);
    assert.ok(thought, JSON.stringify(parts));
    assert.match(thought.text ?? "", /The user wrote 2 words/);
    assert.ok((res.usageMetadata?.thoughtsTokenCount ?? 0) > 0);
  });
});

describe("bad input", () => {
  const apiError = async (p: Promise<unknown>): Promise<ApiError> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
    assert.fail("expected an ApiError");
  };

  test("a wrong key is a 401", async () => {
    const bad = new GoogleGenAI({ apiKey: "wrong-key", httpOptions: { baseUrl: gw.url } });
    const err = await apiError(bad.models.generateContent({ model: "local/echo-1", contents: "x" }));
    assert.equal(err.status, 401);
  });

  test("an unknown model is a 404", async () => {
    const err = await apiError(ai.models.generateContent({ model: "nope/nothing", contents: "x" }));
    assert.equal(err.status, 404);
  });

  for (const [field, config] of [
    ["topP", { topP: 2 }],
    ["stopSequences", { stopSequences: ["a", "b", "c", "d", "e", "f"] }],
    ["presencePenalty", { presencePenalty: 2 }],
    ["candidateCount", { candidateCount: 3 }],
  ] as const) {
    test(`a bad ${field} is a 400 naming it`, async () => {
      const err = await apiError(
        ai.models.generateContent({ model: "local/echo-1", contents: "x", config: config as any }),
      );
      assert.equal(err.status, 400);
      assert.match(err.message, new RegExp(field));
    });
  }

  test("errors come in the content-generation error shape", async () => {
    const res = await fetch(`${gw.url}/v1beta/models/local/echo-1:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": PAYG_KEY },
      body: "{oops",
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as any;
    assert.equal(body.error.code, 400);
    assert.equal(body.error.status, "INVALID_ARGUMENT");
  });

  test("the key is also accepted as ?key=", async () => {
    const res = await fetch(`${gw.url}/v1beta/models/local/echo-1:generateContent?key=${PAYG_KEY}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "query key" }] }] }),
    });
    assert.equal(res.status, 200);
  });
});

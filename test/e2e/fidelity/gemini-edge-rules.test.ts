// Issue 12 item 13, the content-generation edge rules (docs/architecture.md §8), through @google/genai: an inlineData mime type outside the
// accepted list, a safetySettings category / threshold / method outside its enum, and
// responseModalities [IMAGE] without TEXT are each a 400 in Gemini's shape naming the field, on a
// relayed route and a translated one, with nothing sent upstream; what the rules allow passes.
// (thinkingConfig on a model that does not think and thinkingBudget tiers:
// test/e2e/gemini-thinking-config.test.ts.)

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiError, GoogleGenAI } from "@google/genai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let fg: FakeUpstream;
let fo: FakeUpstream;
let ai: GoogleGenAI;

before(async () => {
  [fg, fo] = await Promise.all([startFakeUpstream("gemini"), startFakeUpstream("openai")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-gemini-edge-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("fg", fg), fakeProvider("fo", fo)],
      models: [fakeModel("fg/gemini-2.5-flash", ["fg"]), fakeModel("fo/m", ["fo"])],
    }),
    { dir },
  );
  ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
});
after(async () => {
  await gw?.stop();
  await Promise.all([fg?.close(), fo?.close()]);
});

const PNG = Buffer.from("89504e470d0a1a0a", "hex").toString("base64");

async function refused(request: Parameters<GoogleGenAI["models"]["generateContent"]>[0], field: string) {
  const sent = fg.requests.length + fo.requests.length;
  await assert.rejects(ai.models.generateContent(request), (error: unknown) => {
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, 400);
    assert.ok(error.message.includes("INVALID_ARGUMENT"), error.message);
    assert.ok(error.message.includes(`"message":"${field}: `), error.message);
    return true;
  });
  assert.equal(fg.requests.length + fo.requests.length, sent, "nothing reached an upstream");
}

for (const model of ["fg/gemini-2.5-flash", "fo/m"]) {
  test(`inlineData.mimeType outside the accepted list is refused (${model})`, async () => {
    await refused(
      {
        model,
        contents: [
          {
            role: "user",
            parts: [{ text: "What is it?" }, { inlineData: { mimeType: "image/gif", data: PNG } }],
          },
        ],
      },
      "contents[0].parts[1].inlineData.mimeType",
    );
    const ok = await ai.models.generateContent({
      model,
      contents: [
        {
          role: "user",
          parts: [{ text: "What is it?" }, { inlineData: { mimeType: "image/png", data: PNG } }],
        },
      ],
    });
    assert.ok(ok.text);
  });

  test(`safetySettings outside their enums are refused (${model})`, async () => {
    await refused(
      {
        model,
        contents: "hi",
        config: {
          safetySettings: [{ category: "HARM_CATEGORY_RUDENESS" as never, threshold: "BLOCK_NONE" as never }],
        },
      },
      "safetySettings[0].category",
    );
    const ok = await ai.models.generateContent({
      model,
      contents: "hi",
      config: {
        safetySettings: [
          {
            category: "HARM_CATEGORY_DANGEROUS_CONTENT" as never,
            threshold: "BLOCK_ONLY_HIGH" as never,
          },
        ],
      },
    });
    assert.ok(ok.text);
  });

  test(`responseModalities [IMAGE] without TEXT is refused (${model})`, async () => {
    await refused(
      { model, contents: "draw a cat", config: { responseModalities: ["IMAGE" as never] } },
      "generationConfig.responseModalities",
    );
  });
}

// The SDK itself refuses `method` outside Vertex mode, so the wire is spoken directly here.
test("a safetySettings method outside its enum is refused; a valid one passes", async () => {
  const post = (method: string) =>
    fetch(`${gw.url}/v1beta/models/fg/gemini-2.5-flash:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        contents: [{ parts: [{ text: "hi" }] }],
        safetySettings: [{ category: "HARM_CATEGORY_HATE_SPEECH", threshold: "OFF", method }],
      }),
    });
  const bad = await post("LOUDNESS");
  const body = (await bad.json()) as { error: { message: string; status: string } };
  assert.equal(bad.status, 400);
  assert.equal(body.error.status, "INVALID_ARGUMENT");
  assert.ok(body.error.message.startsWith("safetySettings[0].method: "), body.error.message);
  const good = await post("SEVERITY");
  assert.equal(good.status, 200, await good.text());
});

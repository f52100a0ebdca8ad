// Faults seen through the other client protocols' official SDKs: a messages client (Anthropic SDK)
// and a content-generation client (Google GenAI SDK), each on its own protocol's fake (relay path).
// Neither protocol carries `provider.routing`: the model's routing default decides the fallback.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import { DEFAULT_TEXT, type FakeUpstream, type Reply, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { fakeProvider, model } from "./support.ts";

const LIMIT = { timeout: 4000 };
const BROKEN: Reply = {
  blocks: [{ type: "text", text: DEFAULT_TEXT }],
  chunks: 4,
  chunkDelayMs: 30,
  fault: "midstream-error",
};

let gw: RunningGateway;
let x: FakeUpstream;
let g: FakeUpstream;
let b: FakeUpstream;

before(async () => {
  [x, g, b] = await Promise.all([
    startFakeUpstream("anthropic"),
    startFakeUpstream("gemini"),
    startFakeUpstream("openai"),
  ]);
  const models = [];
  for (const [primary, name] of [
    ["x", "msg"],
    ["g", "gem"],
  ])
    for (const c of ["hang", "broken", "down"])
      models.push(
        model(`oc/${name}-${c}`, [primary, "b"], c === "down" ? { routing: { fallback: "false" } } : {}),
      );
  const dir = mkdtempSync(join(tmpdir(), "switchyard-client-protocols-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("x", x), fakeProvider("g", g), fakeProvider("b", b)],
      models,
      routing: { health: { failure_threshold: 100000 } },
    }),
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all([x, g, b].map((f) => f?.close()));
});

describe("messages client (Anthropic SDK)", () => {
  const client = () => new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
  const params = (model: string) => ({
    model,
    max_tokens: 100,
    messages: [{ role: "user" as const, content: "hi" }],
  });

  test("a primary that hangs: the stream comes from the fallback", LIMIT, async () => {
    x.script({ fault: "hang" });
    const stream = client().messages.stream(params("oc/msg-hang"));
    const message = await stream.finalMessage();
    assert.equal(message.content[0].type === "text" && message.content[0].text, DEFAULT_TEXT);
  });

  test("a stream that fails midway ends in the SDK's error, after part of the text", LIMIT, async () => {
    x.script(BROKEN);
    const stream = client().messages.stream(params("oc/msg-broken"));
    let text = "";
    stream.on("text", (t) => {
      text += t;
    });
    await assert.rejects(stream.finalMessage(), (err: Error) => /Overloaded|overloaded/.test(err.message));
    assert.ok(text.length > 0 && DEFAULT_TEXT.startsWith(text), text);
  });

  test("fallback false (model default): the upstream's 503 is the SDK's APIError", LIMIT, async () => {
    x.script({ status: 503 });
    await assert.rejects(
      client().messages.create(params("oc/msg-down")),
      (err: unknown) => err instanceof Anthropic.APIError && err.status === 503,
    );
    assert.equal(b.requests.filter((r) => r.body?.model === "msg-down").length, 0);
  });
});

describe("content-generation client (Google GenAI SDK)", () => {
  const ai = () => new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });

  test("a primary that hangs: the stream comes from the fallback", LIMIT, async () => {
    g.script({ fault: "hang" });
    let text = "";
    for await (const chunk of await ai().models.generateContentStream({
      model: "oc/gem-hang",
      contents: "hi",
    }))
      text += chunk.text ?? "";
    assert.equal(text, DEFAULT_TEXT);
  });

  test("a stream that fails midway ends in an error, after part of the text", LIMIT, async () => {
    g.script(BROKEN);
    let text = "";
    await assert.rejects(async () => {
      for await (const chunk of await ai().models.generateContentStream({
        model: "oc/gem-broken",
        contents: "hi",
      }))
        text += chunk.text ?? "";
    });
    assert.ok(text.length > 0 && DEFAULT_TEXT.startsWith(text), text);
  });

  test("fallback false (model default): the upstream's 503 is the SDK's ApiError", LIMIT, async () => {
    g.script({ status: 503 });
    await assert.rejects(
      ai().models.generateContent({ model: "oc/gem-down", contents: "hi" }),
      (err: unknown) => err instanceof ApiError && err.status === 503,
    );
  });
});

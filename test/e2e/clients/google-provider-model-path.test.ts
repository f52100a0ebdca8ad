// Google clients given a `provider/model` id treat it as a resource path: the AI SDK's
// `google("local/echo-1")` (and LangChain's ChatGoogleGenerativeAI) call
// `/v1beta/local/echo-1:generateContent`, without `models/`. The gateway resolves
// `/v1beta/{provider}/{model}:method`, and its `/v1/` twin, to the catalog model.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, streamText } from "ai";
import { PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
before(async () => {
  gw = await startGateway();
});
after(() => gw?.stop());

for (const version of ["v1beta", "v1"]) {
  describe(`google("local/echo-1") with base URL …/${version}`, () => {
    const google = () => createGoogleGenerativeAI({ baseURL: `${gw.url}/${version}`, apiKey: PAYG_KEY });

    test("generateText", async () => {
      const { text, response } = await generateText({ model: google()("local/echo-1"), prompt: "Hi there" });
      assert.equal(text, "You said: Hi there");
      assert.match(response.id ?? "", /^gen-/);
    });

    test("streamText", async () => {
      const result = streamText({ model: google()("local/echo-1"), prompt: "Stream please" });
      let text = "";
      for await (const piece of result.textStream) text += piece;
      assert.equal(text, "You said: Stream please");
      assert.equal(await result.finishReason, "stop");
    });

    test("an escaped slash (LangChain's only workaround until now) names the same model", async () => {
      const { text } = await generateText({ model: google()("local%2Fecho-1"), prompt: "escaped" });
      assert.equal(text, "You said: escaped");
    });

    test("a provider/model the catalog does not have is a Gemini NOT_FOUND naming it", async () => {
      const res = await fetch(`${gw.url}/${version}/local/nope-9:generateContent`, {
        method: "POST",
        headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
        body: JSON.stringify({ contents: [{ parts: [{ text: "x" }] }] }),
      });
      assert.equal(res.status, 404);
      const body = (await res.json()) as any;
      assert.equal(body.error.status, "NOT_FOUND");
      assert.match(body.error.message, /The model 'local\/nope-9' does not exist/);
    });
  });
}

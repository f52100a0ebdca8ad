// Found by the conformance matrix (docs/compatibility.md): Gemini CLI asks every turn with
// `thinkingConfig: { includeThoughts: true }` and no budget or level, as a thinking Gemini model
// needs (it thinks by default, dynamically, and shows its thoughts when asked). The local thinking
// model took that as "no reasoning asked" and answered without thoughts. Asking to see thoughts
// now asks for them; a budget of 0 still switches thinking off. Driven by @google/genai 3.x.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { GoogleGenAI } from "@google/genai-3";
import { PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let ai: GoogleGenAI;
before(async () => {
  gw = await startGateway();
  ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
});
after(() => gw?.stop());

const thoughtsOf = (res: any) =>
  (res.candidates?.[0]?.content?.parts ?? []).filter((p: any) => p.thought).map((p: any) => p.text);

test("includeThoughts alone: local/think-1 thinks and shows its thoughts, streamed as Gemini CLI asks", async () => {
  const stream = await ai.models.generateContentStream({
    model: "local/think-1",
    contents: "Hello",
    config: { thinkingConfig: { includeThoughts: true } },
  });
  const thoughts: string[] = [];
  let text = "";
  for await (const chunk of stream) {
    thoughts.push(...thoughtsOf(chunk));
    text += chunk.text ?? "";
  }
  assert.match(thoughts.join(""), /^The user wrote 1 words\./);
  assert.equal(text, "You said: Hello");
});

test("includeThoughts with a budget of 0: no thinking", async () => {
  const res = await ai.models.generateContent({
    model: "local/think-1",
    contents: "Hello",
    config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 0 } },
  });
  assert.deepEqual(thoughtsOf(res), []);
  assert.equal(res.usageMetadata?.thoughtsTokenCount ?? 0, 0);
});

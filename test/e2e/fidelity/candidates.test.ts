// Issue 12 item 8: `candidateCount` above 1 is served where the upstream can answer it (a relay to
// a content-generation upstream returns every candidate, and each is billed), and refused with a
// 400 naming the field where it cannot (a translation: the IR answer has one candidate).

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import { PAYG_KEY } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";
import { type Matrix, MODEL, startMatrix } from "../matrix/harness.ts";
import { geminiClient } from "./support.ts";

let mx: Matrix;
before(async () => {
  mx = await startMatrix();
});
after(() => mx?.close());
beforeEach(() => mx.reset());

const gemini = () => geminiClient(mx.gw);

describe("candidateCount (issue 12 item 8)", () => {
  test("content-generation relay: two candidates come back, the upstream's usage is metered", async () => {
    mx.fakes.gemini.script({
      blocks: [{ type: "text", text: "one answer" }],
      usage: { input: 10, output: 14 },
    });
    const res = await gemini().models.generateContent({
      model: MODEL.gemini,
      contents: "hi",
      config: { candidateCount: 2 },
    });
    assert.equal(res.candidates?.length, 2);
    assert.deepEqual(
      res.candidates?.map((c) => [c.index, c.content?.parts?.[0]?.text]),
      [
        [0, "one answer"],
        [1, "one answer"],
      ],
    );
    assert.equal(mx.fakes.gemini.requests[0].body.generationConfig.candidateCount, 2);
    const record = await lookupSettled(mx.gw.url, res.responseId!, PAYG_KEY);
    assert.equal(record.nativeTokens.completion_tokens, 14);
  });

  test("a translated route refuses it with a 400 naming the field; nothing goes upstream", async () => {
    await assert.rejects(
      gemini().models.generateContent({ model: MODEL.openai, contents: "hi", config: { candidateCount: 2 } }),
      (error: Error & { status?: number }) => {
        assert.equal(error.status, 400);
        assert.match(error.message, /generationConfig\.candidateCount/);
        assert.match(error.message, /INVALID_ARGUMENT/);
        return true;
      },
    );
    assert.equal(mx.fakes.openai.requests.length, 0);
  });

  test("candidateCount 1 is an ordinary request on every route", async () => {
    const res = await gemini().models.generateContent({
      model: MODEL.openai,
      contents: "hi",
      config: { candidateCount: 1 },
    });
    assert.equal(res.candidates?.length, 1);
  });
});

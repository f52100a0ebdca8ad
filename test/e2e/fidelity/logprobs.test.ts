// Issue 12 item 1: token logprobs cross every route that has them, both ways, streamed and not:
// chat `logprobs` / `top_logprobs`, Gemini `responseLogprobs` / `logprobs` answered with
// `logprobsResult` and `avgLogprobs`, and the Responses API's `include:
// ["message.output_text.logprobs"]` / `top_logprobs` answered in `output_text.logprobs`.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import type { ReplyLogprob } from "../../fakes/reply.ts";
import { type Matrix, MODEL, startMatrix } from "../matrix/harness.ts";
import { geminiClient, openaiClient } from "./support.ts";

let mx: Matrix;
before(async () => {
  mx = await startMatrix();
});
after(() => mx?.close());
beforeEach(() => mx.reset());

const LOGPROBS: ReplyLogprob[] = [
  {
    token: "Hé",
    logprob: -0.25,
    top: [
      { token: "Hé", logprob: -0.25 },
      { token: "Hi", logprob: -1.5 },
    ],
  },
  {
    token: "llo",
    logprob: -0.125,
    top: [
      { token: "llo", logprob: -0.125 },
      { token: "y", logprob: -2.75 },
    ],
  },
];
const REPLY = { blocks: [{ type: "text" as const, text: "Héllo" }], logprobs: LOGPROBS };

/** What an OpenAI-shaped client must see: bytes are each token's UTF-8 encoding. */
const bytes = (token: string) => [...Buffer.from(token, "utf8")];
const OPENAI_SHAPE = LOGPROBS.map((l) => ({
  token: l.token,
  logprob: l.logprob,
  bytes: bytes(l.token),
  top_logprobs: (l.top ?? []).map((t) => ({ token: t.token, logprob: t.logprob, bytes: bytes(t.token) })),
}));
const GEMINI_SHAPE = {
  chosenCandidates: LOGPROBS.map((l) => ({ token: l.token, logProbability: l.logprob })),
  topCandidates: LOGPROBS.map((l) => ({
    candidates: (l.top ?? []).map((t) => ({ token: t.token, logProbability: t.logprob })),
  })),
};
const AVERAGE = (-0.25 + -0.125) / 2;

const openai = () => openaiClient(mx.gw);

/** A streamed chat request for logprobs, and the logprobs its chunks carried, in order. */
async function streamedChatLogprobs(model: string): Promise<unknown[]> {
  const stream = await openai().chat.completions.create({
    model,
    messages: [{ role: "user", content: "hi" }],
    logprobs: true,
    top_logprobs: 2,
    stream: true,
  });
  const got: unknown[] = [];
  for await (const chunk of stream) got.push(...(chunk.choices[0]?.logprobs?.content ?? []));
  return got;
}
const gemini = () => geminiClient(mx.gw);

describe("logprobs through the IR (issue 12 item 1)", () => {
  test("chat client → Gemini upstream: logprobsResult becomes choices[].logprobs", async () => {
    mx.fakes.gemini.script(REPLY);
    const res = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "hi" }],
      logprobs: true,
      top_logprobs: 2,
    });
    assert.deepEqual(res.choices[0].logprobs, { content: OPENAI_SHAPE, refusal: null });
    const sent = mx.fakes.gemini.requests[0].body.generationConfig;
    assert.equal(sent.responseLogprobs, true);
    assert.equal(sent.logprobs, 2);
  });

  test("chat client → Gemini upstream, streamed: the chunks' logprobs add up to the tokens", async () => {
    mx.fakes.gemini.script(REPLY);
    assert.deepEqual(await streamedChatLogprobs(MODEL.gemini), OPENAI_SHAPE);
  });

  test("chat client without logprobs: none, as before", async () => {
    mx.fakes.gemini.script(REPLY);
    const res = await openai().chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(res.choices[0].logprobs, null);
  });

  test("Gemini client → chat upstream: choices[].logprobs become logprobsResult and avgLogprobs", async () => {
    mx.fakes.openai.script(REPLY);
    const res = await gemini().models.generateContent({
      model: MODEL.openai,
      contents: "hi",
      config: { responseLogprobs: true, logprobs: 2 },
    });
    const candidate = res.candidates?.[0];
    assert.deepEqual(candidate?.logprobsResult, GEMINI_SHAPE);
    assert.equal(candidate?.avgLogprobs, AVERAGE);
    const sent = mx.fakes.openai.requests[0].body;
    assert.equal(sent.logprobs, true);
    assert.equal(sent.top_logprobs, 2);
  });

  test("Gemini client → chat upstream, streamed: logprobsResult on the last chunk", async () => {
    mx.fakes.openai.script(REPLY);
    const stream = await gemini().models.generateContentStream({
      model: MODEL.openai,
      contents: "hi",
      config: { responseLogprobs: true, logprobs: 2 },
    });
    const results: unknown[] = [];
    for await (const chunk of stream) {
      const result = chunk.candidates?.[0]?.logprobsResult;
      if (result) results.push(result);
    }
    assert.deepEqual(results, [GEMINI_SHAPE]);
  });

  test("Responses client → Gemini upstream: output_text.logprobs", async () => {
    mx.fakes.gemini.script(REPLY);
    const res = await openai().responses.create({
      model: MODEL.gemini,
      input: "hi",
      include: ["message.output_text.logprobs"],
      top_logprobs: 2,
    });
    const message = res.output.find((item) => item.type === "message");
    assert.ok(message && message.type === "message");
    const part = message.content[0];
    assert.ok(part.type === "output_text");
    assert.deepEqual(part.logprobs, OPENAI_SHAPE);
    assert.equal(mx.fakes.gemini.requests[0].body.generationConfig.logprobs, 2);
  });

  test("Responses client → Gemini upstream, streamed: output_text.done and the final response", async () => {
    mx.fakes.gemini.script(REPLY);
    const stream = await openai().responses.create({
      model: MODEL.gemini,
      input: "hi",
      include: ["message.output_text.logprobs"],
      top_logprobs: 2,
      stream: true,
    });
    let done: unknown;
    let final: unknown;
    for await (const event of stream) {
      if (event.type === "response.output_text.done") done = event.logprobs;
      if (event.type === "response.completed") {
        const message = event.response.output.find((item) => item.type === "message");
        final =
          message?.type === "message" && message.content[0].type === "output_text"
            ? message.content[0].logprobs
            : undefined;
      }
    }
    assert.deepEqual(done, OPENAI_SHAPE);
    assert.deepEqual(final, OPENAI_SHAPE);
  });

  test("chat client → Responses upstream, streamed: asked with include, read from the deltas", async () => {
    mx.fakes["openai-responses"].script(REPLY);
    assert.deepEqual(await streamedChatLogprobs(MODEL["openai-responses"]), OPENAI_SHAPE);
    const sent = mx.fakes["openai-responses"].requests[0].body;
    assert.ok(sent.include.includes("message.output_text.logprobs"));
    assert.equal(sent.top_logprobs, 2);
  });

  test("a local model has no logprobs: none in the answer, named in x-switchyard-ignored", async () => {
    const { data, response } = await openai()
      .chat.completions.create({
        model: "local/echo-1",
        messages: [{ role: "user", content: "hi" }],
        logprobs: true,
      })
      .withResponse();
    assert.deepEqual(data.choices[0].logprobs, { content: [], refusal: null });
    assert.equal(response.headers.get("x-switchyard-ignored"), "logprobs");
  });

  test("chat client → Responses upstream: read from the whole answer", async () => {
    mx.fakes["openai-responses"].script(REPLY);
    const { data: res, response } = await openai()
      .chat.completions.create({
        model: MODEL["openai-responses"],
        messages: [{ role: "user", content: "hi" }],
        logprobs: true,
        top_logprobs: 2,
      })
      .withResponse();
    assert.deepEqual(res.choices[0].logprobs?.content, OPENAI_SHAPE);
    // Carried now, so no longer named as dropped.
    assert.doesNotMatch(response.headers.get("x-switchyard-ignored") ?? "", /logprobs/);
  });
});

// One structured JSON line per inference request at `logging.level: info`: its generation id, route,
// model, provider, status, timings, tokens and exact cost; never the prompt, the answer or the key.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { BROKE_KEY, baseConfig, PAYG_KEY, startGateway } from "../support/gateway.ts";
import { lookupSettled } from "../support/lookup.ts";

const PROMPT = "the secret recipe is saffron-and-cardamom-4417";

function requestLines(output: string): any[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === "request");
}

test("logging.level info: a JSON line per request with its facts, and no prompt or key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-logs-"));
  const gw = await startGateway(baseConfig(dir, { logging: { level: "info" } }), { dir });
  try {
    const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const chat = await openai.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: PROMPT }],
    });
    const anthropic = new Anthropic({
      apiKey: PAYG_KEY,
      baseURL: gw.url,
      defaultHeaders: { "anthropic-version": "2023-06-01" },
    });
    const streamed = await anthropic.messages
      .stream({ model: "local/think-1", max_tokens: 300, messages: [{ role: "user", content: PROMPT }] })
      .finalMessage();
    const embedded = await fetch(`${gw.url}/v1beta/models/local/embed-1:embedContent`, {
      method: "POST",
      headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: PROMPT }] } }),
    });
    const embeddingId = embedded.headers.get("x-generation-id");
    await embedded.arrayBuffer();
    const broke = new OpenAI({ apiKey: BROKE_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await assert.rejects(
      broke.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: PROMPT }] }),
    );

    // A line is written once its request is answered: wait for the last one.
    await gw.waitForOutput(new RegExp(`"generationId":"${streamed.id}"`));
    await gw.waitForOutput(/"account":"broke"/);
    const lines = requestLines(gw.output());
    const chatLine = lines.find((l) => l.generationId === chat.id);
    const record = await lookupSettled(gw.url, chat.id, PAYG_KEY);
    assert.deepEqual(
      {
        route: chatLine.route,
        model: chatLine.model,
        provider: chatLine.provider,
        status: chatLine.status,
        outcome: chatLine.outcome,
        stream: chatLine.stream,
        account: chatLine.account,
        tokens: chatLine.tokens,
        costUsd: chatLine.costUsd,
      },
      {
        route: "chat.completions",
        model: "local/echo-1",
        provider: "local",
        status: 200,
        outcome: "completed",
        stream: false,
        account: "acme",
        tokens: {
          prompt: chat.usage!.prompt_tokens,
          completion: chat.usage!.completion_tokens,
          cacheRead: 0,
          cacheWrite: 0,
          reasoning: 0,
        },
        costUsd: String(record.usage),
      },
    );
    assert.match(chatLine.keyId, /^key_[0-9a-f]{16}$/);
    for (const timing of ["durationMs", "ttftMs", "upstreamMs"])
      assert.equal(typeof chatLine[timing], "number", timing);
    assert.equal(chatLine.level, 30);

    const streamLine = lines.find((l) => l.generationId === streamed.id);
    assert.equal(streamLine.route, "messages");
    assert.equal(streamLine.stream, true);
    assert.equal(streamLine.tokens.completion, streamed.usage.output_tokens);

    // An embedding's route is `embeddings`, whichever face it came by; its tokens are its input's.
    const embeddingLine = lines.find((l) => l.generationId === embeddingId);
    assert.equal(embeddingLine.route, "embeddings");
    assert.equal(embeddingLine.model, "local/embed-1");
    assert.ok(embeddingLine.tokens.prompt > 0 && embeddingLine.tokens.completion === 0);

    const refused = lines.find((l) => l.account === "broke");
    assert.deepEqual([refused.status, refused.outcome, refused.error], [402, "refused", "payment_required"]);
    assert.equal(refused.costUsd, undefined);

    const output = gw.output();
    for (const secret of [
      PAYG_KEY,
      BROKE_KEY,
      "saffron",
      streamed.content.map((b: any) => b.text ?? "").join(""),
    ])
      if (secret) assert.ok(!output.includes(secret), `the log holds ${secret}`);
  } finally {
    await gw.stop();
  }
});

test("the default level (warn) writes no request lines", async () => {
  const gw = await startGateway();
  try {
    const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "hi" }],
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(requestLines(gw.output()), []);
  } finally {
    await gw.stop();
  }
});

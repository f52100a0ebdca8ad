// OpenRouter's own SDK (`@openrouter/sdk`), moved to the gateway by its base URL alone (`…/api/v1`):
// chat and Responses calls, streamed and not, pass its strict validation of the answers (chat's
// `system_fingerprint`, the Responses object's `completed_at` and penalties), and the listing and
// token counts answer under `/api/v1` too. The spec's generation lookup keeps its own shape there.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { OpenRouter } from "@openrouter/sdk";
import type { ChatResult, ChatStreamChunk, OpenResponsesResult } from "@openrouter/sdk/models";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let client: OpenRouter;

let fake: FakeUpstream;
let bare: Server;

/** A chat upstream that writes no `system_fingerprint` at all (as Mistral's API does not). */
function startBareUpstream(): Promise<Server> {
  const envelope = { id: "c1", created: 1, model: "m" };
  const usage = { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 };
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (!JSON.parse(body).stream) {
        res.writeHead(200, { "content-type": "application/json" });
        const message = { role: "assistant", content: "bare" };
        const choices = [{ index: 0, message, finish_reason: "stop" }];
        return void res.end(JSON.stringify({ ...envelope, object: "chat.completion", choices, usage }));
      }
      const chunk = (fields: object) =>
        `data: ${JSON.stringify({ ...envelope, object: "chat.completion.chunk", ...fields })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(
        chunk({
          choices: [{ index: 0, delta: { role: "assistant", content: "bare" }, finish_reason: null }],
        }) +
          chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage }) +
          "data: [DONE]\n\n",
      );
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

before(async () => {
  fake = await startFakeUpstream("openai");
  bare = await startBareUpstream();
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-openrouter-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        fakeProvider("fp", fake),
        { id: "bare", protocol: "openai", base_url: bareUrl, api_key: "k" },
      ],
      models: [fakeModel("fp/m", ["fp"]), fakeModel("bare/m", ["bare"])],
    }),
  );
  client = new OpenRouter({ apiKey: PAYG_KEY, serverURL: `${gw.url}/api/v1` });
});
after(async () => {
  await gw?.stop();
  await fake?.close();
  bare?.close();
});

const MODEL = "local/echo-1";

describe("chat", () => {
  test("a whole answer passes the SDK's validation, system_fingerprint null", async () => {
    const result = (await client.chat.send({
      chatRequest: { model: MODEL, messages: [{ role: "user", content: "hello there" }] },
    })) as ChatResult;
    assert.equal(result.choices[0].message.content, "You said: hello there");
    assert.equal(result.systemFingerprint, null);
    assert.match(result.id, /^gen-/);
    assert.ok((result.usage?.promptTokens ?? 0) > 0);
  });

  test("a relayed whole answer keeps the upstream's system_fingerprint, or has null for none", async () => {
    const ask = async (model: string) =>
      (await client.chat.send({
        chatRequest: { model, messages: [{ role: "user", content: "hi" }] },
      })) as ChatResult;
    assert.equal((await ask("fp/m")).systemFingerprint, "fp_fake0openai");
    const bareAnswer = await ask("bare/m");
    assert.equal(bareAnswer.systemFingerprint, null);
    assert.equal(bareAnswer.choices[0].message.content, "bare");
    const stream = (await client.chat.send({
      chatRequest: { model: "bare/m", messages: [{ role: "user", content: "hi" }], stream: true },
    })) as AsyncIterable<ChatStreamChunk>;
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    assert.equal(text, "bare");
  });

  test("a stream the SDK reads chunk by chunk", async () => {
    const stream = (await client.chat.send({
      chatRequest: { model: MODEL, messages: [{ role: "user", content: "stream me" }], stream: true },
    })) as AsyncIterable<ChatStreamChunk>;
    let text = "";
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? "";
    }
    assert.ok(chunks > 1);
    assert.equal(text, "You said: stream me");
  });

  test("a stream relayed from an OpenAI upstream passes the SDK's validation: no usage: null unasked", async () => {
    // The gateway asks the upstream for usage; OpenAI then writes `"usage": null` on every chunk,
    // which the SDK refuses (it takes an absent usage, or an object). A client that asks for usage
    // gets OpenAI's bytes as they are (test/gateway/relay-stream.test.ts): this SDK's own
    // `streamOptions` is deprecated, OpenRouter always sending usage.
    const stream = (await client.chat.send({
      chatRequest: { model: "fp/m", messages: [{ role: "user", content: "relay me" }], stream: true },
    })) as AsyncIterable<ChatStreamChunk>;
    const chunks: ChatStreamChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(fake.requests.at(-1)?.body.stream_options?.include_usage, true);
    assert.ok(chunks.length > 1);
    assert.equal(
      chunks.map((c) => c.choices[0]?.delta?.content ?? "").join(""),
      "Hello from the fake upstream.",
    );
    assert.ok(chunks.every((c) => c.usage === undefined));
  });
});

describe("responses", () => {
  test("a whole answer passes the SDK's validation: completed_at and the penalties", async () => {
    const result = (await client.responses.send({
      responsesRequest: { model: MODEL, input: "hello there" },
    })) as OpenResponsesResult;
    assert.equal(result.status, "completed");
    assert.equal(typeof result.completedAt, "number");
    assert.ok(result.completedAt! >= result.createdAt);
    assert.equal(result.frequencyPenalty, 0);
    assert.equal(result.presencePenalty, 0);
    const message = result.output.find((item) => item.type === "message") as any;
    assert.equal(message.content[0].text, "You said: hello there");
  });

  test("a stream the SDK reads event by event, ending in response.completed", async () => {
    const stream = await client.responses.send({
      responsesRequest: { model: MODEL, input: "stream me", stream: true },
    });
    const types: string[] = [];
    let text = "";
    let completed: any;
    for await (const event of stream as AsyncIterable<any>) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    assert.equal(types[0], "response.created");
    assert.equal(text, "You said: stream me");
    assert.equal(typeof completed?.completedAt, "number");
  });
});

describe("the rest of /api/v1", () => {
  test("the listing answers there as under /v1, in the gateway's own shape", async () => {
    // (The SDK's models.list reads OpenRouter's own listing records, which this spec does not
    // serve: the listing is checked on the wire.)
    for (const path of ["/models", `/models/${MODEL}`]) {
      const direct = await (await fetch(`${gw.url}/v1${path}`)).json();
      const aliased = await (await fetch(`${gw.url}/api/v1${path}`)).json();
      assert.deepEqual(aliased, direct, path);
    }
  });

  test("token counts and messages answer there too", async () => {
    const headers = {
      "x-api-key": PAYG_KEY,
      "anthropic-version": "2023-06-01",
      "content-type": "application/json",
    };
    const body = { model: MODEL, max_tokens: 16, messages: [{ role: "user", content: "count me" }] };
    const counted = await fetch(`${gw.url}/api/v1/messages/count_tokens`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    assert.equal(counted.status, 200);
    assert.ok(((await counted.json()) as any).input_tokens > 0);
    const message = await fetch(`${gw.url}/api/v1/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    assert.equal(((await message.json()) as any).type, "message");
  });

  test("an unknown path there is still the gateway's own 404, and the lookup keeps its shape", async () => {
    const missing = await fetch(`${gw.url}/api/v1/chat/unknown`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    assert.equal(missing.status, 404);
    const answer = await fetch(`${gw.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "look me up" }] }),
    });
    const id = answer.headers.get("x-generation-id");
    assert.ok(id);
    for (let i = 0; ; i++) {
      const lookup = await fetch(`${gw.url}/api/v1/generation?id=${id}`, {
        headers: { authorization: `Bearer ${PAYG_KEY}` },
      });
      const found = (await lookup.json()) as any;
      if (lookup.status === 200 && found.status !== "pending") {
        assert.equal(found.generationId, id);
        assert.equal(found.api, "chat.completions");
        break;
      }
      assert.ok(i < 100, `lookup ${lookup.status} ${JSON.stringify(found)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});

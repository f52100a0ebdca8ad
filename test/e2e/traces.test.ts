// OpenTelemetry traces over OTLP/HTTP: a receiver in the test gets the spans of a streamed request
// translated from messages to a chat-completions upstream, under the caller's trace, with the GenAI
// semantic conventions and the generation id; a failed attempt is a span of its own.

import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { PAYG_KEY, startGateway } from "../support/gateway.ts";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number };
}

/** A collector: keeps every span posted to /v1/traces, and each request's headers. */
async function startReceiver() {
  const spans: OtlpSpan[] = [];
  const headers: IncomingMessage["headers"][] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      if (req.url === "/v1/traces" && req.headers["content-type"]?.includes("json")) {
        headers.push(req.headers);
        for (const rs of JSON.parse(body).resourceSpans ?? [])
          for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, headers, close: () => new Promise((r) => server.close(r)) };
}

function attrs(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(
    span.attributes.map(({ key, value }) => {
      const v =
        value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue ?? value.arrayValue;
      return [key, typeof v === "string" && key.includes("tokens") ? Number(v) : v];
    }),
  );
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";

test("a streamed, translated request: a server span under the caller's trace, a client span per attempt", async () => {
  const receiver = await startReceiver();
  const [broken, openai] = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("openai")]);
  broken.script({ status: 500 });
  openai.script({ blocks: [{ type: "text", text: "traced answer" }], usage: { input: 11, output: 4 } });
  const gw = await startGateway({
    keys: [{ key: PAYG_KEY, account: "acme", credits: 10 }],
    storage: { url: "sqlite::memory:" },
    providers: [fakeProvider("broken", broken), fakeProvider("up", openai)],
    models: [fakeModel("acme/traced", ["broken", "up"], { upstream: "up-model" })],
    telemetry: { otlp: { endpoint: receiver.url, headers: { authorization: "Bearer collector-token" } } },
  });
  try {
    const anthropic = new Anthropic({
      apiKey: PAYG_KEY,
      baseURL: gw.url,
      defaultHeaders: { "anthropic-version": "2023-06-01", traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
    });
    const message = await anthropic.messages
      .stream({ model: "acme/traced", max_tokens: 100, messages: [{ role: "user", content: "hi" }] })
      .finalMessage();
    assert.equal(message.content[0].type === "text" && message.content[0].text, "traced answer");

    for (let i = 0; receiver.spans.filter((s) => s.traceId === TRACE_ID).length < 3; i++) {
      assert.ok(i < 100, `spans received: ${JSON.stringify(receiver.spans)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(receiver.headers[0].authorization, "Bearer collector-token");
    const spans = receiver.spans.filter((s) => s.traceId === TRACE_ID);
    const server = spans.find((s) => s.parentSpanId === PARENT_ID)!;
    assert.ok(server, "the request's span is a child of the caller's");
    assert.equal(server.kind, 2); // SERVER
    assert.equal(server.name, "chat acme/traced");
    const a = attrs(server);
    assert.deepEqual(
      {
        operation: a["gen_ai.operation.name"],
        requestModel: a["gen_ai.request.model"],
        responseModel: a["gen_ai.response.model"],
        responseId: a["gen_ai.response.id"],
        generationId: a["switchyard.generation_id"],
        input: a["gen_ai.usage.input_tokens"],
        output: a["gen_ai.usage.output_tokens"],
        status: a["http.response.status_code"],
        provider: a["switchyard.provider"],
      },
      {
        operation: "chat",
        requestModel: "acme/traced",
        responseModel: "acme/traced",
        responseId: message.id,
        generationId: message.id,
        input: 11,
        output: 4,
        status: 200,
        provider: "up",
      },
    );

    const attempts = spans.filter((s) => s.parentSpanId === server.spanId);
    assert.equal(attempts.length, 2);
    for (const span of attempts) assert.equal(span.kind, 3); // CLIENT
    const [failed, answered] = attempts.sort(
      (x, y) => Number(attrs(x)["switchyard.attempt"]) - Number(attrs(y)["switchyard.attempt"]),
    );
    assert.equal(attrs(failed)["switchyard.provider"], "broken");
    assert.equal(attrs(failed)["error.type"], "api_error");
    assert.equal(failed.status?.code, 2); // ERROR
    const b = attrs(answered);
    assert.deepEqual(
      [
        b["gen_ai.provider.name"],
        b["gen_ai.request.model"],
        b["gen_ai.usage.input_tokens"],
        b["gen_ai.usage.output_tokens"],
        b["switchyard.generation_id"],
      ],
      ["openai", "up-model", 11, 4, message.id],
    );
  } finally {
    await gw.stop();
    await Promise.all([broken.close(), openai.close(), receiver.close()]);
  }
});

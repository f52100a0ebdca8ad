// A provider with `http2: true` (docs/operations.md#http2-upstreams), end to end through a running
// gateway against fakes that speak HTTP/2: h2c with prior knowledge, and h2 over TLS chosen by ALPN
// (with the fallback to HTTP/1.1 when the server offers only that). Many streams share a connection;
// one client's disconnect cancels its own upstream stream alone; a reset stream or a GOAWAY ends the
// client's answer with an error in its protocol; usage is metered as over HTTP/1.1.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { DEFAULT_TIMEOUTS } from "../../src/config/providers.ts";
import { upstreamDispatcher } from "../../src/providers/http/dispatcher.ts";
import { chat, model, record } from "../e2e/routing/support.ts";
import { type FakeUpstream, type Reply, startFakeUpstream } from "../fakes/index.ts";
import { TLS_CERT_FILE } from "../fakes/transport.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const PATIENT = { connect_ms: 2000, first_byte_ms: 10000, request_ms: 10000, idle_ms: 10000 };
const REPLY: Reply = {
  blocks: [{ type: "text", text: "one two three four" }],
  usage: { input: 7, output: 4 },
};
/** Long enough that 200 of them are open at once. */
const SLOW: Reply = { ...REPLY, chunks: 4, chunkDelayMs: 150 };

let gw: RunningGateway;
/** By provider id: h1 (HTTP/1.1, the baseline), h2c, h2 (TLS, ALPN), tls1 (TLS, HTTP/1.1 only), mixed (h2c asked of an HTTP/1.1 server). */
const fakes: Record<string, FakeUpstream> = {};

before(async () => {
  const transports = { h1: "http", h2c: "h2c", h2: "h2", tls1: "https", mixed: "http" } as const;
  for (const [id, transport] of Object.entries(transports))
    fakes[id] = await startFakeUpstream("openai", { transport });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-http2-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: Object.keys(transports).map((id) => ({
        id,
        protocol: "openai",
        base_url: fakes[id].url,
        api_key: "k",
        timeouts: PATIENT,
        ...(id === "h1" ? {} : { http2: true }),
      })),
      models: Object.keys(transports).map((id) => model(`h2t/${id}`, [id], { upstream: "m" })),
      routing: { health: { failure_threshold: 100000 } },
    }),
    { dir, env: { NODE_EXTRA_CA_CERTS: TLS_CERT_FILE } },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

const isH2 = (fake: FakeUpstream) => ":method" in (fake.requests.at(-1)?.headers ?? {});
const text = (frames: any[]) =>
  frames
    .filter((f) => f !== "[DONE]")
    .map((f) => f.choices?.[0]?.delta?.content ?? "")
    .join("");

describe("over h2c (prior knowledge)", () => {
  test("a whole answer and a stream relay through; usage is metered as over HTTP/1.1", async () => {
    const records = [];
    for (const id of ["h2c", "h1"]) {
      fakes[id].script(REPLY, REPLY);
      const whole = await chat(gw, { model: `h2t/${id}` });
      assert.equal(whole.status, 200);
      assert.equal(whole.json.choices[0].message.content, "one two three four");
      const streamed = await chat(gw, {
        model: `h2t/${id}`,
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(streamed.status, 200);
      assert.equal(text(streamed.frames!), "one two three four");
      assert.equal(streamed.frames!.at(-1), "[DONE]");
      records.push([await record(gw, whole.generationId), await record(gw, streamed.generationId)]);
    }
    assert.ok(isH2(fakes.h2c), "the h2c fake was spoken to in HTTP/2");
    assert.ok(!isH2(fakes.h1));
    const metered = (r: any) => [
      r.status,
      r.nativeTokens.prompt_tokens,
      r.nativeTokens.completion_tokens,
      r.usage,
    ];
    assert.deepEqual(records[0].map(metered), records[1].map(metered));
    assert.equal(records[0][0].nativeTokens.prompt_tokens, 7);
  });

  test("200 streams at once share two connections (100 streams each)", { timeout: 20000 }, async () => {
    const fake = fakes.h2c;
    const before = fake.connections;
    fake.script(...Array.from({ length: 200 }, () => SLOW));
    const results = await Promise.all(
      Array.from({ length: 200 }, () => chat(gw, { model: "h2t/h2c", stream: true })),
    );
    for (const r of results) assert.equal(text(r.frames!), "one two three four");
    const opened = fake.connections - before;
    assert.ok(opened <= 2, `${opened} connections opened for 200 streams`);
  });

  test("a client that goes away cancels its own upstream stream; the others finish", {
    timeout: 10000,
  }, async () => {
    const fake = fakes.h2c;
    fake.reset();
    // Still streaming when the client leaves, whichever request it is.
    fake.script(...Array.from({ length: 4 }, () => ({ ...SLOW, chunks: 8, chunkDelayMs: 200 })));
    const controller = new AbortController();
    const leaving = fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "h2t/h2c", stream: true, messages: [{ role: "user", content: "hi" }] }),
      signal: controller.signal,
    });
    const staying = Array.from({ length: 3 }, () => chat(gw, { model: "h2t/h2c", stream: true }));
    const res = await leaving;
    await res.body!.getReader().read();
    await fake.until(() => fake.requests.length === 4);
    controller.abort();
    await fake.until(() => fake.requests.some((r) => r.aborted), 2000);
    for (const r of await Promise.all(staying)) assert.equal(text(r.frames!), "one two three four");
    assert.equal(fake.requests.filter((r) => r.aborted).length, 1, "one upstream stream cancelled");
  });

  // undici 7 keeps a request whose body is a stream or an async iterable off an HTTP/2 connection
  // that has streams open, until they all end: exchange.ts's large bodies must stay a sync iterable.
  test("a prompt of 200 KB goes out while another stream holds the connection", async () => {
    const fake = fakes.h2c;
    fake.reset();
    fake.script({ ...SLOW, chunks: 8, chunkDelayMs: 200 }, REPLY);
    const holding = chat(gw, { model: "h2t/h2c", stream: true });
    await fake.until(() => fake.requests.length === 1);
    const prompt = "lorem ipsum ".repeat(200_000 / 12);
    const started = Date.now();
    const big = await chat(gw, {
      model: "h2t/h2c",
      stream: true,
      messages: [{ role: "user", content: prompt }],
    });
    assert.equal(text(big.frames!), "one two three four");
    assert.ok(Date.now() - started < 1000, "it did not wait for the other stream to end");
    assert.equal(fake.requests[1].body.messages[0].content, prompt);
    assert.equal(text((await holding).frames!), "one two three four");
  });

  test("an upstream stream reset mid-answer: that client's stream ends with an error, the others finish", async () => {
    const fake = fakes.h2c;
    fake.script({ ...SLOW, fault: "reset-mid" }, SLOW);
    const [cut, whole] = await Promise.all([
      chat(gw, { model: "h2t/h2c", stream: true }),
      chat(gw, { model: "h2t/h2c", stream: true }),
    ]);
    assert.equal(cut.status, 200);
    assert.ok(
      cut.frames!.some((f) => f.error),
      `an error frame: ${JSON.stringify(cut.frames)}`,
    );
    assert.equal(text(whole.frames!), "one two three four");
    fake.script({ ...SLOW, fault: "reset-mid" });
    const cutWhole = await chat(gw, { model: "h2t/h2c" });
    assert.equal(cutWhole.status, 502);
    assert.ok(cutWhole.json.error.message, "a whole answer cut: an error in the chat protocol");
  });

  test("a GOAWAY mid-stream ends the open streams with an error; the next request opens a new connection", async () => {
    const fake = fakes.h2c;
    fake.reset();
    fake.script(...Array.from({ length: 3 }, () => ({ ...SLOW, chunkDelayMs: 1000 })));
    const open = Array.from({ length: 3 }, () => chat(gw, { model: "h2t/h2c", stream: true }));
    await fake.until(() => fake.requests.length === 3);
    await new Promise((r) => setTimeout(r, 100));
    fake.goaway(http2.constants.NGHTTP2_NO_ERROR);
    for (const r of await Promise.all(open)) {
      assert.equal(r.status, 200);
      assert.ok(
        r.frames!.some((f) => f.error),
        `an error frame, not a clean end: ${JSON.stringify(r.frames)}`,
      );
    }
    assert.equal(fake.requests.length, 3, "nothing was sent again");
    fake.script(REPLY);
    const after = await chat(gw, { model: "h2t/h2c", stream: true });
    assert.equal(text(after.frames!), "one two three four");
  });

  test("an HTTP/1.1-only server asked for h2c: a clean 502, not a hang", { timeout: 10000 }, async () => {
    const r = await chat(gw, { model: "h2t/mixed" });
    assert.equal(r.status, 502);
    assert.match(r.json.error.message, /mixed/);
  });
});

describe("over TLS", () => {
  test("h2 chosen by ALPN: streams share one connection", async () => {
    const fake = fakes.h2;
    const before = fake.connections;
    fake.script(SLOW, SLOW, SLOW);
    const results = await Promise.all(
      Array.from({ length: 3 }, () => chat(gw, { model: "h2t/h2", stream: true })),
    );
    for (const r of results) assert.equal(text(r.frames!), "one two three four");
    assert.ok(isH2(fake), "ALPN chose h2");
    assert.equal(fake.connections - before, 1);
  });

  test("a server offering only HTTP/1.1: kept, one request a connection, none waiting behind another", async () => {
    const fake = fakes.tls1;
    fake.script(SLOW, SLOW, SLOW);
    const started = Date.now();
    const results = await Promise.all(
      Array.from({ length: 3 }, () => chat(gw, { model: "h2t/tls1", stream: true })),
    );
    for (const r of results) assert.equal(text(r.frames!), "one two three four");
    assert.ok(!isH2(fake));
    assert.equal(fake.connections, 3);
    assert.ok(Date.now() - started < 1500, "the three streams ran side by side");
  });
});

/** Streams the raw upstreams hold open, destroyed when they close. */
const open = new Set<http2.ServerHttp2Stream>();

/** A raw HTTP/2 upstream for the pool's own tests; `answer` gets each stream. */
async function rawUpstream(
  settings: http2.Settings,
  answer: (stream: http2.ServerHttp2Stream) => void,
): Promise<{ origin: string; sessions: () => number; close: () => void }> {
  let sessions = 0;
  const server = http2.createServer({ settings });
  server.on("session", () => sessions++);
  server.on("stream", (stream) => {
    stream.resume();
    answer(stream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sessions: () => sessions,
    close: () => {
      server.close();
      for (const s of open) s.destroy();
    },
  };
}
function poolFor(origin: string, maxStreams = 100) {
  return upstreamDispatcher({
    id: "raw",
    protocol: "openai",
    baseUrl: origin,
    enabled: true,
    timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 1000 },
    http2: { maxStreams },
  });
}

describe("the pool", () => {
  test("held streams arriving in bursts all start, 100 a connection", async () => {
    const upstream = await rawUpstream({}, (stream) => {
      open.add(stream);
      stream.respond({ ":status": 200 });
      stream.write("first");
    });
    const dispatcher = poolFor(upstream.origin);
    try {
      let started = 0;
      const all: Promise<unknown>[] = [];
      // In bursts, as clients arrive: a burst that fills a connection left undici's own pool
      // counting that connection free, and the next stream sent there waited for ever.
      for (let burst = 0; burst < 5; burst++) {
        for (let i = 0; i < 50; i++)
          all.push(
            dispatcher
              .request({ origin: upstream.origin, path: "/", method: "POST", body: "{}" })
              .then(async (res) => {
                // Read the first chunk and keep the stream open.
                await new Promise((resolve) => res.body.once("data", resolve));
                started++;
              }),
          );
        await new Promise((r) => setTimeout(r, 10));
      }
      await Promise.race([Promise.all(all), new Promise((r) => setTimeout(r, 3000))]);
      assert.equal(started, 250);
      assert.equal(upstream.sessions(), 3);
    } finally {
      await dispatcher.destroy();
      upstream.close();
    }
  });

  test("an upstream that refuses connections: every waiting request fails at once, none hangs", async () => {
    const dispatcher = poolFor("http://127.0.0.1:9");
    const started = Date.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        dispatcher.request({ origin: "http://127.0.0.1:9", path: "/", method: "POST", body: "{}" }),
      ),
    );
    assert.ok(outcomes.every((o) => o.status === "rejected"));
    assert.ok(Date.now() - started < 1000, `${Date.now() - started} ms`);
    await dispatcher.close();
  });
});

describe("the upstream's own stream limit", () => {
  test("a server allowing 10 streams a connection gets no more, and none is refused", async () => {
    let sessions = 0;
    let refused = 0;
    const perSession = new Map<object, number>();
    let most = 0;
    const server = http2.createServer({ settings: { maxConcurrentStreams: 10 } });
    server.on("session", () => sessions++);
    server.on("stream", (stream) => {
      const session = stream.session!;
      perSession.set(session, (perSession.get(session) ?? 0) + 1);
      most = Math.max(most, perSession.get(session)!);
      stream.on("close", () => {
        perSession.set(session, perSession.get(session)! - 1);
        if (stream.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM) refused++;
      });
      stream.resume();
      stream.respond({ ":status": 200 });
      setTimeout(() => stream.end("done"), 300);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const dispatcher = upstreamDispatcher({
      id: "limited",
      protocol: "openai",
      baseUrl: origin,
      enabled: true,
      timeouts: DEFAULT_TIMEOUTS,
      http2: { maxStreams: 100 },
    });
    try {
      const started = Date.now();
      const bodies = await Promise.all(
        Array.from({ length: 30 }, async () => {
          const res = await dispatcher.request({ origin, path: "/", method: "POST", body: "{}" });
          return res.body.text();
        }),
      );
      assert.deepEqual(new Set(bodies), new Set(["done"]));
      assert.equal(refused, 0);
      assert.ok(most <= 10, `${most} streams at once on one connection`);
      assert.ok(sessions >= 3, `${sessions} connections`);
      assert.ok(Date.now() - started < 900, "no stream waited behind another");
    } finally {
      await dispatcher.close();
      server.close();
    }
  });
});

// Regressions for requests that once took the whole gateway down (one test per crasher found), and
// the edge's promise behind them: whatever one client sends, the process keeps answering everyone.

import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe as suite, test } from "node:test";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;

/** Each suite has a gateway of its own, so that one crasher fails only the tests it is about. */
function describe(name: string, tests: () => void): void {
  suite(name, () => {
    before(async () => {
      gw = await startGateway();
    });
    after(() => gw.stop());
    tests();
  });
}

/** The gateway still answers another client, and its process has not exited. */
async function assertAlive(): Promise<void> {
  assert.equal(gw.process.exitCode, null, `the gateway exited:\n${gw.output()}`);
  const res = await fetch(`${gw.url}/healthz`, { signal: AbortSignal.timeout(2000) });
  assert.equal(res.status, 200);
}

/** Sends raw bytes on a fresh connection; resolves with what came back once the server closes it. */
function rawExchange(bytes: string | Buffer, opts: { closeAfterMs?: number; reset?: boolean } = {}) {
  const { port, hostname } = new URL(gw.url);
  return new Promise<{ text: string; error?: string }>((resolve) => {
    let got = "";
    let error: string | undefined;
    const socket = connect({ port: Number(port), host: hostname }, () => {
      socket.write(bytes);
      if (opts.closeAfterMs !== undefined)
        setTimeout(() => (opts.reset ? socket.resetAndDestroy() : socket.end()), opts.closeAfterMs);
    });
    socket.on("data", (d) => {
      got += d;
    });
    socket.on("error", (err: NodeJS.ErrnoException) => {
      error = err.code ?? err.message;
    });
    socket.on("close", () => resolve({ text: got, error }));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

function post(path: string, contentLength: number, body: string, headers = ""): string {
  return (
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
    `Authorization: Bearer ${PAYG_KEY}\r\nx-api-key: ${PAYG_KEY}\r\n${headers}` +
    `Content-Length: ${contentLength}\r\n\r\n${body}`
  );
}

const INFERENCE_PATHS = [
  "/v1/chat/completions",
  "/v1/messages",
  "/v1beta/models/local/echo-1:generateContent",
];

describe("a client that disconnects while uploading does not take the gateway down", () => {
  for (const path of INFERENCE_PATHS) {
    test(`body shorter than its Content-Length, then a close: ${path}`, async () => {
      await rawExchange(post(path, 1000, '{"model":"local/echo-1"'), { closeAfterMs: 50 });
      await assertAlive();
    });
    test(`a reset in the middle of a 2 MiB upload: ${path}`, async () => {
      const head = post(path, 2 * 1024 * 1024, "");
      await rawExchange(Buffer.concat([Buffer.from(head), Buffer.alloc(512 * 1024, "a")]), {
        closeAfterMs: 50,
        reset: true,
      });
      await assertAlive();
    });
  }
});

describe("an undecodable escape in a path does not take the gateway down", () => {
  test("POST /v1beta/models/%FF%FE:generateContent is a 400 in Gemini's shape naming the model", async () => {
    const res = await fetch(`${gw.url}/v1beta/models/%FF%FE:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
      body: "{}",
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    assert.equal(body.error.code, 400);
    assert.equal(body.error.status, "INVALID_ARGUMENT");
    assert.match(body.error.message, /model/);
    await assertAlive();
  });

  const shapes = [
    { path: "/v1beta/models/%FF%FE", gemini: true },
    { path: "/v1/models/%E0%A4%A", gemini: false },
    { path: "/%FF%FE", gemini: false },
    { path: "/v1/models/%FF%FE", gemini: false },
  ];
  for (const { path, gemini } of shapes) {
    test(`GET ${path} is a 400 in the ${gemini ? "Gemini" : "chat"} error shape, not a 500`, async () => {
      const res = await fetch(`${gw.url}${path}`);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: unknown; status?: string; type?: string } };
      if (gemini) assert.deepEqual([body.error.code, body.error.status], [400, "INVALID_ARGUMENT"]);
      else assert.equal(body.error.type, "invalid_request_error");
      await assertAlive();
    });
  }
});

describe("an unknown field whose name a header cannot carry does not take the gateway down", () => {
  const names = ["key🚀", "ключ", "a\r\nx-injected: 1", "nul\u0000byte"];
  for (const name of names) {
    test(`${JSON.stringify(name)} in a /v1/messages body to the local model`, async () => {
      const res = await fetch(`${gw.url}/v1/messages`, {
        method: "POST",
        headers: {
          "x-api-key": PAYG_KEY,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
        },
        body: JSON.stringify({
          model: "local/echo-1",
          max_tokens: 20,
          messages: [{ role: "user", content: "hi" }],
          [name]: 1,
        }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("x-injected"), null);
      const ignored = res.headers.get("x-switchyard-ignored") ?? "";
      // Named, percent-encoded as UTF-8: a reader can decode it; a header parser never breaks on it.
      assert.ok(ignored.split(", ").map(decodeURIComponent).includes(name), ignored);
      await res.arrayBuffer();
      await assertAlive();
    });
  }

  test("the same field on a streamed answer", async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": PAYG_KEY,
        "anthropic-version": "2023-06-01",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        model: "local/echo-1",
        max_tokens: 20,
        stream: true,
        messages: [{ role: "user", content: "hi" }],
        "key🚀": 1,
      }),
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /message_stop/);
    await assertAlive();
  });
});

describe("errors under /v1beta/ come back in Gemini's shape", () => {
  for (const path of ["/v1beta/models/../models", "/v1beta/models/nope/nothing", "/v1beta/nothing-here"]) {
    test(`GET ${path}`, async () => {
      // Raw, since fetch would resolve the `..` before sending.
      const { text: got } = await rawExchange(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      assert.match(got, /^HTTP\/1\.1 404/);
      const body = JSON.parse(got.slice(got.indexOf("\r\n\r\n") + 4)) as {
        error: { code: number; status: string };
      };
      assert.equal(body.error.code, 404);
      assert.equal(body.error.status, "NOT_FOUND");
    });
  }
});

describe("malformed HTTP is answered, never crashes", () => {
  test("a request line the parser refuses gets a 400 with a JSON error", async () => {
    const { text: got } = await rawExchange("GET /\u0001 HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.match(got, /^HTTP\/1\.1 400/);
    assert.match(got, /"error"/);
    await assertAlive();
  });
  test("oversized headers get a 431", async () => {
    const { text: got } = await rawExchange(
      `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${"a".repeat(70_000)}\r\n\r\n`,
    );
    assert.match(got, /^HTTP\/1\.1 431/);
    await assertAlive();
  });
  test("a chunked body with a broken chunk size", async () => {
    const { text: got } = await rawExchange(
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    );
    assert.match(got, /^HTTP\/1\.1 400/);
    await assertAlive();
  });
});

describe("a body nested too deeply is a 400 naming the body, not a 500", () => {
  const deepSchema = (type: string) =>
    `${`{"type":"${type}","properties":{"a":`.repeat(5000)}{}${"}}".repeat(5000)}`;
  const cases = [
    {
      path: "/v1/messages",
      body: `{"model":"local/echo-1","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":${deepSchema("object")}}]}`,
    },
    {
      path: "/v1beta/models/local/echo-1:generateContent",
      body: `{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${deepSchema("OBJECT")}}]}]}`,
    },
  ];
  for (const { path, body } of cases) {
    test(path, async () => {
      const res = await fetch(`${gw.url}${path}`, {
        method: "POST",
        headers: {
          "x-api-key": PAYG_KEY,
          "x-goog-api-key": PAYG_KEY,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
        },
        body,
      });
      assert.equal(res.status, 400);
      // Both protocols carry the message at error.message.
      const answer = (await res.json()) as { error: { message: string } };
      assert.match(answer.error.message, /body.*nested too deeply/);
      await assertAlive();
    });
  }
});

describe("a body over the limit is refused on a connection that is then closed", () => {
  test("the 413 comes once the upload is over, says Connection: close, and the client reads it", async () => {
    const size = 40 * 1024 * 1024;
    const head = post("/v1/chat/completions", size, "");
    // All of it in one write: far more than the socket buffers hold, so the client is still writing
    // long after the gateway knows the answer; it must not meet a reset (EPIPE) on the way.
    const { text: got, error } = await rawExchange(
      Buffer.concat([Buffer.from(head), Buffer.alloc(size, "a")]),
    );
    assert.equal(error, undefined);
    assert.match(got, /^HTTP\/1\.1 413/);
    assert.match(got, /\r\nconnection: close\r\n/i);
    await assertAlive();
  });

  test("a client that stops sending mid-body still gets its 413, after a bounded wait", async () => {
    const head = post("/v1/chat/completions", 64 * 1024 * 1024, "");
    const started = performance.now();
    const { text: got } = await rawExchange(
      Buffer.concat([Buffer.from(head), Buffer.alloc(1024 * 1024, "a")]),
    );
    assert.match(got, /^HTTP\/1\.1 413/);
    assert.ok(performance.now() - started < 4000);
    await assertAlive();
  });

  test("a keep-alive client's next request is not sent on the refused connection", async () => {
    const { Agent, request } = await import("node:http");
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${gw.url}/v1/chat/completions`, {
          method: "POST",
          agent,
          headers: { "content-type": "application/json", authorization: `Bearer ${PAYG_KEY}` },
        });
        req.on("response", (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end(body);
      });
    assert.equal(await send(Buffer.alloc(40 * 1024 * 1024, "a")), 413);
    const ok = Buffer.from(
      JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] }),
    );
    assert.equal(await send(ok), 200);
    agent.destroy();
  });
});

describe("a body that arrives in many reads", () => {
  test("is decoded read by read, a character cut between two reads kept whole", async () => {
    const body = Buffer.from(
      JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "héllo 🚀 wörld" }] }),
    );
    const rocket = body.indexOf(Buffer.from("🚀"));
    const e = body.indexOf(Buffer.from("é"));
    // Cuts inside the two-byte é and the four-byte rocket, and a few more.
    const cuts = [0, 10, e + 1, rocket + 1, rocket + 3, body.length];
    const { port, hostname } = new URL(gw.url);
    const answer = await new Promise<string>((resolve, reject) => {
      let got = "";
      const socket = connect({ port: Number(port), host: hostname }, async () => {
        socket.setNoDelay(true);
        socket.write(post("/v1/chat/completions", body.length, "", "Connection: close\r\n"));
        for (let i = 1; i < cuts.length; i++) {
          await new Promise((r) => setTimeout(r, 20));
          socket.write(body.subarray(cuts[i - 1], cuts[i]));
        }
      });
      socket.on("data", (d) => {
        got += d;
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(got));
    });
    assert.match(answer, /^HTTP\/1\.1 200/);
    assert.ok(answer.includes("You said: héllo 🚀 wörld"), answer);
    await assertAlive();
  });
});

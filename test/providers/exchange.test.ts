// The upstream exchange (src/providers/http/exchange.ts): a body handed over read by read without
// undici's Readable must still pause a slow reader's upstream, cancel on abort or when the reader
// leaves, keep UTF-8 whole across reads, and let go of the caller's signal.

import assert from "node:assert/strict";
import { getEventListeners, once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent } from "undici";
import { GatewayError } from "../../src/ir/errors.ts";
import {
  AnswerTooLarge,
  encodedInTurns,
  post,
  WHOLE_ANSWER_MAX_BYTES,
} from "../../src/providers/http/exchange.ts";
import { transportError } from "../../src/providers/http/transport-errors.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function upstream(
  handler: Handler,
): Promise<{ origin: string; server: Server; close: () => Promise<void> }> {
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}

const failure = (err: unknown) => ({ mapped: err });

function call(origin: string, agent: Agent, signal = new AbortController().signal) {
  return post(
    agent,
    { origin, path: "/v1/x", headers: {}, body: "{}", headersTimeout: 5000 },
    signal,
    failure,
  );
}

test("a reader that stops reading pauses the upstream: the body is not read on into memory", async () => {
  let written = 0;
  const up = await upstream((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = Buffer.alloc(64 * 1024, "a");
    const pump = () => {
      while (!res.destroyed && written < 128 * 1024 * 1024) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
  const agent = new Agent();
  try {
    const answer = await call(up.origin, agent);
    const reads = answer.body.chunks();
    await reads.next();
    await sleep(500);
    // Unpaused, a loopback upstream writes hundreds of MB in half a second; paused, it stops once
    // the socket buffers on both sides are full (a few MB).
    assert.ok(written < 32 * 1024 * 1024, `the upstream wrote ${written} bytes to a reader that stopped`);
    const before = written;
    for (let i = 0; i < 200; i++) await reads.next();
    await sleep(100);
    assert.ok(written > before, "reading again resumes the upstream");
    await reads.return?.();
  } finally {
    await agent.destroy();
    await up.close();
  }
});

test("an abort before the answer's head rejects with the signal's reason and closes the request", async () => {
  let closed = false;
  const up = await upstream((req) => {
    req.resume();
    req.socket.on("close", () => {
      closed = true;
    });
  });
  const agent = new Agent();
  try {
    const aborter = new AbortController();
    const pending = call(up.origin, agent, aborter.signal);
    await sleep(50);
    const reason = new Error("client left");
    aborter.abort(reason);
    await assert.rejects(pending, (err) => (err as { mapped: unknown }).mapped === reason);
    await sleep(50);
    assert.equal(closed, true, "the upstream connection is closed");
    assert.equal(getEventListeners(aborter.signal, "abort").length, 0);
  } finally {
    await agent.close().catch(() => {});
    await up.close();
  }
});

test("a signal aborted already sends nothing", async () => {
  let requests = 0;
  const up = await upstream((_, res) => {
    requests++;
    res.end("{}");
  });
  const agent = new Agent();
  try {
    const aborter = new AbortController();
    aborter.abort(new Error("gone"));
    await assert.rejects(call(up.origin, agent, aborter.signal));
    await sleep(50);
    assert.equal(requests, 0);
  } finally {
    await agent.close();
    await up.close();
  }
});

test("an abort while a read is awaited rejects it, and the upstream sees the request closed", async () => {
  let closed: Promise<unknown> | undefined;
  const up = await upstream((req, res) => {
    req.resume();
    closed = once(res, "close");
    res.writeHead(200);
    res.write("data: {}\n\n");
  });
  const agent = new Agent();
  try {
    const aborter = new AbortController();
    const answer = await call(up.origin, agent, aborter.signal);
    const reads = answer.body.chunks();
    assert.equal((await reads.next()).value?.toString(), "data: {}\n\n");
    const waiting = reads.next();
    aborter.abort(new Error("client left"));
    await assert.rejects(waiting);
    await closed;
  } finally {
    await agent.close().catch(() => {});
    await up.close();
  }
});

test("a reader that leaves early cancels the request; one that reads to the end lets go of the signal", async () => {
  let closedEarly: Promise<unknown> | undefined;
  const up = await upstream((req, res) => {
    req.resume();
    res.writeHead(200);
    if (req.url === "/v1/x") {
      closedEarly = once(res, "close");
      res.write("data: 1\n\n");
    } else res.end("data: 1\n\n");
  });
  const agent = new Agent();
  try {
    const answer = await call(up.origin, agent);
    for await (const _ of answer.body.chunks()) break;
    await closedEarly;

    const aborter = new AbortController();
    const whole = await post(
      agent,
      { origin: up.origin, path: "/whole", headers: {}, body: "{}", headersTimeout: 5000 },
      aborter.signal,
      failure,
    );
    const seen: string[] = [];
    for await (const chunk of whole.body.chunks()) seen.push(chunk.toString());
    assert.deepEqual(seen.join(""), "data: 1\n\n");
    assert.equal(getEventListeners(aborter.signal, "abort").length, 0);
  } finally {
    await agent.close();
    await up.close();
  }
});

test("a whole body in many reads keeps a character split between two reads whole", async () => {
  const text = `{"text":"${"é€😀".repeat(3000)}"}`;
  const bytes = Buffer.from(text);
  const up = await upstream(async (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    // Odd-sized writes, flushed apart, cut characters in two.
    for (let at = 0; at < bytes.length; at += 4097) {
      res.write(bytes.subarray(at, at + 4097));
      await sleep(1);
    }
    res.end();
  });
  const agent = new Agent();
  try {
    const answer = await call(up.origin, agent);
    assert.equal(await answer.body.text(), text);
  } finally {
    await agent.close();
    await up.close();
  }
});

test("a whole body as latin1 is its bytes one per character, across reads", async () => {
  const bytes = Buffer.from(`{"text":"${"é€😀".repeat(3000)}"}`);
  const up = await upstream(async (req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json" });
    for (let at = 0; at < bytes.length; at += 4097) {
      res.write(bytes.subarray(at, at + 4097));
      await sleep(1);
    }
    res.end();
  });
  const agent = new Agent();
  try {
    const answer = await call(up.origin, agent);
    const text = await answer.body.text("latin1");
    assert.equal(text.length, bytes.length);
    assert.ok(Buffer.from(text, "latin1").equals(bytes));
  } finally {
    await agent.close();
    await up.close();
  }
});

test("a connection cut in the middle of the body fails the read with the mapped error", async () => {
  const up = await upstream((req, res) => {
    req.resume();
    res.writeHead(200);
    res.write("data: 1\n\n");
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const agent = new Agent();
  try {
    const answer = await call(up.origin, agent);
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of answer.body.chunks()) seen.push(chunk.toString());
      })(),
      (err) => (err as { mapped?: { code?: string } }).mapped?.code === "UND_ERR_SOCKET",
    );
    assert.deepEqual(seen, ["data: 1\n\n"]);
  } finally {
    await agent.close().catch(() => {});
    await up.close();
  }
});

test("a large body reaches the upstream whole, with its length, and is not kept while the answer streams", async () => {
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const prompt = JSON.stringify({ messages: [{ role: "user", content: "é".repeat(4 * 1024 * 1024) }] });
  let received: { length: string | undefined; chunked: boolean; same: boolean } | undefined;
  const up = await upstream((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const body = Buffer.concat(parts);
      received = {
        length: req.headers["content-length"],
        chunked: req.headers["transfer-encoding"] !== undefined,
        same: body.toString() === prompt,
      };
      parts.length = 0;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n"); // and held open
    });
  });
  const agent = new Agent();
  try {
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const answer = await post(
      agent,
      { origin: up.origin, path: "/v1/x", headers: {}, body: prompt, headersTimeout: 5000 },
      new AbortController().signal,
      failure,
    );
    const reads = answer.body.chunks();
    await reads.next();
    assert.deepEqual(received, { length: String(Buffer.byteLength(prompt)), chunked: false, same: true });
    gc();
    gc();
    const held = process.memoryUsage().arrayBuffers - before;
    assert.ok(held < 2 * 1024 * 1024, `${held} bytes of buffers are held while the stream is open`);
    await reads.return?.();
  } finally {
    await agent.destroy();
    await up.close();
  }
});

test("a long body is encoded a slice a turn: other work runs between slices, and a surrogate pair is never cut", async () => {
  // Slices of 3 characters: the rocket's two halves fall either side of several slice ends.
  const text = `ab🚀c🚀d${"é".repeat(10)}🚀`;
  let ranBetween = false;
  setImmediate(() => {
    ranBetween = true;
  });
  const parts = await encodedInTurns(text, new AbortController().signal, 3);
  assert.ok(parts.length > 3);
  assert.ok(ranBetween, "a callback queued before the encoding ran before it ended");
  assert.deepEqual(Buffer.concat(parts), Buffer.from(text));
  for (const part of parts) assert.equal(part.includes(Buffer.from("\uFFFD")), false);
});

test("encoding a long body stops with the signal's reason once it is aborted", async () => {
  const abort = new AbortController();
  const encoding = encodedInTurns("x".repeat(100), abort.signal, 10);
  abort.abort(new Error("client left"));
  await assert.rejects(encoding, /client left/);
});

test("a dispatcher that refuses at once fails the request through the mapping, and lets go of the signal", async () => {
  const refused = new Error("closed");
  const refusing = {
    dispatch: () => {
      throw refused;
    },
  } as unknown as Agent;
  const aborter = new AbortController();
  await assert.rejects(
    post(
      refusing,
      { origin: "http://127.0.0.1:9", path: "/", headers: {}, body: "{}", headersTimeout: 1000 },
      aborter.signal,
      failure,
    ),
    (err) => (err as { mapped: unknown }).mapped === refused,
  );
  assert.equal(getEventListeners(aborter.signal, "abort").length, 0);
});

/** An upstream that writes until the client goes away or `limit` bytes are out; counts what it wrote. */
function endlessUpstream(type: string, limit = Number.POSITIVE_INFINITY) {
  const state = { written: 0 };
  const start = upstream((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": type });
    const chunk = Buffer.alloc(16 * 1024, "a");
    const pump = () => {
      while (!res.destroyed && state.written < limit) {
        state.written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
  return { state, start };
}

/** A POST whose whole answer may hold `wholeAnswerMaxBytes`. */
function limitedCall(origin: string, agent: Agent, wholeAnswerMaxBytes: number) {
  return post(
    agent,
    { origin, path: "/v1/x", headers: {}, body: "{}", headersTimeout: 5000, wholeAnswerMaxBytes },
    new AbortController().signal,
    failure,
  );
}

test("a whole answer past its limit is cancelled with AnswerTooLarge, and the upstream stops writing", async () => {
  const { state, start } = endlessUpstream("application/json", 8 * 1024 * 1024);
  const up = await start;
  const agent = new Agent();
  try {
    const answer = await limitedCall(up.origin, agent, 256 * 1024);
    await assert.rejects(answer.body.text(), (err) => {
      const mapped = (err as { mapped: unknown }).mapped;
      return mapped instanceof AnswerTooLarge && mapped.limitBytes === 256 * 1024;
    });
    await sleep(200);
    const after = state.written;
    await sleep(200);
    assert.equal(state.written, after, "the upstream stopped");
    assert.ok(after < 8 * 1024 * 1024, `the upstream wrote ${after} bytes: it was not cut off`);
  } finally {
    await agent.destroy();
    await up.close();
  }
});

test("the limit is a whole answer's: a stream read by read goes past it", async () => {
  const { start } = endlessUpstream("text/event-stream", 1024 * 1024);
  const up = await start;
  const agent = new Agent();
  try {
    const answer = await limitedCall(up.origin, agent, 64 * 1024);
    let read = 0;
    for await (const chunk of answer.body.chunks()) read += chunk.length;
    assert.equal(read, 1024 * 1024);
  } finally {
    await agent.destroy();
    await up.close();
  }
});

test("the provider's caller gets a 502 naming the provider and the limit (64 MiB by default)", async () => {
  const { state, start } = endlessUpstream("application/json", WHOLE_ANSWER_MAX_BYTES + 4 * 1024 * 1024);
  const up = await start;
  const agent = new Agent();
  try {
    const answer = await post(
      agent,
      { origin: up.origin, path: "/v1/x", headers: {}, body: "{}", headersTimeout: 5000 },
      new AbortController().signal,
      (err) => transportError(err, "big"),
    );
    await assert.rejects(answer.body.text(), (err) => {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.status, 502);
      assert.equal(err.message, "Provider 'big' answered with more than 64 MiB.");
      return true;
    });
    assert.ok(state.written >= WHOLE_ANSWER_MAX_BYTES);
  } finally {
    await agent.destroy();
    await up.close();
  }
});

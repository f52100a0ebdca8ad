// A stream's pieces leave in as few socket writes as the way they arrive allows (BENCHMARKS.md,
// 2026-11-26): its head goes with its first piece, and an end noticed a few ticks after the last
// piece (as an upstream body's end is) goes in the same write. Counted on the server's socket.

import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import type { Socket } from "node:net";
import { test } from "node:test";
import { HttpResponder } from "../../src/server/responder.ts";

/** Socket writes the server made for one streamed answer, and the text the client read. */
async function streamed(answer: (out: HttpResponder) => void): Promise<{ writes: number; body: string }> {
  let writes = 0;
  const server = createServer((req, res) => {
    const socket = res.socket as Socket & { _writeGeneric: (...args: unknown[]) => unknown };
    const writeGeneric = socket._writeGeneric.bind(socket);
    socket._writeGeneric = (...args: unknown[]) => {
      writes++;
      return writeGeneric(...args);
    };
    answer(new HttpResponder(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  try {
    const body = await new Promise<string>((resolve, reject) => {
      request({ host: "127.0.0.1", port, path: "/" }, (res) => {
        let text = "";
        res
          .setEncoding("utf8")
          .on("data", (c: string) => (text += c))
          .on("end", () => resolve(text));
      })
        .on("error", reject)
        .end();
    });
    return { writes, body };
  } finally {
    server.close();
  }
}

test("a burst stream (head, events, end a few ticks later) leaves in one socket write", async () => {
  const { writes, body } = await streamed((out) => {
    out.startStream(200, {});
    out.write("data: 1\n\n");
    out.write("data: 2\n\n");
    process.nextTick(() => Promise.resolve().then(() => out.end()));
  });
  assert.equal(body, "data: 1\n\ndata: 2\n\n");
  assert.equal(writes, 1);
});

test("pieces written in separate turns each leave at once", async () => {
  const { writes, body } = await streamed((out) => {
    out.startStream(200, {});
    out.write("data: 1\n\n");
    setTimeout(() => {
      out.write("data: 2\n\n");
      setTimeout(() => out.end(), 5);
    }, 5);
  });
  assert.equal(body, "data: 1\n\ndata: 2\n\n");
  assert.equal(writes, 3);
});

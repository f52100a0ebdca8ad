// A relayed stream keeps the upstream's line ends: CRLF framing (Google's) is noticed from the first
// line end, even when a network read ends between the CR and the LF, and LF framing stays LF.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, test } from "node:test";
import { DEFAULT_TIMEOUTS, type ProviderConfig } from "../../src/config/providers.ts";
import { gemini } from "../../src/protocols/gemini/index.ts";
import { SseReader } from "../../src/protocols/shared/sse-reader.ts";
import { HttpProvider } from "../../src/providers/http/adapter.ts";

/** Each request's body names the pieces to answer with, written 30 ms apart (separate reads). */
let server: Server;
let url: string;

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const piece of JSON.parse(body) as string[]) {
        res.write(piece);
        await new Promise((r) => setTimeout(r, 30));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

async function relayed(pieces: string[]): Promise<Array<{ data: string; crlf?: boolean }>> {
  const provider: ProviderConfig = {
    id: "g",
    protocol: "gemini",
    baseUrl: url,
    apiKey: "k",
    enabled: true,
    timeouts: { ...DEFAULT_TIMEOUTS },
  };
  const answer = await new HttpProvider(provider, gemini).relay(
    { path: "/s", body: JSON.stringify(pieces), headers: {}, stream: true },
    AbortSignal.timeout(5000),
  );
  const events = [];
  const reader = new SseReader();
  for await (const chunk of answer.chunks()) events.push(...reader.read(chunk));
  return [...events, ...reader.end()];
}

test("CRLF framing is noticed, also when a read ends between CR and LF", async () => {
  for (const pieces of [
    ['data: {"a":1}\r\n\r\n', 'data: {"a":2}\r\n\r\n'],
    ['data: {"a":1}\r', '\n\r\ndata: {"a":2}\r\n\r\n'],
  ]) {
    const events = await relayed(pieces);
    assert.deepEqual(
      events.map((e) => [e.data, e.crlf]),
      [
        ['{"a":1}', true],
        ['{"a":2}', true],
      ],
    );
  }
});

test("LF framing stays LF", async () => {
  const events = await relayed(['data: {"a":1}\n\n', 'data: {"a":2}\n\n']);
  assert.deepEqual(
    events.map((e) => [e.data, e.crlf]),
    [
      ['{"a":1}', undefined],
      ['{"a":2}', undefined],
    ],
  );
});

// The floor: a bare reverse proxy on undici, run in its own process. It forwards the request body
// to the upstream and pipes the answer back, nothing else — no parsing, no auth, no ledger. The
// gateway's overhead is measured against this, so it is kept as lean as Node allows.
//
//   node bench/servers/proxy.ts --upstream http://127.0.0.1:PORT
// prints "bench proxy listening on http://127.0.0.1:PORT".

import { createServer } from "node:http";
import { pipeline } from "node:stream";
import { Agent, request } from "undici";

const at = process.argv.indexOf("--upstream");
if (at < 0) throw new Error("usage: proxy.ts --upstream http://HOST:PORT");
const upstream = process.argv[at + 1];

/** The request headers an upstream needs; the client sends them ready for the upstream. */
const FORWARDED = ["content-type", "content-length", "authorization", "x-api-key", "anthropic-version"];

// Keep-alive pooling like the gateway's; no cap on connections (the gateway's cap is its own choice).
const dispatcher = new Agent({ keepAliveTimeout: 30_000 });

const server = createServer((req, res) => {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  // A client that leaves before its answer is complete aborts the upstream call, whether or not the
  // answer has begun. (Aborting after a complete answer would only cost a DOMException per request.)
  const abort = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  request(upstream + req.url, { method: "POST", headers, body: req, dispatcher, signal: abort.signal }).then(
    (answer) => {
      if (res.destroyed) return answer.body.destroy();
      const type = answer.headers["content-type"];
      res.writeHead(answer.statusCode, typeof type === "string" ? { "content-type": type } : {});
      pipeline(answer.body, res, () => {});
    },
    () => {
      if (res.destroyed) return;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    },
  );
});

server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`bench proxy listening on http://127.0.0.1:${port}\n`);
});
process.once("SIGTERM", () => process.exit(0));

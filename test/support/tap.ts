// A pass-through HTTP proxy that keeps each answer's bytes and headers; streams stay streams. Put in
// front of a fake upstream it shows what the fake sent the gateway; in front of the gateway, what a
// client was answered (its generation ids among the headers).

import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One answer as it left the target, byte for byte. */
export interface TappedAnswer {
  method: string;
  path: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The request's body as the client sent it. */
  request: string;
  text: string;
  /** When the target's last byte went through (ms since the epoch); undefined while still streaming. */
  endedAt?: number;
}

export interface Tap {
  /** The tap's address followed by `basePath`. */
  url: string;
  answers: TappedAnswer[];
  close(): Promise<void>;
}

/** A tap forwarding to 127.0.0.1:`port`; `basePath` is appended to its URL (e.g. `/v1`). */
export async function startTap(port: number, basePath = ""): Promise<Tap> {
  const answers: TappedAnswer[] = [];
  const server = createServer((req, res) => {
    const sent: Buffer[] = [];
    req.on("data", (chunk: Buffer) => sent.push(chunk));
    const forward = httpRequest(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
      (upstream) => {
        const answer: TappedAnswer = {
          method: req.method ?? "GET",
          path: req.url ?? "",
          status: upstream.statusCode ?? 0,
          headers: upstream.headers,
          request: Buffer.concat(sent).toString("utf8"),
          text: "",
        };
        answers.push(answer);
        const chunks: Buffer[] = [];
        res.writeHead(upstream.statusCode ?? 502, upstream.headers);
        res.flushHeaders();
        upstream.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          answer.text = Buffer.concat(chunks).toString("utf8");
          res.write(chunk);
        });
        upstream.on("end", () => {
          answer.endedAt = Date.now();
          res.end();
        });
        upstream.on("error", () => res.destroy());
      },
    );
    forward.on("error", () => res.destroy());
    res.on("close", () => {
      if (!res.writableFinished) forward.destroy();
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${address}${basePath.replace(/\/$/, "")}`,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

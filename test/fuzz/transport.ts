// Sends a fuzz case and brings back every answer as status, raw headers and body bytes: node:http
// (keep-alive) for ordinary exchanges, a raw socket and a small HTTP/1.1 response reader for byte
// scripts. A request that gets no answer in time is reported as such, never waited on for ever.

import { Agent, request } from "node:http";
import { connect } from "node:net";
import type { HttpExchange, RawExchange } from "./cases.ts";

export interface Answer {
  status: number;
  /** Header names (lowercased) and values in the order received. */
  headers: Array<[string, string]>;
  body: Buffer;
  ms: number;
}

export interface Outcome {
  answers: Answer[];
  /** No answer (or no end of one) within the time limit. */
  timedOut?: boolean;
  /** The connection failed before an answer came (reset, refused…). */
  error?: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

export function closeAgent(): void {
  agent.destroy();
}

export function sendHttp(base: URL, x: HttpExchange, timeoutMs: number): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let req: ReturnType<typeof request>;
    try {
      req = request({
        host: base.hostname,
        port: base.port,
        method: x.method,
        path: x.path,
        // A case that asks for chunked framing gets it (node:http frames the body); others a length.
        headers:
          x.body && x.headers["transfer-encoding"] === undefined
            ? { ...x.headers, "content-length": String(x.body.length) }
            : x.headers,
        agent,
      });
    } catch (err) {
      // node:http refused to send it (a character it will not put on the wire): nothing to judge.
      resolve({ answers: [], error: `not sent: ${(err as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy();
      done({ answers: [], timedOut: true });
    }, timeoutMs);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        done({
          answers: [
            {
              status: res.statusCode ?? 0,
              headers: pairs(res.rawHeaders),
              body: Buffer.concat(chunks),
              ms: performance.now() - started,
            },
          ],
        }),
      );
      res.on("error", (err) => done({ answers: [], error: `response cut: ${err.message}` }));
    });
    req.on("error", (err) => done({ answers: [], error: err.message }));
    if (x.body) req.end(x.body);
    else req.end();
  });
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i].toLowerCase(), raw[i + 1]]);
  return out;
}

/** Runs a byte script on its own connection and reads answers until the server closes it. */
export function sendRaw(base: URL, x: RawExchange, timeoutMs: number): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: base.hostname, port: Number(base.port) });
    const finish = (extra: Partial<Outcome> = {}) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const { answers, complete } = readAnswers(Buffer.concat(received), performance.now() - started);
      resolve({ answers, ...(complete ? {} : { error: "an answer was cut short" }), ...extra });
    };
    const timer = setTimeout(() => finish({ timedOut: true }), timeoutMs);
    socket.on("data", (d: Buffer) => {
      received.push(d);
      // Every request answered: no need to wait for the server to close.
      if (readAnswers(Buffer.concat(received), 0).answers.length >= x.requests) finish();
    });
    socket.on("error", () => {});
    socket.on("close", () => finish());
    socket.once("connect", async () => {
      for (const step of x.steps) {
        if (settled || socket.destroyed) return;
        if ("write" in step) socket.write(step.write);
        else if ("waitMs" in step) await new Promise((r) => setTimeout(r, step.waitMs));
        else if ("end" in step) socket.end();
        else socket.resetAndDestroy();
      }
    });
  });
}

/** The complete HTTP/1.1 answers in `data`; `complete` is false when the last one is cut short. */
export function readAnswers(data: Buffer, ms: number): { answers: Answer[]; complete: boolean } {
  const answers: Answer[] = [];
  let at = 0;
  while (at < data.length) {
    const headEnd = data.indexOf("\r\n\r\n", at);
    if (headEnd < 0) return { answers, complete: false };
    const lines = data.subarray(at, headEnd).toString("latin1").split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? 0);
    const headers = lines.slice(1).map((line): [string, string] => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
    const get = (name: string) => headers.find(([n]) => n === name)?.[1];
    let bodyStart = headEnd + 4;
    let body: Buffer;
    if (status < 200 || status === 204 || status === 304) body = Buffer.alloc(0);
    else if (get("transfer-encoding")?.toLowerCase() === "chunked") {
      const pieces: Buffer[] = [];
      for (;;) {
        const lineEnd = data.indexOf("\r\n", bodyStart);
        if (lineEnd < 0) return { answers, complete: false };
        const size = Number.parseInt(data.subarray(bodyStart, lineEnd).toString("latin1"), 16);
        if (!Number.isFinite(size)) return { answers, complete: false };
        bodyStart = lineEnd + 2;
        if (size === 0) {
          const trailerEnd = data.indexOf("\r\n", bodyStart);
          if (trailerEnd < 0) return { answers, complete: false };
          bodyStart = trailerEnd + 2;
          break;
        }
        if (bodyStart + size + 2 > data.length) return { answers, complete: false };
        pieces.push(data.subarray(bodyStart, bodyStart + size));
        bodyStart += size + 2;
      }
      body = Buffer.concat(pieces);
    } else if (get("content-length") !== undefined) {
      const length = Number(get("content-length"));
      if (bodyStart + length > data.length) return { answers, complete: false };
      body = data.subarray(bodyStart, bodyStart + length);
      bodyStart += length;
    } else {
      body = data.subarray(bodyStart);
      bodyStart = data.length;
    }
    answers.push({ status, headers, body, ms });
    at = bodyStart;
  }
  return { answers, complete: true };
}

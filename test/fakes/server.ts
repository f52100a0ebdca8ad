// The shared core of the fake upstreams: a server on 127.0.0.1 (port 0; HTTP/1.1 unless told, transport.ts) that records every
// request, answers from a FIFO script of replies (rendered by the protocol's dialect), and plays the
// scripted faults at the transport level.

import { EventEmitter } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Dialect, Exchange, FakeOptions, RecordedRequest } from "./dialect.ts";
import { DEFAULT_REPLY, type FakeProtocol, type Fault, type Reply } from "./reply.ts";
import { answered, createFakeServer, cut, gone } from "./transport.ts";

/** Counts requests across all fakes in the process, for ordering them. */
let arrivals = 0;
export interface FakeUpstream {
  readonly protocol: FakeProtocol;
  /** Base URL as the official SDK wants it: openai `http://127.0.0.1:PORT/v1`, others without a path. */
  readonly url: string;
  readonly port: number;
  /** Every request received, in arrival order (recorded before it is answered). */
  readonly requests: RecordedRequest[];
  /** The most requests the fake has held at once, from arrival until answered (reset clears it). */
  readonly peakInFlight: number;
  /** Connections (HTTP/1.1) or sessions (HTTP/2) accepted so far. */
  readonly connections: number;
  /** HTTP/2 only: sends every open session a GOAWAY with this code and closes it. */
  goaway(code: number): void;
  /** Queues replies for the next requests; an empty queue answers DEFAULT_REPLY. */
  script(...replies: Reply[]): void;
  /**
   * Answers the requests `answer` returns a reply for with that reply instead of the script's next
   * (an agent's side calls, such as a router's classifier, beside the turns a test scripts); such a
   * request is recorded with `side: true`. Kept until replaced (reset keeps it).
   */
  answerSideCalls(answer: (request: RecordedRequest) => Reply | undefined): void;
  /** How many scripted replies are still waiting. */
  readonly queued: number;
  /** Forgets the queued replies and the recorded requests (between tests). */
  reset(): void;
  /** Resolves once `predicate` holds (checked whenever a request is recorded or aborted). */
  until(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MALFORMED_BODY = "<html><body><h1>502 Bad Gateway</h1></body></html>";

export async function startFakeServer(dialect: Dialect, options: FakeOptions = {}): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const queue: Reply[] = [];
  let sideCall: ((request: RecordedRequest) => Reply | undefined) | undefined;
  const changes = new EventEmitter();
  let closing = false;
  let inFlight = 0;
  let peakInFlight = 0;

  // HTTP/2's compatibility request and response have every member used here (gone and cut tell
  // the two apart), so they are handled as HTTP/1.1's.
  const fake = createFakeServer(options.transport ?? "http", (h2OrH1Req, h2OrH1Res) => {
    const req = h2OrH1Req as IncomingMessage;
    const res = h2OrH1Res as ServerResponse;
    peakInFlight = Math.max(peakInFlight, ++inFlight);
    handle(req, res)
      .catch(() => {
        // A client that vanished mid-request leaves nothing to answer.
        if (!res.headersSent && !gone(res)) cut(req);
      })
      .finally(() => inFlight--);
  });
  const server = fake.server;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? "/";
    const url = new URL(target, "http://fake.invalid");
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: target,
      pathname: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: undefined,
      rawBody: "",
      receivedAt: Date.now(),
      seq: ++arrivals,
      aborted: false,
    };
    let recorded = false;
    const keep = () => {
      if (recorded) return;
      recorded = true;
      requests.push(record);
      changes.emit("change");
    };
    // Set when the fake itself cuts the connection, so that it is not mistaken for a client abort.
    let cutByFake = false;
    res.on("close", () => {
      if (answered(res) || cutByFake || closing) return;
      record.aborted = true;
      record.abortedAt = Date.now();
      keep();
      changes.emit("change");
    });
    const reset = () => {
      cutByFake = true;
      cut(req);
    };

    if (queue[0]?.fault === "refuse") {
      queue.shift();
      keep();
      reset();
      return;
    }
    record.rawBody = await readBody(req);
    try {
      record.body = JSON.parse(record.rawBody);
    } catch {
      record.body = undefined;
    }
    keep();

    const counted = dialect.countTokens?.(record, options) ?? dialect.embeddings?.(record, options);
    if (counted) {
      // A scripted error status answers a count or an embedding too (a failing counter, a fallback).
      const scripted = queue[0]?.status !== undefined && queue[0].status >= 400 ? queue.shift() : undefined;
      if (options.embeddingDelayMs) await new Promise((r) => setTimeout(r, options.embeddingDelayMs));
      if (scripted?.status)
        sendText(
          res,
          scripted.status,
          JSON.stringify(dialect.error(scripted.status)),
          dialect.headers(false),
        );
      else sendText(res, counted.status, JSON.stringify(counted.body), dialect.headers(false));
      return;
    }
    const verdict = dialect.check(record, options);
    if (!verdict.ok) {
      sendText(res, verdict.status, JSON.stringify(verdict.body), dialect.headers(false));
      return;
    }
    const side = sideCall?.(record);
    if (side) record.side = true;
    const reply = side ?? queue.shift() ?? DEFAULT_REPLY;
    await answer(res, reply, verdict.exchange, reset);
  }

  async function answer(res: ServerResponse, reply: Reply, exchange: Exchange, reset: () => void) {
    const headers = (stream: boolean) => ({ ...dialect.headers(stream), ...reply.headers });
    const fault = reply.fault;
    if (fault === "hang") return;
    if (reply.answerDelayMs) await new Promise((r) => setTimeout(r, reply.answerDelayMs));
    if (fault === "reset-before") return reset();
    if (!fault && reply.status !== undefined && reply.status >= 400) {
      const body = reply.errorBody !== undefined ? reply.errorBody : dialect.error(reply.status);
      sendText(res, reply.status, JSON.stringify(body), headers(false));
      return;
    }
    const status = reply.status ?? 200;

    if (!exchange.stream) {
      if (fault === "midstream-error") {
        const overloaded = dialect.overloadedStatus;
        sendText(res, overloaded, JSON.stringify(dialect.error(overloaded)), headers(false));
        return;
      }
      const text =
        fault === "malformed-json"
          ? MALFORMED_BODY
          : JSON.stringify(dialect.response(reply, exchange, options));
      if (!fault || fault === "malformed-json") {
        sendText(res, status, text, headers(false));
        return;
      }
      // Chunked (no content-length), so that a cut is visible only as an unfinished body.
      res.writeHead(status, headers(false));
      await write(res, text.slice(0, Math.floor(text.length / 2)));
      if (fault === "truncated-sse") res.end();
      else if (fault !== "stall-mid") reset();
      return;
    }

    const plan = dialect.stream(reply, exchange, options);
    const delay = reply.chunkDelayMs ?? 0;
    res.writeHead(status, headers(true));
    if (!fault) {
      res.flushHeaders();
      if (await writeFrames(res, plan.frames, delay)) res.end();
      return;
    }
    // `truncated-sse` lets every frame through but the final ones; the other faults strike halfway.
    const body = plan.frames.length - plan.terminal;
    const cut = fault === "truncated-sse" ? body : Math.min(body, Math.max(1, Math.floor(body / 2)));
    const lead = plan.frames.slice(0, cut);
    const bytes = faultBytes(fault, exchange);
    let written: boolean;
    if (reply.burst) written = await writeBurst(res, lead, bytes, delay);
    else {
      res.flushHeaders();
      written = await writeFrames(res, bytes === undefined ? lead : [...lead, bytes], delay);
    }
    if (!written) return;
    if (fault === "reset-mid") reset();
    // A stalled answer and an event that never ends leave the socket open.
    else if (fault !== "stall-mid" && fault !== "oversized-event") res.end();
  }

  /** The bytes a stream fault writes after the frames before it (none: a cut, a stall, an end). */
  function faultBytes(fault: Fault, exchange: Exchange): string | Buffer | undefined {
    if (fault === "midstream-error") return dialect.streamError(exchange);
    if (fault === "malformed-json") return dialect.malformedFrame();
    if (fault === "oversized-event") return oversized();
    return undefined;
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    protocol: dialect.protocol,
    url: `${fake.scheme}://127.0.0.1:${port}${dialect.basePath}`,
    port,
    requests,
    get peakInFlight() {
      return peakInFlight;
    },
    get connections() {
      return fake.connections;
    },
    goaway: (code) => fake.goaway(code),
    answerSideCalls(answer) {
      sideCall = answer;
    },
    script(...replies: Reply[]) {
      queue.push(...replies);
    },
    get queued() {
      return queue.length;
    },
    reset() {
      queue.length = 0;
      requests.length = 0;
      peakInFlight = inFlight;
    },
    until(predicate, timeoutMs = 2000) {
      return new Promise<void>((resolve, reject) => {
        if (predicate()) return resolve();
        const check = () => {
          if (!predicate()) return;
          clearTimeout(timer);
          changes.off("change", check);
          resolve();
        };
        const timer = setTimeout(() => {
          changes.off("change", check);
          reject(new Error(`fake ${dialect.protocol} upstream: condition not met within ${timeoutMs} ms`));
        }, timeoutMs);
        changes.on("change", check);
      });
    },
    close() {
      closing = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Hung and stalled answers hold their sockets open; close() must not wait for them.
        fake.closeAll();
      });
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, "content-length": String(Buffer.byteLength(text)) });
  res.end(text);
}

/** Writes and waits until the bytes are handed to the socket (so a reset right after cannot eat them). */
function write(res: ServerResponse, text: string | Buffer): Promise<boolean> {
  if (gone(res)) return Promise.resolve(false);
  return new Promise((resolve) => {
    res.write(text, (error) => resolve(!error && !gone(res)));
  });
}

/** An event's first line that goes on past 64 MiB without ending (`oversized-event`), made once needed. */
let oversizedEvent: Buffer | undefined;
function oversized(): Buffer {
  oversizedEvent ??= Buffer.alloc(65 * 1024 * 1024, "x").fill("data: ", 0, 6);
  return oversizedEvent;
}

/**
 * `Reply.burst`: the frames in one write, with the headers not yet sent, then the fault (its bytes,
 * or the cut or end that follows) `delayMs` later, or corked into the same write; false once the
 * client has gone.
 */
async function writeBurst(
  res: ServerResponse,
  frames: string[],
  fault: string | Buffer | undefined,
  delayMs: number,
): Promise<boolean> {
  if (fault === undefined || delayMs > 0) {
    if (!(await write(res, frames.join("")))) return false;
    // A cut or an end strikes after the pause too, in a read of its own.
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return fault === undefined ? !gone(res) : write(res, fault);
  }
  res.cork();
  const written = [write(res, frames.join("")), write(res, fault)];
  res.uncork();
  return (await Promise.all(written)).every(Boolean);
}

/** Writes frame by frame with the pause between them; false once the client has gone. */
async function writeFrames(
  res: ServerResponse,
  frames: (string | Buffer)[],
  delayMs: number,
): Promise<boolean> {
  for (let i = 0; i < frames.length; i++) {
    if (i > 0 && delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!(await write(res, frames[i]))) return false;
  }
  return !gone(res);
}

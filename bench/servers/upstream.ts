// The fake upstream, run in its own process: raw node:http, answers built once and cached.
//   POST /v1/chat/completions  → chat.completion, or a chunk stream when body.stream is true
//   POST /v1/messages          → message, or an event stream when body.stream is true
//   POST /v1/embeddings        → one float vector per input
//   POST /model/{id}/invoke-with-response-stream → Bedrock's event-stream frames of the messages stream
//                                  (a Claude model on Bedrock; no signature is checked: that is the
//                                  gateway's cost to measure, not the upstream's)
// A request for the model named "hold" gets the first content chunk of its stream at once and the
// rest only after --hold-ms (or never, if the client goes away first): the idle-streams scenario.
// Streams are paced one frame per turn of the event loop, as a real upstream's frames arrive one by
// one; a model whose name ends in "-burst" gets its whole stream in one write instead, as when an
// upstream's frames arrive many to a read. With --h2c it speaks HTTP/2 cleartext (prior knowledge)
// instead of HTTP/1.1, through node:http2's compatibility API, so the same handler answers both.
//
//   node bench/servers/upstream.ts [--chunks 20] [--hold-ms 60000] [--h2c]
// prints "bench upstream listening on http://127.0.0.1:PORT".

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createH2cServer } from "node:http2";
import {
  answerIds,
  bedrockInvokeStream,
  CHAT_ID,
  chatCompletion,
  chatStream,
  embeddingsList,
  MESSAGE_ID,
  messagesMessage,
  messagesStream,
} from "./upstream-bodies.ts";

const chunks = numberFlag("--chunks", 20);
const holdMs = numberFlag("--hold-ms", 60_000);
/** Frames sent before a held stream pauses: the role chunk (or message_start…) and the first word. */
const HELD_OPENING = { chat: 2, messages: 4 };

/** What Bedrock names its streamed answers' type. */
const BEDROCK_STREAM_TYPE = "application/vnd.amazon.eventstream";

const cache = new Map<string, string | string[] | Uint8Array[]>();
function cached<T extends string | string[] | Uint8Array[]>(key: string, build: () => T): T {
  let value = cache.get(key) as T | undefined;
  if (value === undefined) {
    value = build();
    cache.set(key, value);
  }
  return value;
}

interface Body {
  model?: unknown;
  input?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown };
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const parts: Buffer[] = [];
  req.on("data", (part: Buffer) => parts.push(part));
  req.on("end", () => {
    let body: Body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Body;
    } catch {
      return sendJson(res, 400, JSON.stringify({ error: { message: "body is not JSON" } }));
    }
    const model = typeof body.model === "string" ? body.model : "unknown";
    const streamed = body.stream === true;
    const hold = model === "hold";
    const burst = model.endsWith("-burst");
    const ids = answerIds();
    if (req.url === "/v1/chat/completions") {
      const ownId = (text: string) => text.replaceAll(CHAT_ID, ids.chat);
      if (!streamed) return sendJson(res, 200, ownId(cached(`chat:${model}`, () => chatCompletion(model))));
      const usage = body.stream_options?.include_usage === true;
      const frames = cached(`chat-stream:${model}:${usage}`, () => chatStream(model, chunks, usage)).map(
        ownId,
      );
      return burst
        ? sendBurst(res, frames)
        : sendStream(res, frames, hold ? HELD_OPENING.chat : frames.length);
    }
    if (req.url === "/v1/messages") {
      if (!streamed)
        return sendJson(
          res,
          200,
          cached(`messages:${model}`, () => messagesMessage(model)).replace(MESSAGE_ID, ids.message),
        );
      // (Only message_start names the message.)
      const frames = [...cached(`messages-stream:${model}`, () => messagesStream(model, chunks))];
      frames[0] = frames[0].replace(MESSAGE_ID, ids.message);
      return burst
        ? sendBurst(res, frames)
        : sendStream(res, frames, hold ? HELD_OPENING.messages : frames.length);
    }
    const bedrock = /^\/model\/([^/]+)\/invoke-with-response-stream$/.exec(req.url ?? "");
    if (bedrock) {
      const id = decodeURIComponent(bedrock[1]!);
      const frames = cached(`bedrock-stream:${id}`, () => bedrockInvokeStream(id, chunks));
      return sendStream(res, frames, frames.length, BEDROCK_STREAM_TYPE);
    }
    if (req.url === "/v1/embeddings") {
      const count = Array.isArray(body.input) ? body.input.length : 1;
      return sendJson(
        res,
        200,
        cached(`embeddings:${model}:${count}`, () => embeddingsList(model, count)),
      );
    }
    sendJson(res, 404, JSON.stringify({ error: { message: `no route ${req.url}` } }));
  });
}

function sendJson(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Writes the frames one per turn of the event loop, as a real upstream's arrive one by one (the
 * gateway then reads them one by one too). After `pauseAfter` frames it waits --hold-ms.
 */
function sendStream(
  res: ServerResponse,
  frames: Array<string | Uint8Array>,
  pauseAfter: number,
  contentType = "text/event-stream; charset=utf-8",
): void {
  res.writeHead(200, { "content-type": contentType, "cache-control": "no-cache" });
  let next = 0;
  let timer: NodeJS.Timeout | undefined;
  res.once("close", () => clearTimeout(timer));
  const write = () => {
    // (An HTTP/2 response has no `destroyed`; its stream's is what tells the client went away.)
    if (res.destroyed || (res as { stream?: { destroyed: boolean } }).stream?.destroyed) return;
    res.write(frames[next++]);
    if (next === frames.length) res.end();
    else if (next === pauseAfter) timer = setTimeout(write, holdMs);
    else setImmediate(write);
  };
  write();
}

/** The whole stream in one write: the gateway reads all its frames at once. */
function sendBurst(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
  res.end(frames.join(""));
}

function numberFlag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at < 0 ? fallback : Number(process.argv[at + 1]);
}

const server = process.argv.includes("--h2c")
  ? // The compatibility request and response have every member `handle` uses.
    createH2cServer((req, res) => handle(req as unknown as IncomingMessage, res as unknown as ServerResponse))
  : Object.assign(createServer(handle), { keepAliveTimeout: 60_000, maxRequestsPerSocket: 0 });
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`bench upstream listening on http://127.0.0.1:${port}\n`);
});
process.once("SIGTERM", () => process.exit(0));

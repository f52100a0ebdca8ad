// The pipeline's Responder over a raw node:http response.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { HeaderMap, Responder } from "../gateway/responder.ts";
import { writeHead } from "./response-head.ts";

export class HttpResponder implements Responder {
  readonly signal: AbortSignal;
  private readonly res: ServerResponse;
  private corked = false;
  private readonly uncork = (socket: Socket) => {
    this.corked = false;
    socket.uncork();
  };

  constructor(req: IncomingMessage, res: ServerResponse) {
    this.res = res;
    const controller = new AbortController();
    this.signal = controller.signal;
    // The client went away before the answer was complete: abort the upstream call.
    res.on("close", () => {
      if (!res.writableFinished) controller.abort(new Error("client disconnected"));
    });
    req.on("error", () => controller.abort(new Error("client connection error")));
  }

  json(status: number, headers: HeaderMap, body: unknown): void {
    this.jsonText(status, headers, JSON.stringify(body));
  }

  jsonText(status: number, headers: HeaderMap, text: string, latin1?: boolean): void {
    const head = {
      ...headers,
      "content-type": "application/json",
      "content-length": latin1 ? text.length : Buffer.byteLength(text),
    };
    if (writeHead(this.res, status, head)) this.res.end(text, latin1 ? "latin1" : "utf8");
    // A stream has begun, so a whole answer cannot follow it: end the connection instead, which a
    // client reads as a cut-off stream rather than as a complete one.
    else this.res.destroy();
  }

  startStream(status: number, headers: HeaderMap): void {
    if (!writeHead(this.res, status, { ...headers, connection: "keep-alive", "x-accel-buffering": "no" }))
      return;
    // The head leaves with the first piece, written in the same tick, in one socket write.
    this.corkTick();
    this.res.flushHeaders();
  }

  write(chunk: string | Buffer, latin1?: boolean): Promise<void> | undefined {
    this.corkTick();
    if (this.res.write(chunk, latin1 ? "latin1" : "utf8")) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        this.res.off("drain", done);
        this.res.off("close", done);
        resolve();
      };
      this.res.on("drain", done);
      this.res.on("close", done);
    });
  }

  end(): void {
    this.res.end();
  }

  /**
   * Pieces written in the same turn of the event loop (several SSE events from one upstream read)
   * leave in one socket write instead of one syscall each. The socket is uncorked after the turn's
   * I/O callbacks (setImmediate), not after the current tick: a stream whose last events and end
   * arrive in one read ends in that same write, its end reaching us ticks after its events.
   * (The socket is corked, not the response: a corked response loses pieces written before end().)
   */
  private corkTick(): void {
    const socket = this.res.socket;
    if (!this.corked && socket) {
      this.corked = true;
      socket.cork();
      setImmediate(this.uncork, socket);
    }
  }
}

// The pipeline's Responder over a raw node:http response.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { HeaderMap, Responder } from "../gateway/responder.ts";

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

  jsonText(status: number, headers: HeaderMap, text: string): void {
    this.res.writeHead(status, {
      ...headers,
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
    });
    this.res.end(text);
  }

  startStream(status: number, headers: HeaderMap): void {
    this.res.writeHead(status, { ...headers, connection: "keep-alive", "x-accel-buffering": "no" });
    this.res.flushHeaders();
  }

  write(chunk: string): Promise<void> | undefined {
    // Pieces written in the same tick (several SSE events from one upstream read) leave in one
    // socket write instead of one syscall each.
    // (The socket is corked, not the response: a corked response loses pieces written before end().)
    const socket = this.res.socket;
    if (!this.corked && socket) {
      this.corked = true;
      socket.cork();
      process.nextTick(this.uncork, socket);
    }
    if (this.res.write(chunk)) return undefined;
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
}

// How a fake upstream is reached: plain HTTP/1.1 (the default), HTTP/2 cleartext with prior knowledge
// (`h2c`), HTTP/2 over TLS chosen by ALPN (`h2`, HTTP/1.1 still served to a client that does not
// offer h2), or TLS with HTTP/1.1 only (`https`). The TLS ones use the self-signed certificate in
// test/fixtures/tls (localhost and 127.0.0.1, valid to 2126): a gateway trusts it through
// NODE_EXTRA_CA_CERTS=TLS_CERT_FILE.

import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  constants,
  createServer as createH2cServer,
  createSecureServer,
  type Http2SecureServer,
  type Http2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from "node:http2";
import { createServer as createHttpsServer } from "node:https";

export type Transport = "http" | "h2c" | "h2" | "https";
export type FakeRequest = IncomingMessage | Http2ServerRequest;
export type FakeResponse = ServerResponse | Http2ServerResponse;

const TLS_DIR = new URL("../fixtures/tls/", import.meta.url).pathname;
export const TLS_CERT_FILE = `${TLS_DIR}localhost.crt`;

export interface FakeServer {
  readonly server: Server | Http2Server | Http2SecureServer;
  readonly scheme: "http" | "https";
  /** Connections (HTTP/1.1) or sessions (HTTP/2) accepted so far. */
  readonly connections: number;
  /** HTTP/2 only: a GOAWAY with this code on every open session, which is then closed. */
  goaway(code: number): void;
  /** Ends every connection at once, hung answers too. */
  closeAll(): void;
}

export function createFakeServer(
  transport: Transport,
  listener: (req: FakeRequest, res: FakeResponse) => void,
): FakeServer {
  const tls = () => ({ key: readFileSync(`${TLS_DIR}localhost.key`), cert: readFileSync(TLS_CERT_FILE) });
  const server =
    transport === "h2c"
      ? createH2cServer(listener)
      : transport === "h2"
        ? createSecureServer({ ...tls(), allowHTTP1: true }, listener)
        : transport === "https"
          ? createHttpsServer(tls(), listener)
          : createServer(listener);
  let connections = 0;
  const sessions = new Set<Http2Session>();
  server.on(transport === "https" ? "secureConnection" : "connection", () => {
    if (transport === "http" || transport === "https") connections++;
  });
  server.on("session", (session: Http2Session) => {
    connections++;
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  return {
    server,
    scheme: transport === "h2" || transport === "https" ? "https" : "http",
    get connections() {
      return connections;
    },
    goaway(code) {
      for (const session of sessions) {
        session.goaway(code);
        session.close();
      }
    },
    closeAll() {
      for (const session of sessions) session.destroy();
      if ("closeAllConnections" in server) server.closeAllConnections();
    },
  };
}

/** The client went away, or the fake cut the answer. */
export function gone(res: FakeResponse): boolean {
  return "stream" in res ? (res as Http2ServerResponse).stream.destroyed : res.destroyed;
}

/**
 * The whole answer went out before the exchange closed. An HTTP/2 response reports itself finished
 * once its stream closes, a client's RST_STREAM too: there, the fake having ended it is what counts.
 */
export function answered(res: FakeResponse): boolean {
  return "stream" in res ? res.writableEnded : res.writableFinished;
}

/** Cuts the answer at the transport: a TCP reset (HTTP/1.1), or RST_STREAM of this stream alone (HTTP/2). */
export function cut(req: FakeRequest): void {
  if ("stream" in req) (req as Http2ServerRequest).stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  else req.socket.resetAndDestroy();
}

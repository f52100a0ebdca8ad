// The connection pool an HTTP provider calls through: HTTP/1.1 keep-alive (one connection per request
// in flight), or HTTP/2 when the provider sets `http2` (many streams to a connection, so thousands of
// open streams hold a few upstream descriptors, not one each). docs/operations.md#http2-upstreams.

import type { ClientHttp2Session } from "node:http2";
import { Agent, type buildConnector, Client, type Dispatcher, Pool } from "undici";
import type { ProviderConfig } from "../../config/providers.ts";

/** Connections idle this long are closed (HTTP/1.1; an HTTP/2 one lives until the server ends it). */
const KEEP_ALIVE_MS = 30_000;

export function upstreamDispatcher(provider: ProviderConfig): Dispatcher {
  const options = {
    connect: { timeout: provider.timeouts.connectMs },
    headersTimeout: provider.timeouts.firstByteMs,
    bodyTimeout: provider.timeouts.idleMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    // No cap on connections per upstream: a cap would queue streams behind one another.
  };
  if (!provider.http2) return new Agent(options);
  const { maxStreams } = provider.http2;
  const opening = new OpeningGate();
  const agent = new Agent({
    ...options,
    allowH2: true,
    // Prior knowledge: plain `http` has no ALPN to ask with, so h2c is spoken from the first byte.
    // (undici's Client takes `useH2c`; through an Agent it has to ride in `connect`, untyped there.)
    connect: {
      ...options.connect,
      useH2c: provider.baseUrl.startsWith("http:"),
    } as buildConnector.BuildOptions,
    factory: (origin, opts) =>
      new Pool(origin, {
        ...opts,
        factory: (o: URL, co: object) => opening.track(negotiatingClient(o, co, maxStreams, opening)),
      }),
  });
  // undici 7 lets a request that is not idempotent (every POST) onto a busy connection only when
  // told it may: without this each stream waits for the one before it on its HTTP/2 connection.
  // Nothing is replayed for it: a stream cut by a reset or GOAWAY fails (test/providers/http2.test.ts).
  return agent.compose(
    (dispatch) => (opts, handler) => opening.admit(() => dispatch({ ...opts, idempotent: true }, handler)),
  );
}

/**
 * One connection that carries `maxStreams` requests at once if the server took h2 (fewer if the
 * server allows fewer), and one at a time if ALPN left it at HTTP/1.1: pipelined requests there
 * would wait behind a whole stream.
 */
function negotiatingClient(origin: URL, options: object, maxStreams: number, opening: OpeningGate): Client {
  const connect = (options as { connect: buildConnector.connector }).connect;
  const client: Client = new Client(origin, {
    ...options,
    pipelining: 1,
    connect: (params, callback) => {
      opening.started();
      connect(params, (...result: Parameters<buildConnector.Callback>) => {
        const socket = result[1];
        callback(...result);
        const session =
          (socket as { alpnProtocol?: unknown } | null)?.alpnProtocol === "h2"
            ? sessionOf(socket!)
            : undefined;
        if (session) heedServerLimit(client, session, maxStreams, opening);
        else {
          if (socket && !result[0] && (socket as { alpnProtocol?: unknown }).alpnProtocol === "h2")
            client.pipelining = maxStreams;
          opening.ended(result[0] !== null);
        }
      });
    },
  });
  return client;
}

/**
 * The connection is open once the server's SETTINGS are in: undici 7 does not cap a connection's
 * streams at the server's SETTINGS_MAX_CONCURRENT_STREAMS, and streams sent past it before the
 * SETTINGS arrive are refused (after, Node holds them until others end, behind whole answers). So
 * the connection takes its first request alone, and the rest once the limit is known.
 */
function heedServerLimit(
  client: Client,
  session: ClientHttp2Session,
  maxStreams: number,
  opening: OpeningGate,
): void {
  let settled = false;
  const settle = (failed: boolean) => {
    if (settled) return;
    settled = true;
    opening.ended(failed);
  };
  session.on("remoteSettings", (settings) => {
    client.pipelining = Math.min(maxStreams, settings.maxConcurrentStreams ?? maxStreams);
    settle(false);
  });
  session.once("close", () => settle(true));
}

/**
 * The HTTP/2 session undici made on this socket. undici keeps it under a symbol of its own; if a
 * later undici moves it, connections take the configured limit without waiting for the server's
 * (test/providers/http2.test.ts then fails).
 */
function sessionOf(socket: object): ClientHttp2Session | undefined {
  const key = Object.getOwnPropertySymbols(socket).find((s) => s.description === "http2Session");
  return key && (socket as Record<symbol, ClientHttp2Session | undefined>)[key];
}

/**
 * undici's pool opens a new connection for every request that finds no connection with room, and
 * one still opening never has room: a burst of 200 streams at start would open 200 connections,
 * each kept by HTTP/2 until the server ends it. So while a connection is opening and none has room,
 * requests wait for it (a connect timeout at most); a failed connect lets them all through at once,
 * to fail as they would have.
 */
class OpeningGate {
  private opening = 0;
  private readonly clients = new Set<Client>();
  private waiting: (() => boolean)[] = [];

  track(client: Client): Client {
    this.clients.add(client);
    // The pool drops a client whose connect failed; one that lost its connection reconnects.
    client.once("connectionError", () => this.clients.delete(client));
    return client;
  }

  admit(dispatch: () => boolean): boolean {
    if (this.opening === 0 || this.hasRoom()) return dispatch();
    this.waiting.push(dispatch);
    return true;
  }

  started(): void {
    this.opening++;
  }

  ended(failed: boolean): void {
    this.opening--;
    // After the client's own 'drain' (a microtask away when its pipelining was just raised): till
    // then the pool counts it full and would open yet another connection for each request let in.
    queueMicrotask(() => this.release(failed));
  }

  private release(failed: boolean): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const dispatch of waiting) {
      if (failed) dispatch();
      else this.admit(dispatch);
    }
  }

  private hasRoom(): boolean {
    for (const client of this.clients) {
      const { connected, pending, size } = client.stats;
      if (connected && pending === 0 && size < client.pipelining) return true;
    }
    return false;
  }
}

// The connection pool an HTTP provider calls through: HTTP/1.1 keep-alive (one connection per request
// in flight), or HTTP/2 when the provider sets `http2` (many streams to a connection, so thousands of
// open streams hold a few upstream descriptors, not one each). docs/operations.md#http2-upstreams.

import type { ClientHttp2Session } from "node:http2";
import { Agent, buildConnector, Client, Dispatcher, errors } from "undici";
import type { ProviderConfig } from "../../config/providers.ts";

/** Connections idle this long are closed (HTTP/1.1; an HTTP/2 one lives until the server ends it). */
const KEEP_ALIVE_MS = 30_000;

export function upstreamDispatcher(provider: ProviderConfig): Dispatcher {
  const timeouts = {
    headersTimeout: provider.timeouts.firstByteMs,
    bodyTimeout: provider.timeouts.idleMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
  };
  if (provider.http2) return new Http2Pool(provider, timeouts, provider.http2.maxStreams);
  // No cap on connections per upstream: a cap would queue streams behind one another.
  return new Agent({ ...timeouts, connect: { timeout: provider.timeouts.connectMs } });
}

/**
 * The connections to one HTTP/2 upstream. undici's own Pool is not used: it picks a connection by a
 * "needs drain" flag that a burst of streams leaves stale (a full connection is then taken for free,
 * and the stream waits there behind whole answers), and it opens a connection for every request
 * that arrives while one is being opened. Here a request goes to the first connection with a free
 * stream; with none, it waits for the one being opened, or opens one.
 */
class Http2Pool extends Dispatcher {
  private readonly origin: string;
  private readonly connector: buildConnector.connector;
  private readonly clients: Client[] = [];
  /** Requests waiting for a connection being opened (a connect timeout at most). */
  private waiting: ((mayWait: boolean) => void)[] = [];
  private opening = 0;
  private closed = false;

  private readonly options: Client.Options;
  private readonly maxStreams: number;

  constructor(provider: ProviderConfig, options: Client.Options, maxStreams: number) {
    super();
    this.options = options;
    this.maxStreams = maxStreams;
    this.origin = new URL(provider.baseUrl).origin;
    this.connector = buildConnector({
      timeout: provider.timeouts.connectMs,
      allowH2: true,
      // Prior knowledge: plain `http` has no ALPN to ask with, so h2c is spoken from the first byte.
      useH2c: this.origin.startsWith("http:"),
    } as buildConnector.BuildOptions);
  }

  dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    if (this.closed) throw new errors.ClientClosedError();
    if (String(opts.origin) !== this.origin && new URL(String(opts.origin)).origin !== this.origin)
      throw new errors.InvalidArgumentError(`this pool calls ${this.origin} only`);
    this.route(opts, handler, true);
    return true;
  }

  private route(
    opts: Dispatcher.DispatchOptions,
    handler: Dispatcher.DispatchHandler,
    mayWait: boolean,
  ): void {
    const client = this.withRoom();
    if (!client && mayWait && this.opening > 0) {
      this.waiting.push((wait) => this.route(opts, handler, wait));
      return;
    }
    // undici 7 lets a request that is not idempotent (every POST) onto a busy connection only when
    // told it may: without this each stream waits for the one before it on its connection. Nothing
    // is replayed for it: a stream cut by a reset or GOAWAY fails (test/providers/http2.test.ts).
    (client ?? this.open()).dispatch({ ...opts, idempotent: true }, handler);
  }

  close(): Promise<void>;
  close(callback: () => void): void;
  close(callback?: () => void): Promise<void> | undefined {
    return this.all((client) => client.close(), callback);
  }

  destroy(): Promise<void>;
  destroy(err: Error | null): Promise<void>;
  destroy(callback: () => void): void;
  destroy(err: Error | null, callback: () => void): void;
  destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | undefined {
    const err = typeof a === "function" ? null : (a ?? null);
    return this.all((client) => client.destroy(err), typeof a === "function" ? a : b);
  }

  /** Closing or destroying: the waiting requests go to a connection first, to end with the others. */
  private all(each: (client: Client) => Promise<void>, callback?: () => void): Promise<void> | undefined {
    this.closed = true;
    this.release(false);
    const done = Promise.all(this.clients.map(each)).then(() => {});
    if (!callback) return done;
    done.then(callback, callback);
  }

  /** A connection with a free stream now (one whose streams all ended may reconnect). */
  private withRoom(): Client | undefined {
    for (const client of this.clients) {
      const { connected, pending, size } = client.stats;
      if (pending === 0 && (connected ? size < client.pipelining : size === 0)) return client;
    }
    return undefined;
  }

  /**
   * A new connection. It takes its first request alone, and more once the server has said how many
   * streams it allows: `maxStreams` or fewer if it took h2, one at a time if ALPN left it at
   * HTTP/1.1 (pipelined requests there would wait behind a whole stream).
   */
  private open(): Client {
    const client: Client = new Client(this.origin, {
      ...this.options,
      pipelining: 1,
      connect: (params, callback) => {
        this.opening++;
        client.pipelining = 1;
        this.connector(params, (...result: Parameters<buildConnector.Callback>) => {
          const [err, socket] = result;
          callback(...result);
          const h2 = (socket as { alpnProtocol?: unknown } | null)?.alpnProtocol === "h2";
          const session = h2 ? sessionOf(socket!) : undefined;
          if (session) this.heedServerLimit(client, session);
          else {
            if (h2) client.pipelining = this.maxStreams;
            this.opened(err !== null);
          }
        });
      },
    });
    // A failed connect has failed the requests it held; the next request opens a connection anew.
    client.on("connectionError", () => {
      const at = this.clients.indexOf(client);
      if (at !== -1) this.clients.splice(at, 1);
    });
    this.clients.push(client);
    return client;
  }

  /**
   * Streams past the server's SETTINGS_MAX_CONCURRENT_STREAMS are refused if sent before its SETTINGS
   * arrive, and held by Node until others end if sent after (undici 7 does not cap a connection's
   * streams at it): so the connection counts as open once they are in.
   */
  private heedServerLimit(client: Client, session: ClientHttp2Session): void {
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      this.opened(failed);
    };
    session.on("remoteSettings", (settings) => {
      client.pipelining = Math.min(this.maxStreams, settings.maxConcurrentStreams ?? this.maxStreams);
      settle(false);
    });
    session.once("close", () => settle(true));
  }

  private opened(failed: boolean): void {
    this.opening--;
    this.release(!failed);
  }

  /** The requests that waited go on; after a failed connect each tries its own, as over HTTP/1.1. */
  private release(mayWait: boolean): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const route of waiting) route(mayWait);
  }
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

// One POST to an upstream through undici's dispatch API, its body handed over as it arrives.
//
// undici's request() wraps every answer in a Readable stream, and reading one costs a stream, an
// async iterator and several microtasks per read (10–15 µs per request in a client timed alone,
// BENCHMARKS.md "Session 6"). Here the body's reads are queued as they
// come and given to one reader, whole (`text`) or read by read (`chunks`). What the Readable did
// for us is done here: the upstream is paused while a slow reader leaves a window of reads unread,
// and an aborted signal or an abandoned reader cancels the request.

import type { Readable } from "node:stream";
import { setImmediate as nextTurn } from "node:timers/promises";
import { type Dispatcher, errors } from "undici";
import type { IncomingHeaders } from "../../protocols/types.ts";

/** What is queued before the upstream is paused: a slow client's stream holds at most about this. */
const QUEUED_BYTES_MAX = 64 * 1024;

/**
 * The most a whole (non-streamed) answer may hold. Past it the request is cancelled and the caller
 * gets a 502 (transport-errors.ts): an upstream that keeps writing cannot fill the gateway's memory,
 * nor make a string longer than V8 allows (~512 MiB). Generated images are the largest honest
 * answers: a few base64 images fit many times over.
 */
export const WHOLE_ANSWER_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A request body larger than this is handed to undici as a one-read iterable. undici keeps a string
 * or Buffer body until the answer has ended (minutes, for a stream), so every open stream would hold
 * a copy of its prompt (agents send hundreds of KB); an iterable it lets go of once written.
 */
const KEPT_BODY_MAX = 16 * 1024;

/**
 * From this length a body is encoded a slice at a time, each slice in a turn of the event loop of its
 * own: encoding 30 MiB at once held the loop for 35–45 ms, and every other request waited
 * (BENCHMARKS.md, "Session 10: large bodies").
 */
const ENCODED_IN_TURNS_FROM = 1024 * 1024;
/** Characters encoded in one turn (1–3 MiB of UTF-8, about a millisecond). */
const ENCODE_SLICE = 1024 * 1024;

export interface PostOptions {
  origin: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  headersTimeout: number;
  /** WHOLE_ANSWER_MAX_BYTES unless given (tests). */
  wholeAnswerMaxBytes?: number;
}

/** The head of an answer, and its body to be read once. */
export interface UpstreamAnswer {
  statusCode: number;
  headers: IncomingHeaders;
  body: UpstreamBody;
}

export interface UpstreamBody {
  /** The whole body as UTF-8 text, or with `latin1` its bytes one per character (no decoding). */
  text(encoding?: "utf8" | "latin1"): Promise<string>;
  /** The body read by read; leaving the loop early cancels the request. */
  chunks(): AsyncIterableIterator<Buffer>;
}

/**
 * POSTs and resolves with the answer's head. A failure (undici's error, or the signal's reason),
 * before the head or while the body is read, is what `failure` makes of it.
 */
export function post(
  dispatcher: Dispatcher,
  opts: PostOptions,
  signal: AbortSignal,
  failure: (err: unknown) => unknown,
): Promise<UpstreamAnswer> {
  return new Promise((resolve, reject) => {
    const exchange = new Exchange(signal, failure, resolve, reject, opts.wholeAnswerMaxBytes);
    if (signal.aborted) return exchange.cancel(signal.reason);
    signal.addEventListener("abort", exchange, { once: true });
    const { body } = opts;
    if (body.length <= KEPT_BODY_MAX) dispatch(dispatcher, opts, body, exchange);
    else if (body.length < ENCODED_IN_TURNS_FROM) dispatch(dispatcher, opts, [Buffer.from(body)], exchange);
    else
      encodedInTurns(body, signal).then(
        (parts) => dispatch(dispatcher, opts, parts, exchange),
        (error) => exchange.cancel(error),
      );
  });
}

/** Hands the request to undici: a short body as it is, a longer one as Buffers it lets go of once written. */
function dispatch(
  dispatcher: Dispatcher,
  opts: PostOptions,
  body: string | Buffer[],
  exchange: Exchange,
): void {
  const parts = typeof body === "string" ? undefined : body;
  const length = parts?.reduce((sum, part) => sum + part.length, 0);
  try {
    dispatcher.dispatch(
      {
        origin: opts.origin,
        path: opts.path,
        method: "POST",
        headers: parts ? { ...opts.headers, "content-length": String(length) } : opts.headers,
        // (undici takes an iterable body, as its documentation says; its types omit it.)
        body: parts ? (sentOnce(parts) as unknown as Readable) : (body as string),
        headersTimeout: opts.headersTimeout,
      },
      exchange,
    );
  } catch (error) {
    // A dispatcher that refuses at once (a pool closed by a configuration reload) fails the
    // request the way a failed connection does, never as an error no one mapped.
    exchange.cancel(error);
  }
}

/** The body's reads, each let go of once taken. */
function* sentOnce(parts: Buffer[]): Generator<Buffer> {
  for (let part = parts.shift(); part; part = parts.shift()) yield part;
}

/**
 * A long body's UTF-8 bytes, a slice a turn (ENCODED_IN_TURNS_FROM). A slice never ends between the
 * two halves of a surrogate pair, which would each be encoded as U+FFFD. Stops with the signal's
 * reason once it is aborted.
 */
export async function encodedInTurns(
  text: string,
  signal: AbortSignal,
  slice = ENCODE_SLICE,
): Promise<Buffer[]> {
  const parts: Buffer[] = [];
  for (let from = 0; from < text.length; ) {
    if (from > 0) await nextTurn();
    if (signal.aborted) throw signal.reason;
    let to = Math.min(text.length, from + slice);
    if (isHighSurrogate(text.charCodeAt(to - 1)) && to < text.length) to++;
    parts.push(Buffer.from(text.slice(from, to)));
    from = to;
  }
  return parts;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The URL undici would refuse, refused the way it refuses one (a transport error). */
export function invalidUrl(): Error {
  return new errors.InvalidArgumentError("invalid upstream URL");
}

type Waiter = { resolve: (r: IteratorResult<Buffer>) => void; reject: (err: unknown) => void };

/**
 * The dispatch handler, the abort listener and the body in one object (one allocation per
 * request). Settles its head promise once; queues reads for a single reader.
 */
class Exchange implements Dispatcher.DispatchHandler, UpstreamBody, AsyncIterableIterator<Buffer> {
  private readonly signal: AbortSignal;
  private readonly failed: (err: unknown) => unknown;
  private headResolve: ((answer: UpstreamAnswer) => void) | undefined;
  private headReject: ((err: unknown) => void) | undefined;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: unknown;
  /** A reader waiting for the next read. */
  private waiter: Waiter | undefined;
  /** A reader waiting for the whole body. */
  private whole: { resolve: (text: string) => void; reject: (err: unknown) => void } | undefined;
  /** Read by read: a slow reader pauses the upstream (a whole body is wanted as fast as it comes). */
  private reading = false;
  private readonly wholeMaxBytes: number;
  /** How the whole body is made text (`text`'s argument). */
  private encoding: "utf8" | "latin1" = "utf8";

  constructor(
    signal: AbortSignal,
    failed: (err: unknown) => unknown,
    resolve: (a: UpstreamAnswer) => void,
    reject: (err: unknown) => void,
    wholeMaxBytes = WHOLE_ANSWER_MAX_BYTES,
  ) {
    this.wholeMaxBytes = wholeMaxBytes;
    this.signal = signal;
    this.failed = failed;
    this.headResolve = resolve;
    this.headReject = reject;
  }

  // ── the signal's listener ───────────────────────────────────────────────────────────────────

  handleEvent(): void {
    this.cancel(this.signal.reason);
  }

  /** Ends the exchange with this reason: the head's promise or the reader sees it. */
  cancel(reason: unknown): void {
    this.fail(reason);
    this.controller?.abort(toError(reason));
  }

  // ── undici's handler ─────────────────────────────────────────────────────────────────────────

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    // Aborted while the request waited for its connection.
    if (this.ended) controller.abort(new errors.RequestAbortedError());
  }

  onResponseStart(_: Dispatcher.DispatchController, statusCode: number, headers: IncomingHeaders): void {
    const resolve = this.headResolve;
    this.headResolve = this.headReject = undefined;
    resolve?.({ statusCode, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.ended) return;
    const waiter = this.waiter;
    if (waiter && this.queue.length === 0) {
      this.waiter = undefined;
      waiter.resolve({ value: chunk, done: false });
      return;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.reading) {
      if (this.queued > QUEUED_BYTES_MAX) controller.pause();
    } else if (this.queued > this.wholeMaxBytes) {
      this.cancel(new AnswerTooLarge(this.wholeMaxBytes));
      this.queue.length = 0;
      this.queued = 0;
    }
  }

  onResponseEnd(): void {
    this.finish(undefined);
  }

  onResponseError(_: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  // ── the body ─────────────────────────────────────────────────────────────────────────────────

  text(encoding: "utf8" | "latin1" = "utf8"): Promise<string> {
    this.encoding = encoding;
    if (this.ended)
      return this.failure !== undefined ? Promise.reject(this.failure) : Promise.resolve(this.joined());
    return new Promise((resolve, reject) => {
      this.whole = { resolve, reject };
    });
  }

  chunks(): AsyncIterableIterator<Buffer> {
    this.reading = true;
    return this;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<Buffer> {
    return this;
  }

  next(): Promise<IteratorResult<Buffer>> {
    const chunk = this.queue.shift();
    if (chunk !== undefined) {
      this.queued -= chunk.length;
      if (this.queue.length === 0 && this.controller?.paused) this.controller.resume();
      return Promise.resolve({ value: chunk, done: false });
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** The reader left before the end: the rest is not wanted, so the request is cancelled. */
  return(): Promise<IteratorResult<Buffer>> {
    if (!this.ended) this.cancel(new errors.RequestAbortedError());
    this.queue.length = 0;
    this.queued = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  private joined(): string {
    const text = joinText(this.queue, this.encoding);
    this.queue.length = 0;
    this.queued = 0;
    return text;
  }

  // ── endings ──────────────────────────────────────────────────────────────────────────────────

  private fail(reason: unknown): void {
    if (this.ended) return;
    this.failure = this.failed(reason ?? new errors.RequestAbortedError());
    const reject = this.headReject;
    this.headResolve = this.headReject = undefined;
    reject?.(this.failure);
    this.finish(this.failure);
  }

  private finish(failure: unknown): void {
    this.ended = true;
    this.signal.removeEventListener("abort", this);
    const whole = this.whole;
    this.whole = undefined;
    if (whole) {
      if (failure !== undefined) whole.reject(failure);
      else whole.resolve(this.joined());
    }
    const waiter = this.waiter;
    this.waiter = undefined;
    if (!waiter) return;
    if (failure !== undefined) waiter.reject(failure);
    else waiter.resolve({ value: undefined, done: true });
  }
}

/** A whole answer past its limit (WHOLE_ANSWER_MAX_BYTES); transport-errors.ts makes it a 502. */
export class AnswerTooLarge extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`the answer exceeded ${limitBytes} bytes`);
    this.name = "AnswerTooLarge";
    this.limitBytes = limitBytes;
  }
}

/** The reads queued so far as one text. */
function joinText(parts: Buffer[], encoding: "utf8" | "latin1"): string {
  return parts.length === 1 ? parts[0].toString(encoding) : Buffer.concat(parts).toString(encoding);
}

function toError(reason: unknown): Error {
  return reason instanceof Error ? reason : new errors.RequestAbortedError();
}

// Background runs (`background: true`, docs/responses.md §9): the request is answered at once with
// the response queued, and its generation runs on in this process, detached from the client's
// connection, into a Run that stands in for the client (a Responder). The stored response is its
// state for every process: polled with GET, cancelled with POST …/cancel (here, or by its status
// column, which the process running it watches). A streamed run's events are kept in order, here
// for the readers of this process and in the store for any other (run-events.ts), for
// GET …?stream=true&starting_after=N.

import { invalid } from "../ir/errors.ts";
import { RUNNING_STATUSES } from "../ledger/responses-types.ts";
import { isObject } from "../protocols/shared/validate.ts";
import type { WarningLogger } from "./logger.ts";
import type { HeaderMap, Responder } from "./responder.ts";
import type { ResponseMemory, Turn } from "./response-memory.ts";
import {
  type EventSink,
  eventsIn,
  followStored,
  type RunEvent,
  RunEventLog,
  type RunEventStore,
  utf8Of,
} from "./run-events.ts";
import { responseNotFound } from "./stored-responses.ts";

type Json = Record<string, unknown>;

/** How often a run asks the store whether another process cancelled it. */
const CANCEL_POLL_MS = 1_000;
/** How long a finished run's events stay in memory when the store did not take them all. */
const EVENTS_KEPT_MS = 10 * 60_000;

export class BackgroundRuns {
  private readonly memory: ResponseMemory;
  private readonly owner: string;
  private readonly log: WarningLogger;
  private readonly runs = new Map<string, Run>();
  private readonly events: RunEventStore;

  constructor(memory: ResponseMemory, owner: string, events: RunEventStore) {
    this.memory = memory;
    this.owner = owner;
    this.log = events.log;
    this.events = events;
  }

  /**
   * The queued response is stored (any process can poll it from now on) and, unless the run
   * streams to the client, answered; the returned Run is what the generation writes to.
   */
  async accept(
    turn: Turn,
    queued: Json,
    accountId: string,
    client: Responder,
    headers: HeaderMap,
    stream: boolean,
  ): Promise<Responder> {
    if (!turn.store)
      throw invalid("background", "needs `store: true`: a background response is polled from the store");
    await this.memory.save(turn, queued, accountId, this.owner);
    // In progress from here; the client, answered last, is told it was queued (as OpenAI says it).
    await this.memory.store.setStatus(String(queued.id), accountId, "in_progress", ["queued"]);
    const log = new RunEventLog(this.events, String(queued.id), accountId);
    const run = new Run(this, log, turn, queued, accountId, stream ? client : undefined);
    this.runs.set(run.id, run);
    if (!stream) client.json(200, headers, queued);
    return run;
  }

  /** A run of this process, until its events are all in the store. */
  running(id: string): Run | undefined {
    return this.runs.get(id);
  }

  /**
   * A streamed run's events after `after` to `sink`, then the rest as they come: from this
   * process's memory while it runs the response, else from the store.
   */
  follow(id: string, accountId: string, after: number, sink: EventSink): void {
    const run = this.runs.get(id);
    if (run) followRun(run, after, sink);
    else
      void followStored(this.events, { id, accountId, after }, sink, () =>
        this.memory.current(id, accountId),
      );
  }

  /** `POST /v1/responses/{id}/cancel`: the run aborted (the upstream call with it), recorded cancelled. */
  async cancel(id: string, accountId: string): Promise<Json> {
    const stored = await this.memory.read(id, accountId);
    if (!stored) throw responseNotFound(id);
    if (stored.response.background !== true)
      throw invalid("response_id", "only a background response can be cancelled");
    // Its events so far are stored first: a reader elsewhere ends once it reads the run cancelled.
    await this.runs.get(id)?.log.flush();
    if (!(await this.memory.store.setStatus(id, accountId, "cancelled", RUNNING_STATUSES)))
      return this.memory.current(id, accountId);
    const cancelled = { ...stored.response, status: "cancelled" };
    this.runs.get(id)?.cancel();
    await this.memory.replace(stored, cancelled, accountId, this.owner);
    return cancelled;
  }

  /**
   * Stores what the run ended with when the pipeline answered an error (the response failed), its
   * events written first (a reader elsewhere ends once it reads the response ended).
   */
  async failed(run: Run, body: unknown): Promise<void> {
    const error = isObject(body) && isObject(body.error) ? body.error : {};
    const response = {
      ...run.queued,
      status: "failed",
      error: {
        code: String(error.code ?? error.type ?? "server_error"),
        message: String(error.message ?? ""),
      },
    };
    await run.log.flush();
    return this.memory.save(run.turn, response, run.accountId, this.owner).catch((err: unknown) => {
      this.log.warn({ err, generationId: run.id }, "failed background response not written");
    });
  }

  /**
   * The process stops: the runs still going are aborted (their generations cancelled) and stored
   * failed now, rather than at the next start.
   */
  async close(): Promise<void> {
    const going = [...this.runs.values()].filter((run) => !run.done);
    for (const run of going) run.cancel();
    const stopped = { error: { code: "server_error", message: "The gateway stopped before it ended." } };
    await Promise.all(going.map((run) => this.failed(run, stopped)));
  }

  /** Whether another process set the run's status to cancelled. */
  async cancelledElsewhere(run: Run): Promise<boolean> {
    return (await this.memory.store.getResponse(run.id, run.accountId))?.status === "cancelled";
  }

  /** A run that ended leaves memory once the store holds its events (readers then read them there). */
  ended(run: Run): void {
    run.log.flush().then((written) => {
      if (written) this.runs.delete(run.id);
      else setTimeout(() => this.runs.delete(run.id), EVENTS_KEPT_MS).unref();
    });
  }
}

/** Writes a run's events after `after` to `sink`, following it until it ends or the client leaves. */
function followRun(run: Run, after: number, sink: EventSink): void {
  let next = run.events.findIndex((event) => event.sequence > after);
  if (next < 0) next = run.events.length;
  const flush = () => {
    for (; next < run.events.length; next++) sink.write(run.events[next]!.text);
    if (run.done) {
      stop();
      sink.end();
    }
  };
  const stop = run.follow(flush);
  sink.onClose(stop);
  flush();
}

/** The client's stand-in for a background generation. */
export class Run implements Responder {
  readonly id: string;
  readonly turn: Turn;
  readonly queued: Json;
  readonly accountId: string;
  readonly signal: AbortSignal;
  /** The events kept (RUN_EVENT_LIMITS), shown to this process's readers. */
  readonly events: RunEvent[] = [];
  readonly log: RunEventLog;
  done = false;
  /** A last event (completed, incomplete, failed) went by: its response was stored before it. */
  private ended = false;
  private readonly runs: BackgroundRuns;
  private readonly controller = new AbortController();
  private readonly listeners = new Set<() => void>();
  /** The client that started a streamed run, while it stays. */
  private client: Responder | undefined;
  private readonly watch: NodeJS.Timeout;
  /** The last piece's events: in the store before its response (`storeLast`), shown once it is written. */
  private held: RunEvent[] | undefined;

  constructor(
    runs: BackgroundRuns,
    log: RunEventLog,
    turn: Turn,
    queued: Json,
    accountId: string,
    client?: Responder,
  ) {
    this.runs = runs;
    this.log = log;
    this.id = String(queued.id);
    this.turn = turn;
    this.queued = queued;
    this.accountId = accountId;
    this.client = client;
    this.signal = this.controller.signal;
    this.watch = setInterval(() => {
      this.runs
        .cancelledElsewhere(this)
        .then((cancelled) => cancelled && this.cancel())
        .catch(() => {});
    }, CANCEL_POLL_MS);
    this.watch.unref();
  }

  cancel(): void {
    this.controller.abort();
    // The pipeline ends nothing once aborted: a client still following the stream is let go here.
    if (this.connected()) this.client?.end();
    this.finish();
  }

  json(status: number, headers: HeaderMap, body: unknown): void {
    if (status !== 200) this.runs.failed(this, body);
    if (this.connected()) this.client?.json(status, headers, body);
    this.finish();
  }

  jsonText(status: number, headers: HeaderMap, text: string): void {
    this.json(status, headers, JSON.parse(text));
  }

  startStream(status: number, headers: HeaderMap): void {
    if (this.connected()) this.client?.startStream(status, headers);
  }

  /**
   * The piece holding the stream's last event, before its response is stored: its events are
   * committed to the store first, so that a reader in another process that reads the response
   * ended has read every event (run-events.ts, followStored).
   */
  async storeLast(text: string): Promise<void> {
    this.held = this.log.take(eventsIn(text));
    await this.log.flush();
  }

  write(chunk: string | Buffer, latin1?: boolean): Promise<void> | undefined {
    const events = this.held ?? this.log.take(eventsIn(utf8Of(chunk, latin1)));
    this.held = undefined;
    this.events.push(...events);
    if (events.some((event) => event.last)) this.ended = true;
    this.notify();
    return this.connected() ? this.client?.write(chunk, latin1) : undefined;
  }

  end(): void {
    if (this.connected()) this.client?.end();
    // A stream cut before its last event: nothing stored its end, so the run would stay in progress.
    if (!this.ended)
      this.runs.failed(this, { error: { code: "server_error", message: "The stream ended early." } });
    this.finish();
  }

  /** Calls `listener` on every new event and at the end; returns how to stop. */
  follow(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private connected(): boolean {
    if (this.client?.signal.aborted) this.client = undefined;
    return this.client !== undefined;
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.client = undefined;
    clearInterval(this.watch);
    this.notify();
    this.runs.ended(this);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

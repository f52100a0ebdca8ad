// A streamed background run's events (docs/responses.md §9). The process running it keeps them in
// order for its own readers (background.ts) and writes them to the store in batches, sealed like
// stored content, so that `GET /v1/responses/{id}?stream=true&starting_after=N` is answered by any
// process, while the run goes on and after it ended: RunEventLog writes, followStored reads.

import { setImmediate as nextTurn } from "node:timers/promises";
import type { ContentSeal } from "../ledger/content-seal.ts";
import { type ResponseStore, RUNNING_STATUSES } from "../ledger/responses-types.ts";
import type { WarningLogger } from "./logger.ts";

type Json = Record<string, unknown>;

/** One SSE event of a streamed run, with its sequence number. */
export interface RunEvent {
  sequence: number;
  text: string;
  /** It ends the stream (completed, incomplete, failed): its whole response. */
  last?: true;
}

/** What one run keeps of its events, past which only its last event is kept (docs/responses.md §9). */
export const RUN_EVENT_LIMITS = { events: 100_000, bytes: 16 * 1024 * 1024 };
/** How long an event waits to be written with the next ones: the request path never waits for it. */
const FLUSH_MS = 200;
/** How often a reader in another process looks for more events. */
export const TAIL_POLL_MS = 500;
/**
 * Read in the event's data, where its type is whatever the upstream writes before it (OpenAI adds an
 * `event:` line saying the same; a relayed upstream may write data lines only, or spaces after its
 * colons). A member name cannot occur inside a string, whose quotes are escaped.
 */
const LAST_EVENT = /"type"\s*:\s*"response\.(completed|incomplete|failed)"/;
const SEQUENCE = /"sequence_number"\s*:\s*(\d+)/;

/** The event that ends a run's stream (its whole response, stored before it is shown). */
function isLastEvent(text: string): boolean {
  return LAST_EVENT.test(text);
}

/** A stream's chunk as text: a relay's pieces come as bytes or latin1 text. */
export function utf8Of(chunk: string | Buffer, latin1?: boolean): string {
  if (typeof chunk !== "string") return chunk.toString("utf8");
  return latin1 ? Buffer.from(chunk, "latin1").toString("utf8") : chunk;
}

/** The events of a chunk of a Responses stream, each with its `sequence_number`. */
export function eventsIn(text: string): RunEvent[] {
  const events: RunEvent[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const sequence = SEQUENCE.exec(event)?.[1];
    if (sequence === undefined) continue;
    const text = `${event}\n\n`;
    events.push(
      isLastEvent(text)
        ? { sequence: Number(sequence), text, last: true }
        : { sequence: Number(sequence), text },
    );
  }
  return events;
}

/** Where a run's events are written: the store, sealed, in batches. */
export interface RunEventStore {
  store: ResponseStore;
  seal: ContentSeal;
  log: WarningLogger;
}

/**
 * Takes a run's events within the limits and writes them in batches: on a short timer, and at once
 * when asked (`flush`: before the run's end is stored, so a reader that sees it ended has them all).
 * Batches go in order, one write at a time; one that fails is tried again, whole, at the next flush.
 */
export class RunEventLog {
  private readonly to: RunEventStore;
  private readonly id: string;
  private readonly accountId: string;
  private readonly limits: typeof RUN_EVENT_LIMITS;
  private count = 0;
  private bytes = 0;
  private pending: RunEvent[] = [];
  private readonly batches: RunEvent[][] = [];
  private writing: Promise<boolean> = Promise.resolve(true);
  private timer: NodeJS.Timeout | undefined;

  constructor(to: RunEventStore, id: string, accountId: string, limits = RUN_EVENT_LIMITS) {
    this.to = to;
    this.id = id;
    this.accountId = accountId;
    this.limits = limits;
  }

  /** The events kept (all until a limit is reached, then only the last), queued for the store. */
  take(events: RunEvent[]): RunEvent[] {
    const kept = events.filter((event) => this.keeps(event));
    if (kept.length === 0) return kept;
    this.pending.push(...kept);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
    return kept;
  }

  /** Writes what is queued; true once everything taken so far is committed. */
  flush(): Promise<boolean> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length > 0) this.batches.push(this.pending.splice(0));
    this.writing = this.writing.then(() => this.writeBatches());
    return this.writing;
  }

  private keeps(event: RunEvent): boolean {
    if (event.last) return true;
    const bytes = Buffer.byteLength(event.text);
    if (this.count >= this.limits.events || this.bytes + bytes > this.limits.bytes) return false;
    this.count++;
    this.bytes += bytes;
    return true;
  }

  private async writeBatches(): Promise<boolean> {
    for (let batch = this.batches[0]; batch; batch = this.batches[0]) {
      const content = this.to.seal.seal(JSON.stringify(batch.map((e) => [e.sequence, e.text])));
      const first = batch[0]!.sequence;
      const last = batch.at(-1)!.sequence;
      try {
        await this.to.store.appendEvents(this.id, this.accountId, { first, last, content });
      } catch (err) {
        this.to.log.warn({ err, generationId: this.id }, "background response events not written yet");
        return false;
      }
      this.batches.shift();
    }
    return true;
  }
}

/** Where a reader writes the events it follows. */
export interface EventSink {
  write(text: string): void;
  end(): void;
  onClose(listener: () => void): void;
}

/**
 * A reader of a run this process does not hold: the stored events after `after`, polled until the
 * response has ended. Its status is read before its events, and a run's events are committed before
 * its end is stored, so the read after an ended status holds every event there will be. The last
 * event is shown only once its response is stored (read-your-writes, as for the client that started
 * it). A run that ended without one (its process stopped or died, it was cancelled) ends the reader;
 * a failed one with a `response.failed` event holding the response as it stands (`current`).
 */
export async function followStored(
  from: RunEventStore,
  run: { id: string; accountId: string; after: number },
  sink: EventSink,
  current: () => Promise<Json>,
): Promise<void> {
  let closed = false;
  sink.onClose(() => {
    closed = true;
  });
  let last = run.after;
  try {
    while (!closed) {
      const row = await from.store.getResponse(run.id, run.accountId);
      const ended = !row || !RUNNING_STATUSES.some((status) => status === row.status);
      const batches = await from.store.eventsAfter(run.id, run.accountId, last);
      let held = false;
      for (const batch of batches) {
        // One batch opened per turn of the event loop: a reader from the start of a long run (up to
        // RUN_EVENT_LIMITS.bytes) must not hold the loop while it all is opened and parsed.
        if (batch !== batches[0]) await nextTurn();
        const events = JSON.parse(from.seal.open(batch.content)) as Array<[number, string]>;
        for (const [sequence, text] of events) {
          if (sequence <= last || closed) continue;
          if (isLastEvent(text) && !ended) {
            held = true;
            break;
          }
          sink.write(text);
          last = sequence;
          if (isLastEvent(text)) return sink.end();
        }
        if (held || closed) break;
      }
      if (ended) {
        if (row?.status === "failed" && !closed) sink.write(failedEvent(await current(), last + 1));
        return sink.end();
      }
      await new Promise((resolve) => setTimeout(resolve, TAIL_POLL_MS));
    }
  } catch (err) {
    from.log.warn({ err, generationId: run.id }, "background response events not read");
    sink.end();
  }
}

function failedEvent(response: Json, sequence: number): string {
  const event = { type: "response.failed", sequence_number: sequence, response };
  return `event: response.failed\ndata: ${JSON.stringify(event)}\n\n`;
}

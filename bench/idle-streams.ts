// Memory with many open streams: opens `count` streaming requests whose upstream sends a first
// chunk and then holds the stream open, waits until every client has its first chunk, reads the
// target's memory while all are open, then closes them.

import { readdirSync } from "node:fs";
import { Agent, request } from "node:http";
import type { LoadRequest, Target } from "./load.ts";
import { type Memory, memory } from "./proc-stats.ts";

export interface IdleStreamsResult {
  count: number;
  /** Streams whose first chunk arrived before the deadline. */
  opened: number;
  /** Streams answered with something else than a 200 or that failed. */
  failed: number;
  /** Time until the last stream got its first chunk (or the deadline). */
  openMs: number;
  before: Memory;
  whileOpen: Memory;
  afterClose: Memory;
  /** The target's open file descriptors while the streams are open (client and upstream sockets). */
  descriptors?: number;
  /** First failure seen, for the report. */
  firstFailure?: string;
}

/**
 * At most this many streams are being opened at once (sent, no first chunk yet): the next waits for
 * one of them. A gateway accepts only as fast as its host lets it, and a listen backlog (Node's is
 * 511) filled faster than that loses connections (ECONNRESET on a slow host, when the bench paced
 * itself by the clock); the figure measured is streams held open, not how fast they were opened.
 */
const OPENING = 200;

export async function holdStreams(
  target: Target,
  req: LoadRequest,
  opts: { count: number; deadlineMs: number },
): Promise<IdleStreamsResult> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const before = memory(target.pid);
  const started = performance.now();
  const clients: ReturnType<typeof request>[] = [];
  let opened = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  let allSettled!: () => void;
  const settled = new Promise<void>((resolve) => {
    allSettled = resolve;
  });
  /** Wakes the loop below waiting for a stream to settle (open, or fail). */
  let oneSettled: (() => void) | undefined;
  const settle = () => {
    oneSettled?.();
    if (opened + failed === opts.count) allSettled();
  };
  const fail = (why: string) => {
    failed++;
    firstFailure ??= why;
    settle();
  };
  const deadline = started + opts.deadlineMs;
  for (let i = 0; i < opts.count; i++) {
    while (i - opened - failed >= OPENING && performance.now() < deadline)
      await new Promise<void>((resolve) => {
        oneSettled = resolve;
        setTimeout(resolve, 100).unref();
      });
    const client = request(
      target.url + req.path,
      {
        method: "POST",
        agent,
        headers: { ...req.headers, "content-length": Buffer.byteLength(req.body) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let text = "";
          res.on("data", (d) => {
            text += d;
          });
          res.on("end", () => fail(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          return;
        }
        res.once("data", () => {
          opened++;
          settle();
        });
        res.on("error", () => {});
      },
    );
    client.on("error", (err) => fail(err.message));
    client.end(req.body);
    clients.push(client);
  }
  let timer: NodeJS.Timeout | undefined;
  const left = Math.max(0, deadline - performance.now());
  await Promise.race([settled, new Promise((r) => (timer = setTimeout(r, left)))]);
  clearTimeout(timer);
  const openMs = performance.now() - started;
  // Let the target finish what opening cost it (buffers, ledger writes) before reading its memory.
  await new Promise((r) => setTimeout(r, 500));
  const whileOpen = memory(target.pid);
  const descriptors = openDescriptors(target.pid);
  const closing = opened;
  for (const client of clients) {
    client.removeAllListeners("error");
    client.on("error", () => {});
    client.destroy();
  }
  agent.destroy();
  await new Promise((r) => setTimeout(r, 1000));
  return {
    count: opts.count,
    opened: closing,
    failed,
    openMs,
    before,
    whileOpen,
    afterClose: memory(target.pid),
    descriptors,
    firstFailure,
  };
}

function openDescriptors(pid: number): number | undefined {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return undefined;
  }
}

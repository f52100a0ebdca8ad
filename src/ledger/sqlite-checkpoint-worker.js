// The thread that checkpoints a SQLite ledger's write-ahead log (sqlite-checkpointer.ts): its own
// connection to the file, a PASSIVE checkpoint every interval. A passive checkpoint never waits for
// the gateway's writer, and its fsyncs happen here, not on the event loop.
//
// The log starts again from its beginning only at a write that finds every frame of it checkpointed.
// Under steady load the store commits while each checkpoint runs, so that may never happen and the
// log grows without end (200 MiB in 90 s at 9,000 requests a second). Once the log holds
// `resetFrames`, the thread asks the store to hold its next batch (`state[slot.pause]`), checkpoints with
// nothing of this process writing, and lets it go: the next commit then starts the log afresh. The
// store waits without holding the event loop (sqlite-checkpointer.ts, writesMayGo).
//
// Plain JavaScript on purpose: a thread that loads a .ts file starts Node's TypeScript stripper in
// an isolate of its own, about 20 MiB resident for these few lines (BENCHMARKS.md, "Session 8").

import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

/** How long the thread waits for the store to hold its writes: a store with none to write never answers. */
const ASK_WAIT_MS = 250;

/**
 * `state` is shared with the store; `slot` names its slots and `step` a pause's steps
 * (sqlite-checkpointer.ts).
 * @type {{ path: string; intervalMs: number; resetFrames: number; state: Int32Array;
 *   slot: { frames: number; pause: number }; step: { none: number; asked: number } }}
 */
const { path, intervalMs, resetFrames, state, slot, step } = workerData;
const db = new DatabaseSync(path);
// A checkpoint that finds the file locked (another process's, or a schema change) tries again at
// the next interval instead of waiting here.
db.exec("PRAGMA busy_timeout = 0");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");

/** Frames in the log after the last checkpoint. */
let lastLog = 0;

/**
 * Frames in the log after a passive checkpoint, or 0 when it could not run, or when nothing was
 * committed since the last one (which then copied it all: the next commit starts it afresh).
 */
function checkpointPassively() {
  try {
    // One row: busy, log (frames in the log), checkpointed (frames copied into the file).
    const row = checkpoint.get();
    Atomics.add(state, slot.frames, Number(row?.checkpointed ?? 0));
    const log = Number(row?.log ?? 0);
    const grown = log !== lastLog;
    lastLog = log;
    return grown ? log : 0;
  } catch {
    // SQLITE_BUSY and its kin: the next interval tries again.
    return 0;
  }
}

function checkpointNow() {
  if (checkpointPassively() < resetFrames) return;
  Atomics.store(state, slot.pause, step.asked);
  Atomics.wait(state, slot.pause, step.asked, ASK_WAIT_MS);
  try {
    checkpointPassively();
  } finally {
    Atomics.store(state, slot.pause, step.none);
    Atomics.notify(state, slot.pause);
  }
}

const timer = setInterval(checkpointNow, intervalMs);
parentPort?.on("message", (message) => {
  if (message?.kind !== "stop") return;
  clearInterval(timer);
  checkpointPassively();
  db.close();
  parentPort?.close();
});

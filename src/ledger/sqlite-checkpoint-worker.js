// The thread that checkpoints a SQLite ledger's write-ahead log (sqlite-checkpointer.ts): its own
// connection to the file, a PASSIVE checkpoint every interval. A passive checkpoint never waits for
// the gateway's writer, and its fsyncs happen here, not on the event loop.
//
// Plain JavaScript on purpose: a thread that loads a .ts file starts Node's TypeScript stripper in
// an isolate of its own, about 20 MiB resident for these few lines (BENCHMARKS.md, "Session 8").

import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

/** @type {{ path: string; intervalMs: number; frames: Int32Array }} */
const { path, intervalMs, frames } = workerData;
const db = new DatabaseSync(path);
// A checkpoint that finds the file locked (another process's, or a schema change) tries again at
// the next interval instead of waiting here.
db.exec("PRAGMA busy_timeout = 0");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");

function checkpointNow() {
  try {
    // One row: busy, log (frames in the log), checkpointed (frames copied into the file).
    const row = checkpoint.get();
    Atomics.add(frames, 0, Number(row?.checkpointed ?? 0));
  } catch {
    // SQLITE_BUSY and its kin: the next interval tries again.
  }
}

const timer = setInterval(checkpointNow, intervalMs);
parentPort?.on("message", (message) => {
  if (message?.kind !== "stop") return;
  clearInterval(timer);
  checkpointNow();
  db.close();
  parentPort?.close();
});

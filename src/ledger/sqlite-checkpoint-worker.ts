// The thread that checkpoints a SQLite ledger's write-ahead log (sqlite-checkpointer.ts): its own
// connection to the file, a PASSIVE checkpoint every interval. A passive checkpoint never waits for
// the gateway's writer, and its fsyncs happen here, not on the event loop.

import { DatabaseSync } from "node:sqlite";
import { parentPort, workerData } from "node:worker_threads";

const { path, intervalMs, frames } = workerData as { path: string; intervalMs: number; frames: Int32Array };
const db = new DatabaseSync(path);
// A checkpoint that finds the file locked (another process's, or a schema change) tries again at
// the next interval instead of waiting here.
db.exec("PRAGMA busy_timeout = 0");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");

function checkpointNow(): void {
  try {
    const row = checkpoint.get() as { busy: number; log: number; checkpointed: number } | undefined;
    Atomics.add(frames, 0, row?.checkpointed ?? 0);
  } catch {
    // SQLITE_BUSY and its kin: the next interval tries again.
  }
}

const timer = setInterval(checkpointNow, intervalMs);
parentPort?.on("message", (message: { kind: string }) => {
  if (message.kind !== "stop") return;
  clearInterval(timer);
  checkpointNow();
  db.close();
  parentPort?.close();
});

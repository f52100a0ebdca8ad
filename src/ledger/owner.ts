// Who started a generation. Each gateway process (each worker of `serve --workers N`) writes under
// an owner id of its own, so that the pending generations of a process that died can be told from
// those of the processes still serving them: the cluster primary marks a dead worker's generations
// interrupted by its owner id, and gateways sharing one PostgreSQL mark those of a gateway whose
// lease ran out (src/cli/lease.ts).

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * `host/pid/random`: unique across restarts (pids are reused) and readable by an operator who wants
 * to know which process a pending row belongs to.
 */
export function newOwnerId(pid: number = process.pid): string {
  return `${hostname()}/${pid}/${randomBytes(4).toString("hex")}`;
}

/** The pid in an owner id made by newOwnerId, or undefined. */
export function ownerPid(owner: string): number | undefined {
  const m = /\/(\d+)\/[0-9a-f]+$/.exec(owner);
  return m ? Number(m[1]) : undefined;
}

import { randomFillSync } from "node:crypto";

// Random bytes are drawn from a pool refilled 256 ids at a time: one call into the CSPRNG per
// 256 requests instead of one per request.
const ID_BYTES = 12;
const pool = Buffer.alloc(ID_BYTES * 256);
let offset = pool.length;

function randomPart(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += ID_BYTES;
  return pool.toString("base64url", offset - ID_BYTES, offset);
}

/**
 * A generation id: `gen-` + 9 base-36 digits of the millisecond clock (so ids sort by time) + 16
 * random base64url characters (96 bits: unguessable).
 */
export function newGenerationId(now = Date.now()): string {
  return `gen-${now.toString(36).padStart(9, "0")}${randomPart()}`;
}

/** When a generation id was made (its clock digits), or undefined for a string that is not one. */
export function generationIdTime(id: string): number | undefined {
  if (!/^gen-[0-9a-z]{9}[A-Za-z0-9_-]{16}$/.test(id)) return undefined;
  return Number.parseInt(id.slice(4, 13), 36);
}

/**
 * The smallest id a generation made at `ms` can have: every id made before `ms` sorts below it, every
 * id made at or after it sorts at or above it (the stores compare ids bytewise).
 */
export function generationIdBound(ms: number): string {
  return `gen-${Math.max(0, Math.floor(ms)).toString(36).padStart(9, "0")}`;
}

import { randomFillSync } from "node:crypto";

// Random bytes are drawn from a pool refilled 256 ids at a time: one call into the CSPRNG per
// 256 requests instead of one per request. The pool is written out in base64url once per refill:
// 12 bytes are exactly 16 characters, so each id's slice of it is what its own 12 bytes encode to.
const ID_BYTES = 12;
const ID_CHARS = 16;
const pool = Buffer.alloc(ID_BYTES * 256);
let encoded = "";
let offset = encoded.length;

function randomPart(): string {
  if (offset === encoded.length) {
    randomFillSync(pool);
    encoded = pool.toString("base64url");
    offset = 0;
  }
  offset += ID_CHARS;
  return encoded.slice(offset - ID_CHARS, offset);
}

/** The clock digits of the last millisecond an id was made in (most requests share one with another). */
let lastMs = -1;
let lastClock = "";

function clockDigits(now: number): string {
  if (now !== lastMs) {
    lastMs = now;
    lastClock = now.toString(36).padStart(9, "0");
  }
  return lastClock;
}

/**
 * A generation id: `gen-` + 9 base-36 digits of the millisecond clock (so ids sort by time) + 16
 * random base64url characters (96 bits: unguessable).
 */
export function newGenerationId(now = Date.now()): string {
  return `gen-${clockDigits(now)}${randomPart()}`;
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

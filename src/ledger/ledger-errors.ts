// The failures both stores report, worded once so that SQLite and PostgreSQL say the same thing.

import { GatewayError } from "../ir/errors.ts";

export function accountNotFound(id: string): GatewayError {
  return new GatewayError("not_found", `account ${id} does not exist`);
}

export function generationNotFound(id: string): GatewayError {
  return new GatewayError("not_found", `generation ${id} does not exist`);
}

export function generationStillPending(id: string): Error {
  return new Error(`generation ${id} cannot be settled while pending`);
}

/**
 * A generation write that found its row already there (a start) or already finished (a finish). When
 * the write is a retry of a batch whose COMMIT may have landed before the connection broke, that is
 * the first attempt's own work: the write queue counts it as applied.
 */
export class GenerationWriteConflict extends Error {}

export function generationAlreadyStarted(id: string): Error {
  return new GenerationWriteConflict(`generation ${id} was already started`);
}

export function generationNotFinishable(id: string): Error {
  return new GenerationWriteConflict(`generation ${id} is unknown or already finished`);
}

export function duplicateKey(id: string): Error {
  return new Error(`key ${id} already exists (same id or same key hash)`);
}

export function ambiguousKeyPrefix(prefix: string, count: number): Error {
  return new Error(`${count} live keys start with ${prefix}: revoke by key id instead`);
}

/**
 * The store cannot be reached or cannot take a write right now (PostgreSQL down or restarting, its
 * connections exhausted; SQLite locked or its disk full). A 503 to the client, in its protocol; the
 * generation write queue and settlement keep their work and try again. See docs/operations.md.
 */
export class StoreUnavailable extends GatewayError {
  constructor(cause?: unknown, message = "The gateway's store is unavailable; try again in a moment.") {
    super("overloaded", message, { retryAfter: 1 });
    this.name = "StoreUnavailable";
    if (cause !== undefined) this.cause = cause;
  }
}

export function isStoreUnavailable(error: unknown): error is StoreUnavailable {
  return error instanceof StoreUnavailable;
}

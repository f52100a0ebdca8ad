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

export function generationAlreadyStarted(id: string): Error {
  return new Error(`generation ${id} was already started`);
}

export function generationNotFinishable(id: string): Error {
  return new Error(`generation ${id} is unknown or already finished`);
}

export function duplicateKey(id: string): Error {
  return new Error(`key ${id} already exists (same id or same key hash)`);
}

export function ambiguousKeyPrefix(prefix: string, count: number): Error {
  return new Error(`${count} live keys start with ${prefix}: revoke by key id instead`);
}

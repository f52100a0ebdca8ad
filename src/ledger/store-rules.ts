// Settlement and key revocation, written once for both stores. A rule is a generator: it yields the
// next statement it needs (a step) and is handed back that statement's result. Each store runs the
// steps inside its own transaction: SQLite with runSteps, synchronously, so that no other JavaScript
// runs between BEGIN and COMMIT (its atomicity rests on that); PostgreSQL with runStepsAsync, awaiting
// each statement, reads locking their rows (FOR UPDATE). Only the SQL of a step differs per store.

import type { Decimal } from "../billing/money.ts";
import { DebitsByAccount } from "./debits.ts";
import { ambiguousKeyPrefix, generationNotFound, generationStillPending } from "./ledger-errors.ts";
import { RollupBatch, type RollupSource } from "./rollups.ts";
import type { Rating, SettlementItem, SpendDecision, SpendReservation } from "./types.ts";

/** A generation as settlement reads it, under a row lock where the store has them. */
export interface SettlingGeneration {
  status: string;
  settled: boolean;
  source: RollupSource;
}

export type SettlementStep =
  /** → SettlingGeneration, or undefined when there is no such generation. */
  | { op: "readGeneration"; id: string }
  /** → nothing. */
  | { op: "markSettled"; id: string; rating: Rating; settledAt: number }
  /** balance + amount, exactly (may go below zero); → nothing. */
  | { op: "addToBalance"; account: string; amount: string }
  /** → nothing. */
  | { op: "applyRollups"; rollups: RollupBatch };

/**
 * Stores each rating and debits each account once for the batch (`debits[n]` is item n's). A
 * generation settled already is left alone (perhaps settled by another process: never debit twice);
 * one not found or still pending fails alone.
 */
export function* settlement(
  items: SettlementItem[],
  debits: Decimal[],
): Generator<SettlementStep, Array<Error | undefined>, unknown> {
  const perAccount = new DebitsByAccount();
  const rollups = new RollupBatch();
  const outcomes: Array<Error | undefined> = [];
  for (const [n, item] of items.entries()) {
    const row = (yield { op: "readGeneration", id: item.id }) as SettlingGeneration | undefined;
    if (!row) outcomes.push(generationNotFound(item.id));
    else if (row.settled) outcomes.push(undefined);
    else if (row.status === "pending") outcomes.push(generationStillPending(item.id));
    else {
      yield { op: "markSettled", id: item.id, rating: item.rating, settledAt: item.settledAt };
      perAccount.add(row.source.accountId, debits[n]!);
      rollups.settled(row.source, item.rating.billAmount);
      outcomes.push(undefined);
    }
  }
  for (const [account, amount] of perAccount.balanceChanges()) yield { op: "addToBalance", account, amount };
  yield { op: "applyRollups", rollups };
  return outcomes;
}

export type RevocationStep =
  /** → `{revoked: boolean}` for the key with this id, or undefined when there is none. */
  | { op: "readKey"; id: string }
  /** → the ids of the live (unrevoked) keys with this display prefix. */
  | { op: "liveKeysWithPrefix"; prefix: string }
  /** → nothing. */
  | { op: "revoke"; id: string; at: number };

/** Revokes the key with this id, or else the one live key with this display prefix. */
export function* revocation(idOrPrefix: string, now: number): Generator<RevocationStep, boolean, unknown> {
  const byId = (yield { op: "readKey", id: idOrPrefix }) as { revoked: boolean } | undefined;
  if (byId) {
    if (byId.revoked) return false;
    yield { op: "revoke", id: idOrPrefix, at: now };
    return true;
  }
  const live = (yield { op: "liveKeysWithPrefix", prefix: idOrPrefix }) as string[];
  if (live.length > 1) throw ambiguousKeyPrefix(idOrPrefix, live.length);
  if (live.length === 0) return false;
  yield { op: "revoke", id: live[0]!, at: now };
  return true;
}

/** Runs a rule's steps one after another, synchronously (SQLite: nothing else runs meanwhile). */
export function runSteps<S, R>(rule: Generator<S, R, unknown>, run: (step: S) => unknown): R {
  let next = rule.next();
  while (!next.done) {
    const result = run(next.value);
    // An awaited step would let other work run inside the transaction: refuse it outright.
    if (result instanceof Promise) throw new TypeError("a synchronous store ran a step asynchronously");
    next = rule.next(result);
  }
  return next.value;
}

/** Runs a rule's steps one after another, awaiting each (PostgreSQL). */
export async function runStepsAsync<S, R>(
  rule: Generator<S, R, unknown>,
  run: (step: S) => Promise<unknown>,
): Promise<R> {
  let next = rule.next();
  while (!next.done) next = rule.next(await run(next.value));
  return next.value;
}

/**
 * The reservation rule (src/limits/spend-reservations.ts), given what each limit's other holds sum
 * to: each limit named must have room for the amount, or for at least its minimum (then what is
 * left is held). (Redis's script says it again.)
 */
export function spendDecision(r: SpendReservation, held: { key: number; account: number }): SpendDecision {
  const minimum = Math.min(r.minimum ?? r.amount, r.amount);
  let take = r.amount;
  const limits = [
    ["budget", r.keyId !== undefined ? r.keyRoom : undefined, held.key],
    ["credit", r.accountId !== undefined ? r.accountRoom : undefined, held.account],
  ] as const;
  for (const [name, room, others] of limits) {
    if (room === undefined) continue;
    const left = room - others;
    if (left < minimum) return { refused: name, left };
    take = Math.min(take, left);
  }
  return { held: take };
}

/**
 * Settled holds are summed per key and per account in buckets of this width, by when they settled:
 * a request then sums a handful of buckets, not one row per generation settled in the last seconds.
 * A bucket keeps when its last settlement was made, and counts for a reading taken before then (it
 * may hold a settlement the reading lacks; the others in it are then counted twice, which errs safe).
 */
export const SETTLED_BUCKET_MS = 250;

/** The bucket a settlement made at `settledAt` (epoch ms) adds to. */
export function settledBucket(settledAt: number): number {
  return settledAt - (settledAt % SETTLED_BUCKET_MS);
}

/** The scopes of a hold's settled buckets: its key's and its account's, where it counts. */
export function settledScopes(h: { keyId?: string; accountId?: string }): string[] {
  const scopes: string[] = [];
  if (h.keyId !== undefined) scopes.push(settledScope("key_id", h.keyId));
  if (h.accountId !== undefined) scopes.push(settledScope("account_id", h.accountId));
  return scopes;
}

/** The scope of a key's or an account's settled buckets. */
export function settledScope(column: "key_id" | "account_id", id: string): string {
  return `${column === "key_id" ? "key" : "account"}:${id}`;
}

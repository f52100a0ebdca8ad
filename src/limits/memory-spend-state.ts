// Spend reservations in this process's memory: the whole truth for a gateway whose store no other
// process writes to, and where holds are taken while the shared states fail (spend-reservations.ts).
// Each process then holds only its own requests, so the service may pass a limit by what the other
// processes admit meanwhile, but no request fails or waits because a store is away. The rule is
// store-rules.ts spendDecision, and settled spend is bucketed as in the stores.

import {
  SETTLED_BUCKET_MS,
  settledBucket,
  settledScope,
  settledScopes,
  spendDecision,
} from "../ledger/store-rules.ts";
import type { HeldSpend, SpendDecision, SpendHold, SpendReservation, SpendState } from "../ledger/types.ts";

/**
 * A key's or an account's holds: requests in flight by id, with their running sum (so that a request
 * does not add up every other in flight; expired ones are swept at most once a SWEEP_MS), and
 * settled spend by bucket (a handful).
 */
interface Scope {
  inFlight: Map<string, { amount: number; expiresAt: number }>;
  reserved: number;
  sweptAt: number;
  settled: Map<number, { amount: number; expiresAt: number; lastAt: number }>;
}

const SWEEP_MS = 1_000;

export class MemorySpendState implements SpendState {
  private readonly scopes = new Map<string, Scope>();

  async reserveSpend(r: SpendReservation): Promise<SpendDecision> {
    const now = Date.now();
    // Scopes with nothing live are dropped once many have gathered (keys and accounts come and go).
    if (this.scopes.size > 10_000) this.prune(now);
    const key = r.keyId === undefined ? undefined : this.scope(settledScope("key_id", r.keyId));
    const account =
      r.accountId === undefined ? undefined : this.scope(settledScope("account_id", r.accountId));
    const decision = spendDecision(r, {
      key: key ? total(key, now, r.keyReadAt ?? 0) : 0,
      account: account ? total(account, now, r.accountReadAt ?? 0) : 0,
    });
    if (decision.refused) return decision;
    for (const scope of [key, account]) if (scope) addInFlight(scope, r.id, decision.held, now + r.ttlMs);
    return decision;
  }

  async settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void> {
    const bucket = settledBucket(settledAt);
    const expiresAt = bucket + SETTLED_BUCKET_MS + holdMs;
    for (const name of settledScopes(h)) {
      const scope = this.scope(name);
      dropInFlight(scope, h.id);
      const held = scope.settled.get(bucket);
      if (held) {
        held.amount += amount;
        held.expiresAt = Math.max(held.expiresAt, expiresAt);
        held.lastAt = Math.max(held.lastAt, settledAt);
      } else scope.settled.set(bucket, { amount, expiresAt, lastAt: settledAt });
    }
  }

  async releaseSpend(h: SpendHold): Promise<void> {
    for (const name of settledScopes(h)) {
      const scope = this.scopes.get(name);
      if (scope) dropInFlight(scope, h.id);
    }
  }

  async renewSpend(holds: SpendHold[], ttlMs: number): Promise<void> {
    const expiresAt = Date.now() + ttlMs;
    for (const h of holds)
      for (const name of settledScopes(h)) {
        const held = this.scopes.get(name)?.inFlight.get(h.id);
        if (held) held.expiresAt = expiresAt;
      }
  }

  async heldSpend(on: { keyId: string } | { accountId: string }): Promise<HeldSpend> {
    const name = "keyId" in on ? settledScope("key_id", on.keyId) : settledScope("account_id", on.accountId);
    const scope = this.scopes.get(name);
    if (!scope) return { reserved: 0, settling: 0 };
    const now = Date.now();
    return {
      reserved: reservedNow(scope, now),
      settling: live(scope.settled, now, () => true),
    };
  }

  private scope(name: string): Scope {
    let scope = this.scopes.get(name);
    if (!scope) {
      scope = { inFlight: new Map(), reserved: 0, sweptAt: 0, settled: new Map() };
      this.scopes.set(name, scope);
    }
    return scope;
  }

  private prune(now: number): void {
    for (const [name, scope] of this.scopes)
      if (reservedNow(scope, now) + live(scope.settled, now, () => true) === 0) this.scopes.delete(name);
  }
}

/** What a scope holds for a reading taken at `readAt`: in flight, and the buckets settled into since. */
function total(scope: Scope, now: number, readAt: number): number {
  return reservedNow(scope, now) + live(scope.settled, now, (held) => held.lastAt >= readAt);
}

function addInFlight(scope: Scope, id: string, amount: number, expiresAt: number): void {
  dropInFlight(scope, id);
  scope.inFlight.set(id, { amount, expiresAt });
  scope.reserved += amount;
}

function dropInFlight(scope: Scope, id: string): void {
  const held = scope.inFlight.get(id);
  if (!held) return;
  scope.inFlight.delete(id);
  scope.reserved -= held.amount;
}

/** The sum in flight, expired holds swept first when it is time. */
function reservedNow(scope: Scope, now: number): number {
  if (now - scope.sweptAt >= SWEEP_MS) {
    scope.sweptAt = now;
    for (const [id, held] of scope.inFlight) if (held.expiresAt <= now) dropInFlight(scope, id);
  }
  return scope.reserved;
}

/** The sum of the live entries `counts` picks; expired ones are deleted. */
function live<H extends { amount: number; expiresAt: number }>(
  entries: Map<unknown, H>,
  now: number,
  counts: (held: H) => boolean,
): number {
  let sum = 0;
  for (const [k, held] of entries) {
    if (held.expiresAt <= now) entries.delete(k);
    else if (counts(held)) sum += held.amount;
  }
  return sum;
}

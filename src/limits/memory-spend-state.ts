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

/** A key's or an account's holds: requests in flight by id, settled spend by bucket. */
interface Scope {
  inFlight: Map<string, { amount: number; expiresAt: number }>;
  settled: Map<number, { amount: number; expiresAt: number; lastAt: number }>;
}

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
    for (const scope of [key, account])
      scope?.inFlight.set(r.id, { amount: decision.held, expiresAt: now + r.ttlMs });
    return decision;
  }

  async settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void> {
    const bucket = settledBucket(settledAt);
    const expiresAt = bucket + SETTLED_BUCKET_MS + holdMs;
    for (const name of settledScopes(h)) {
      const scope = this.scope(name);
      scope.inFlight.delete(h.id);
      const held = scope.settled.get(bucket);
      if (held) {
        held.amount += amount;
        held.expiresAt = Math.max(held.expiresAt, expiresAt);
        held.lastAt = Math.max(held.lastAt, settledAt);
      } else scope.settled.set(bucket, { amount, expiresAt, lastAt: settledAt });
    }
  }

  async releaseSpend(h: SpendHold): Promise<void> {
    for (const name of settledScopes(h)) this.scopes.get(name)?.inFlight.delete(h.id);
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
      reserved: live(scope.inFlight, now, () => true),
      settling: live(scope.settled, now, () => true),
    };
  }

  private scope(name: string): Scope {
    let scope = this.scopes.get(name);
    if (!scope) {
      scope = { inFlight: new Map(), settled: new Map() };
      this.scopes.set(name, scope);
    }
    return scope;
  }

  private prune(now: number): void {
    for (const [name, scope] of this.scopes)
      if (live(scope.inFlight, now, () => true) + live(scope.settled, now, () => true) === 0)
        this.scopes.delete(name);
  }
}

/** What a scope holds for a reading taken at `readAt`: in flight, and the buckets settled into since. */
function total(scope: Scope, now: number, readAt: number): number {
  return live(scope.inFlight, now, () => true) + live(scope.settled, now, (held) => held.lastAt >= readAt);
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

// Spend reservations in this process's memory: where they are held while both the shared state and
// the ledger store fail (spend-reservations.ts). Each process then holds only its own requests, so
// the service may pass a limit by what the other processes admit meanwhile, but no request fails or
// waits because the store is away. The rule is store-rules.ts spendDecision, as in the stores.

import { spendDecision } from "../ledger/store-rules.ts";
import type { HeldSpend, SpendDecision, SpendHold, SpendReservation, SpendState } from "../ledger/types.ts";

interface Held {
  keyId?: string;
  accountId?: string;
  amount: number;
  settledAt?: number;
  expiresAt: number;
}

export class MemorySpendState implements SpendState {
  private readonly holds = new Map<string, Held>();

  async reserveSpend(r: SpendReservation): Promise<SpendDecision> {
    const now = Date.now();
    const decision = spendDecision(r, {
      key: r.keyId === undefined ? 0 : this.sum((h) => h.keyId === r.keyId, now, r.keyReadAt).total,
      account:
        r.accountId === undefined
          ? 0
          : this.sum((h) => h.accountId === r.accountId, now, r.accountReadAt).total,
    });
    if (decision.refused) return decision;
    this.holds.set(r.id, {
      keyId: r.keyId,
      accountId: r.accountId,
      amount: decision.held,
      expiresAt: now + r.ttlMs,
    });
    return decision;
  }

  async settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void> {
    const held = this.holds.get(h.id);
    if (held) Object.assign(held, { amount, settledAt, expiresAt: Date.now() + holdMs });
  }

  async releaseSpend(h: SpendHold): Promise<void> {
    this.holds.delete(h.id);
  }

  async renewSpend(holds: SpendHold[], ttlMs: number): Promise<void> {
    for (const h of holds) {
      const held = this.holds.get(h.id);
      if (held && held.settledAt === undefined) held.expiresAt = Date.now() + ttlMs;
    }
  }

  async heldSpend(on: { keyId: string } | { accountId: string }): Promise<HeldSpend> {
    const mine =
      "keyId" in on ? (h: Held) => h.keyId === on.keyId : (h: Held) => h.accountId === on.accountId;
    const { reserved, settling } = this.sum(mine, Date.now(), 0);
    return { reserved, settling };
  }

  /** The live holds that `mine` picks, but those settled before `readAt`; expired ones are dropped. */
  private sum(mine: (h: Held) => boolean, now: number, readAt = 0) {
    const sums = { reserved: 0, settling: 0, total: 0 };
    for (const [id, h] of this.holds) {
      if (h.expiresAt <= now) this.holds.delete(id);
      else if (!mine(h)) continue;
      else if (h.settledAt === undefined) sums.reserved += h.amount;
      else if (h.settledAt >= readAt) sums.settling += h.amount;
    }
    sums.total = sums.reserved + sums.settling;
    return sums;
  }
}

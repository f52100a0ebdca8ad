// The one debit aggregator: what settlement takes from balances, summed per account exactly and
// written out in a fixed order. Used by the immediate settlement (a finish that settles, in its write
// batch: sqlite-batch.ts, postgres-store.ts) and the delayed one (store-rules.ts `settlement`).

import { type Decimal, formatDecimal, parseDecimal, ZERO } from "../billing/money.ts";
import type { SettlementItem } from "./types.ts";

/**
 * The amount a settlement debits (the rating's `usage` unless given). Parsed before any transaction
 * is opened, so a malformed amount fails its request alone (a 400 naming the field).
 */
export function debitOf(item: Pick<SettlementItem, "rating" | "debit">): Decimal {
  return item.debit === undefined
    ? parseDecimal(item.rating.usage, "rating.usage")
    : parseDecimal(item.debit, "debit");
}

/** Debits summed per account: each amount parsed once, each account's total written out once. */
export class DebitsByAccount {
  private readonly totals = new Map<string, Decimal>();

  add(accountId: string, debit: Decimal): void {
    this.totals.set(accountId, (this.totals.get(accountId) ?? ZERO).plus(debit));
  }

  /** Each account once, in a fixed order (concurrent batches cannot deadlock), with what to add to its balance. */
  *balanceChanges(): Iterable<[accountId: string, amount: string]> {
    for (const accountId of [...this.totals.keys()].sort())
      yield [accountId, formatDecimal(this.totals.get(accountId)!.neg())];
  }
}

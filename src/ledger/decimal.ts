// Balances and amounts travel through the store as exact decimal strings in one canonical form.
// The arithmetic is billing's exact money (src/billing/money.ts); this file only adapts it to text.

import {
  type Decimal,
  formatDecimal,
  parseDecimal as parseMoney,
  parseDiscount as parseMoneyDiscount,
  ZERO,
} from "../billing/money.ts";
import type { SettlementItem } from "./types.ts";

/** Parses an exact decimal string; a malformed one is a 400 naming the field. */
export const parseDecimal = parseMoney;

/**
 * Canonical text of a decimal: plain notation, no trailing zeros ("1.50" → "1.5", "1e-7" →
 * "0.0000001"). Both stores answer in this form so the same balance reads the same everywhere.
 */
export function canonicalDecimal(value: string | Decimal): string {
  return formatDecimal(typeof value === "string" ? parseMoney(value, "amount") : value);
}

export function addDecimals(a: string, b: string): string {
  return formatDecimal(parseMoney(a, "amount").plus(parseMoney(b, "amount")));
}

/** A discount is a fraction of the price taken off: "0" to "1". */
export function parseDiscount(value: string, field = "discount"): string {
  return formatDecimal(parseMoneyDiscount(value, field));
}

export function negateDecimal(value: string): string {
  return formatDecimal(parseMoney(value, "amount").neg());
}

/** The amount a settlement debits (the rating's `usage` unless given), checked before any transaction. */
export function debitOf(item: Pick<SettlementItem, "rating" | "debit">): string {
  return canonicalDecimal(debitAmount(item));
}

function debitAmount(item: Pick<SettlementItem, "rating" | "debit">): Decimal {
  return item.debit === undefined
    ? parseDecimal(item.rating.usage, "rating.usage")
    : parseDecimal(item.debit, "debit");
}

/**
 * The debits of one write batch, summed per account exactly: each amount is parsed once and each
 * account's total written out once, not added up as text one finish at a time.
 */
export class DebitsByAccount {
  private readonly totals = new Map<string, Decimal>();

  add(accountId: string, item: Pick<SettlementItem, "rating" | "debit">): void {
    this.totals.set(accountId, (this.totals.get(accountId) ?? ZERO).plus(debitAmount(item)));
  }

  /** Each account once, in a fixed order (concurrent batches cannot deadlock), with what to add to its balance. */
  *balanceChanges(): Iterable<[accountId: string, amount: string]> {
    for (const accountId of [...this.totals.keys()].sort())
      yield [accountId, formatDecimal(this.totals.get(accountId)!.neg())];
  }
}

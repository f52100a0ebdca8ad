// What rating a generation produces (billing/rate.ts makes it; the ledger stores it, billing/render.ts
// shows it). Billing owns the type, so the ledger depends on billing and never the other way round.

/** Billing result, written at settlement. Amounts are exact decimal strings. */
export interface Rating {
  usage: string;
  billAmount: string;
  discountAmount: string;
  originAmount: string;
  priceVersion: string;
  ratingDetails: Array<{
    feeItemCode: string;
    rate: string;
    originAmount: string;
    discountAmount: string;
    billAmount: string;
  }>;
}

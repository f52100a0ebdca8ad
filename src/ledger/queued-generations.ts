// What both stores do alike with generation writes: they go through a WriteQueue (write-queue.ts),
// batched into the store's own transactions, and a single settlement is a batch of one. Each store
// builds its queue (how a batch is applied is its own) and settles in its own SQL.

import type { GenerationEnd, GenerationStart, Rating, SettlementItem } from "./types.ts";
import type { WriteQueue } from "./write-queue.ts";

export abstract class QueuedGenerations {
  protected abstract readonly writes: WriteQueue;

  abstract settleGenerations(items: SettlementItem[]): Promise<Array<Error | undefined>>;

  /** Transactions the generation writer has committed (one per batch). */
  get batchesWritten(): number {
    return this.writes.batchesWritten;
  }

  async flush(): Promise<void> {
    await this.writes.flush();
  }

  get acceptsGenerations(): boolean {
    return !this.writes.full;
  }

  get pendingGenerationWrites(): number {
    return this.writes.backlog;
  }

  startGeneration(g: GenerationStart): Promise<void> {
    return this.writes.enqueue({ kind: "start", start: g });
  }

  finishGeneration(e: GenerationEnd): Promise<void> {
    return this.writes.enqueue({ kind: "finish", end: e });
  }

  recordGeneration(g: GenerationStart, e: GenerationEnd): Promise<void> {
    return this.writes.enqueue({ kind: "whole", start: g, end: e });
  }

  /**
   * Stores the rating and debits the account, in one transaction. The debit never waits for funds:
   * the last generation may take a balance below zero (admission, not settlement, refuses the next
   * request). Settling a settled generation changes nothing.
   */
  async settleGeneration(id: string, rating: Rating, settledAt: number, debit?: string): Promise<void> {
    const [error] = await this.settleGenerations([{ id, rating, settledAt, debit }]);
    if (error) throw error;
  }
}

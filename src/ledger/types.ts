// The store behind the generation ledger, assembled from parts by concern: accounts, keys, stored
// responses and conversations (each `*-types.ts` beside this file). Two implementations share one
// test suite: node:sqlite (embedded default) and PostgreSQL.

import type { Rating } from "../billing/rating.ts";
import type { Usage } from "../ir/usage.ts";
import type { Api } from "../protocols/names.ts";
import type { AccountStore } from "./accounts-types.ts";
import type { ConversationStore } from "./conversations-types.ts";
import type { KeyStore } from "./keys-types.ts";
import type { ResponseStore } from "./responses-types.ts";
import type { UsageQueries } from "./usage-types.ts";

/** The style the client spoke (protocols/names.ts joins it to the protocol and config names). */
export type { Api };
export type KeyKind = "payg" | "subscription";
export type GenerationStatus = "pending" | "completed" | "failed" | "cancelled" | "interrupted";

export interface GenerationStart {
  id: string;
  accountId: string;
  keyId: string;
  api: Api;
  /** Catalog id the client asked for. */
  model: string;
  streamed: boolean;
  /** Epoch ms when the request arrived. */
  createdAt: number;
  /** The client's agent session (Claude Code's `X-Claude-Code-Session-Id`), bounded: session-id.ts. */
  sessionId?: string;
}

/** What a finish records of how the generation went, read back alike on its row. */
export interface GenerationOutcome {
  /** Provider id that answered (or last tried). */
  provider?: string;
  finishReason?: string;
  /** Time to first token, ms. */
  latencyMs?: number;
  /** First token to completion, ms. */
  generationTimeMs?: number;
  requestRetryTimes: number;
  finalRetry: boolean;
  errorMessage?: string;
}

export interface GenerationEnd extends GenerationOutcome {
  id: string;
  status: Exclude<GenerationStatus, "pending">;
  /** Catalog id of the model that answered, when a fallback model did (its prices applied). */
  model?: string;
  usage: Usage;
  /** Epoch ms. */
  completedAt: number;
  /**
   * Settle with the finish (billing.settle_delay_ms = 0): the rating is stored and the account
   * debited in the finish's own batch, so settling costs no transaction of its own.
   */
  settlement?: { rating: Rating; debit?: string };
}

/** Billing result, written at settlement (defined by billing: billing/rating.ts). */
export type { Rating };

export interface GenerationRow extends GenerationStart, GenerationOutcome {
  status: GenerationStatus;
  usage?: Usage;
  completedAt?: number;
  rating?: Rating;
  settledAt?: number;
}

export interface SettlementItem {
  id: string;
  rating: Rating;
  settledAt: number;
  /** Amount to debit; the rating's `usage` when absent. */
  debit?: string;
}

/** What both stores take besides their location. */
export interface StoreOptions {
  /** The owner written on the generations this store starts; a new one (src/ledger/owner.ts) when absent. */
  owner?: string;
}

/** A key's rate limits (src/limits/); each absent one is unlimited. */
export interface KeyLimits {
  /** Requests per minute. */
  rpm?: number;
  /** Tokens (prompt + output) per minute. */
  tpm?: number;
  /** Requests in flight at once. */
  concurrency?: number;
}

export type BudgetPeriod = "day" | "month" | "total";

/** A key's spending cap: its settled cost in the period (UTC days and months) may not pass `usd`. */
export interface KeyBudget {
  /** Exact decimal string, USD. */
  usd: string;
  period: BudgetPeriod;
}

export interface KeyRow {
  id: string;
  /** sha256 hex of the key; the plaintext is never stored. */
  hash: string;
  /** First characters of the key, for display (`sk-ss-v1-ab…`). */
  prefix: string;
  kind: KeyKind;
  accountId: string;
  createdAt: number;
  revokedAt?: number;
  name?: string;
  limits?: KeyLimits;
  budget?: KeyBudget;
}

export interface AccountRow {
  id: string;
  /** Exact decimal string, USD credits. */
  balance: string;
  /** Optional discount fraction, exact decimal string ("0.1" = 10 % off). */
  discount?: string;
  createdAt: number;
}

/**
 * Which generations an operator lists, newest first. Times are bounds on the id (ids sort by their
 * arrival time: src/gateway/ids.ts), so a listing walks the primary key and needs no other index.
 */
export interface GenerationFilter {
  /** Only ids ≥ this. */
  idAtLeast?: string;
  /** Only ids < this (the time range's end, or the previous page's last id). */
  idBefore?: string;
  accountId?: string;
  keyId?: string;
  model?: string;
  provider?: string;
  status?: GenerationStatus;
  limit: number;
}

/**
 * One request's hold on spend (src/limits/spend-reservations.ts): `keyId` when it counts against its
 * key's budget, `accountId` when against its account's credit. Amounts are whole nano-USD
 * (10^-9 USD), rounded up where held and down where room: exact integers in every store, Redis's Lua
 * doubles included.
 */
export interface SpendHold {
  /** The generation id. */
  id: string;
  keyId?: string;
  accountId?: string;
}

export interface SpendReservation extends SpendHold {
  amount: number;
  /**
   * Less may be held, down to this, when less is left (a request without max_tokens: what it may
   * cost is its model's whole output, but all that is left is held instead); `amount` when absent.
   */
  minimum?: number;
  /** What the key's budget has left after its settled spend; present with `keyId`. */
  keyRoom?: number;
  /** What the account's balance has left; present with `accountId`. */
  accountRoom?: number;
  /**
   * When the settled spend behind `keyRoom` and `accountRoom` was read (epoch ms): a hold settled
   * before then is in that reading, and not counted again.
   */
  keyReadAt?: number;
  accountReadAt?: number;
  /** Held until then unless renewed: a process that dies releases its holds this way. */
  ttlMs: number;
}

/**
 * Admitted, holding `held`; or refused by the limit named, `left` being its room less what others hold.
 */
export type SpendDecision =
  | { held: number; refused?: undefined }
  | { refused: "budget" | "credit"; left: number };

/** A key's or account's holds: reserved by requests in flight, and settled spend still held. */
export interface HeldSpend {
  reserved: number;
  settling: number;
}

/** Where spend is reserved atomically across processes: the ledger store, or Redis. */
export interface SpendState {
  /** Holds `amount` when every limit named has room for it after the others' holds; else refuses. */
  reserveSpend(r: SpendReservation): Promise<SpendDecision>;
  /**
   * The request is rated and its debit committed (by `settledAt`, epoch ms): its hold goes, and
   * `amount` (its cost) is held `holdMs` more in its key's and account's bucket of settled spend
   * (store-rules.ts SETTLED_BUCKET_MS), counted by readings taken before the bucket ends.
   */
  settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void>;
  /** Drops the hold (nothing was charged). */
  releaseSpend(h: SpendHold): Promise<void>;
  /** The holds of requests still running are extended. */
  renewSpend(holds: SpendHold[], ttlMs: number): Promise<void>;
  heldSpend(on: { keyId: string } | { accountId: string }): Promise<HeldSpend>;
}

export interface Store extends SpendState {
  /**
   * Other gateway processes write to this store too (PostgreSQL, or the workers of one `serve`): a
   * generation one of them made may still sit in its write batch for a few milliseconds.
   */
  readonly sharedByProcesses: boolean;
  /**
   * Gateways started apart from each other may share this store (PostgreSQL). One that starts cannot
   * tell a dead gateway's pending generations from a live one's but by its lease: each gateway process
   * renews one (renewLease) and marks the pending generations of a silent one (markAbandoned). The
   * embedded store belongs to one `serve` and its workers: at its start every pending row is abandoned.
   */
  readonly sharedByGateways: boolean;
  /**
   * The process this store writes for: every generation it starts names it, so that when this process
   * dies its pending generations, and only they, can be marked interrupted (see src/ledger/owner.ts).
   */
  readonly owner: string;
  /** Creates tables if needed. */
  migrate(): Promise<void>;
  /** Accounts and their balances (accounts-types.ts). */
  readonly accounts: AccountStore;
  /** API keys (keys-types.ts). */
  readonly keys: KeyStore;
  /** Operators' reads: generations listed, usage summed from the rollups (usage-types.ts). */
  readonly queries: UsageQueries;
  /** The Responses API's stored responses (responses-types.ts), migrated with the rest. */
  readonly responses: ResponseStore;
  /** The Responses API's conversations (conversations-types.ts), migrated with the rest. */
  readonly conversations: ConversationStore;
  ping(): Promise<boolean>;
  /** Flushes pending writes, then releases the database. */
  close(): Promise<void>;
  /** Resolves once every generation write queued so far is committed (or has failed). */
  flush(): Promise<void>;
  /**
   * False while as many generation writes wait for an unavailable store as the ledger holds in
   * memory: new generations are then refused with a 503 rather than served unrecorded.
   */
  readonly acceptsGenerations: boolean;
  /** Generation writes not yet committed (a few normally; many while the store is away). */
  readonly pendingGenerationWrites: number;

  // generations: written when the request starts, completed when it ends
  startGeneration(g: GenerationStart): Promise<void>;
  finishGeneration(e: GenerationEnd): Promise<void>;
  /** A generation whose start was never written, started and finished in one row. */
  recordGeneration(g: GenerationStart, e: GenerationEnd): Promise<void>;
  /**
   * Records the rating and debits the account in one transaction: by `debit` when given (a
   * subscription key's generations are rated but debit "0"), else by the rating's `usage`.
   */
  settleGeneration(id: string, rating: Rating, settledAt: number, debit?: string): Promise<void>;
  /**
   * Many settlements in one transaction, debits summed per account (one balance update per account
   * per batch, so concurrent settlements do not queue on an account row). Returns, per item, the
   * error that kept it from settling (unknown or still pending), or undefined; already-settled items
   * are left alone.
   */
  settleGenerations(items: SettlementItem[]): Promise<Array<Error | undefined>>;
  /** Only the account's own generations: another account's id is undefined, like an unknown one. */
  getGeneration(id: string, accountId: string): Promise<GenerationRow | undefined>;
  /** Any account's generation: for the operator's CLI only, never behind an HTTP route. */
  getGenerationAnyAccount(id: string): Promise<GenerationRow | undefined>;
  /**
   * The pending generations started by these owners (processes known to be dead: a worker the
   * primary saw exit) are marked interrupted, and the owners' leases dropped; returns how many.
   */
  markInterrupted(owners: readonly string[]): Promise<number>;
  /** This store's owner is alive: its lease is renewed (see markAbandoned). */
  renewLease(): Promise<void>;
  /**
   * Pending generations whose owner has not renewed its lease for `silentForMs` (by the database's
   * clock), or never did, or that name no owner (rows written before owners were recorded), are
   * marked interrupted, and those leases dropped; returns how many. `markAbandoned(0)` marks every
   * pending generation.
   */
  markAbandoned(silentForMs: number): Promise<number>;
  /** Completed generations not yet settled (for settlement after restart). */
  listUnsettled(limit: number): Promise<GenerationRow[]>;

  // operators (the admin API): listings, rollups, retention
  /**
   * Deletes up to `limit` raw generation rows whose id is < `idBefore` (older than the retention),
   * leaving the rollups; pending and unsettled rows stay until they are done. Returns how many went.
   */
  deleteGenerations(idBefore: string, limit: number): Promise<number>;

  /**
   * Keeps thinking the gateway returned beside tool calls, per account and tool-call id, until
   * `expiresAt` (Unix ms); an id kept again is replaced. Expired entries of the account go at once.
   * src/gateway/kept-thinking.ts says what is kept and why.
   */
  keepThinking(accountId: string, kept: KeptThinking[], expiresAt: number): Promise<void>;
  /** What is kept for these tool-call ids of the account and not expired at `now`, by id. */
  keptThinking(accountId: string, toolCallIds: readonly string[], now: number): Promise<Map<string, string>>;
}

/** Thinking kept for one tool call: its blocks as the JSON text the gateway wrote. */
export interface KeptThinking {
  toolCallId: string;
  blocks: string;
}

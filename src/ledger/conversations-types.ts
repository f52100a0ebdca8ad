// Conversations (the Responses API's `conversation`): a conversation row and its items in order,
// per account. The metadata and each item are opaque text the gateway seals (content-seal.ts);
// item ids stay in clear, for lookups. Both stores implement it (conversations-sqlite.ts,
// conversations-postgres.ts) over the tables and statements written here once, and share one
// contract test.

import type { Qualify, SqlDialect } from "./sql-dialect.ts";

export interface ConversationRow {
  /** `conv_…`, unguessable. */
  id: string;
  accountId: string;
  /** Epoch ms. */
  createdAt: number;
  /** The metadata object as JSON, maybe sealed. */
  metadata: string;
}

/** One item of a conversation: its id and the item as JSON, maybe sealed. */
export interface ConversationItemRow {
  id: string;
  content: string;
}

/** Which items a listing asks for (OpenAI's `after`, `limit`, `order`). */
export interface ItemPage {
  /** The id of the item the page follows, in `order`; none: from the first. */
  after?: string;
  limit: number;
  order: "asc" | "desc";
}

/** A page of items in the order asked, or the `after` id that names no item of the conversation. */
export type ItemPageRows = { items: ConversationItemRow[]; hasMore: boolean } | { unknownAfter: string };

export interface ConversationStore {
  /** Creates its tables: a migration step of its own. */
  migrate(): Promise<void>;
  /** The conversation and its first items, in one transaction. */
  createConversation(row: ConversationRow, items: ConversationItemRow[]): Promise<void>;
  /** Only the account's own: another account's id is undefined, like an unknown one. */
  getConversation(id: string, accountId: string): Promise<ConversationRow | undefined>;
  /** False when the account has no such conversation. */
  updateConversation(id: string, accountId: string, metadata: string): Promise<boolean>;
  /** The conversation and its items; false when the account has no such conversation. */
  deleteConversation(id: string, accountId: string): Promise<boolean>;
  /** Appends after the last item, in order (committed when it resolves); false: no such conversation. */
  appendItems(id: string, accountId: string, items: ConversationItemRow[]): Promise<boolean>;
  /** Every item, oldest first; undefined when the account has no such conversation. */
  listItems(id: string, accountId: string): Promise<ConversationItemRow[] | undefined>;
  /**
   * One page of items, reading no others; undefined when the account has no such conversation.
   * `after` names an item's id (of two items with one id, the first met in `order`).
   */
  pageItems(id: string, accountId: string, page: ItemPage): Promise<ItemPageRows | undefined>;
  /**
   * One item of the conversation, by its id (the oldest, should two share it); undefined when the
   * account has no such item in that conversation.
   */
  getItem(id: string, itemId: string, accountId: string): Promise<ConversationItemRow | undefined>;
  /** False when the conversation or the item is not the account's. */
  deleteItem(id: string, itemId: string, accountId: string): Promise<boolean>;
  /** An item of any of the account's conversations, by its id (item_reference). */
  findItem(itemId: string, accountId: string): Promise<ConversationItemRow | undefined>;
}

/**
 * The statements of a page in either store's placeholders (`p(n)`, 1-based): `afterSeq` finds the
 * position of the `after` item (params: account, item id, conversation); `rows` reads the page
 * (params: conversation, that position when there is an `after`, then limit + 1: one row more than
 * the page says whether there are more).
 */
export function itemPageSql(
  t: Qualify,
  page: ItemPage,
  p: (n: number) => string,
): { afterSeq: string; rows: string } {
  const table = t("conversation_items");
  const asc = page.order === "asc";
  const from = page.after === undefined ? "" : ` AND seq ${asc ? ">" : "<"} ${p(2)}`;
  return {
    afterSeq: `SELECT ${asc ? "MIN" : "MAX"}(seq) AS seq FROM ${table}
      WHERE account_id = ${p(1)} AND id = ${p(2)} AND conversation_id = ${p(3)}`,
    rows: `SELECT id, content FROM ${table} WHERE conversation_id = ${p(1)}${from}
      ORDER BY seq ${asc ? "ASC" : "DESC"} LIMIT ${p(page.after === undefined ? 2 : 3)}`,
  };
}

/** The statement of one item of a conversation (params: account, item id, conversation). */
export function itemSql(t: Qualify, p: (n: number) => string): string {
  return `SELECT id, content FROM ${t("conversation_items")}
    WHERE account_id = ${p(1)} AND id = ${p(2)} AND conversation_id = ${p(3)} ORDER BY seq LIMIT 1`;
}

/** The rows of a page read with one more than its limit → the page. */
export function pageOfRows(rows: Array<Record<string, unknown>>, limit: number): ItemPageRows {
  return { items: rows.slice(0, limit).map(itemRow), hasMore: rows.length > limit };
}

/** A row of either store → ConversationItemRow. */
export function itemRow(row: Record<string, unknown>): ConversationItemRow {
  return { id: String(row.id), content: String(row.content) };
}

/** A row of either store (pg gives BIGINT as a string) → ConversationRow. */
export function conversationRow(row: Record<string, unknown>): ConversationRow {
  return {
    id: String(row.id),
    accountId: String(row.account_id),
    createdAt: Number(row.created_at),
    metadata: String(row.metadata),
  };
}

/** The tables: a migration step of their own, after the ledger's. */
export function conversationsSchema(t: Qualify, d: SqlDialect): string {
  return `
CREATE TABLE IF NOT EXISTS ${t("conversations")} (
  id         TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  created_at ${d.int64} NOT NULL,
  metadata   TEXT NOT NULL
)${d.keyedTable};
CREATE TABLE IF NOT EXISTS ${t("conversation_items")} (
  conversation_id TEXT NOT NULL,
  seq             INTEGER NOT NULL,
  account_id      TEXT NOT NULL,
  id              TEXT NOT NULL,
  content         TEXT NOT NULL,
  PRIMARY KEY (conversation_id, seq)
)${d.keyedTable};
CREATE INDEX IF NOT EXISTS conversation_items_id ON ${t("conversation_items")} (account_id, id);
`;
}

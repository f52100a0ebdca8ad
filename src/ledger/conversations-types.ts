// Conversations (the Responses API's `conversation`): a conversation row and its items in order,
// per account. The metadata and each item are opaque text the gateway seals (content-seal.ts);
// item ids stay in clear, for lookups. Both stores implement it (conversations-sqlite.ts,
// conversations-postgres.ts) and share one contract test.

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
  /** False when the conversation or the item is not the account's. */
  deleteItem(id: string, itemId: string, accountId: string): Promise<boolean>;
  /** An item of any of the account's conversations, by its id (item_reference). */
  findItem(itemId: string, accountId: string): Promise<ConversationItemRow | undefined>;
}

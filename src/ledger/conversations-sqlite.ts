// Conversations in the embedded store (conversations-types.ts), written straight like stored
// responses: an item appended by a response is committed before its answer is released.

import {
  type ConversationItemRow,
  type ConversationRow,
  type ConversationStore,
  conversationRow,
  conversationsSchema,
  type ItemPage,
  type ItemPageRows,
  itemPageSql,
  itemRow,
  itemSql,
  pageOfRows,
} from "./conversations-types.ts";
import { SQLITE } from "./sql-dialect.ts";
import { read } from "./sqlite-errors.ts";
import { asIs, param, SqlitePart } from "./sqlite-part.ts";

export class SqliteConversations extends SqlitePart implements ConversationStore {
  async migrate(): Promise<void> {
    this.transaction(() => this.db.exec(conversationsSchema(asIs, SQLITE)));
  }

  async createConversation(row: ConversationRow, items: ConversationItemRow[]): Promise<void> {
    this.transaction(() => {
      this.statement(
        "INSERT INTO conversations (id, account_id, created_at, metadata) VALUES (?, ?, ?, ?)",
      ).run(row.id, row.accountId, row.createdAt, row.metadata);
      this.insertItems(row.id, row.accountId, items, 0);
    });
  }

  async getConversation(id: string, accountId: string): Promise<ConversationRow | undefined> {
    return read(() => this.readConversation(id, accountId));
  }

  async updateConversation(id: string, accountId: string, metadata: string): Promise<boolean> {
    return this.transaction(
      () =>
        this.statement("UPDATE conversations SET metadata = ? WHERE id = ? AND account_id = ?").run(
          metadata,
          id,
          accountId,
        ).changes > 0,
    );
  }

  async deleteConversation(id: string, accountId: string): Promise<boolean> {
    return this.transaction(() => {
      const gone = this.statement("DELETE FROM conversations WHERE id = ? AND account_id = ?").run(
        id,
        accountId,
      );
      if (gone.changes === 0) return false;
      this.statement("DELETE FROM conversation_items WHERE conversation_id = ?").run(id);
      return true;
    });
  }

  async appendItems(id: string, accountId: string, items: ConversationItemRow[]): Promise<boolean> {
    return this.transaction(() => {
      if (!this.statement("SELECT 1 FROM conversations WHERE id = ? AND account_id = ?").get(id, accountId))
        return false;
      const last = this.statement(
        "SELECT COALESCE(MAX(seq), -1) AS seq FROM conversation_items WHERE conversation_id = ?",
      ).get(id);
      this.insertItems(id, accountId, items, Number(last?.seq) + 1);
      return true;
    });
  }

  async listItems(id: string, accountId: string): Promise<ConversationItemRow[] | undefined> {
    return read(() => {
      if (!this.readConversation(id, accountId)) return undefined;
      return this.statement(
        "SELECT id, content FROM conversation_items WHERE conversation_id = ? ORDER BY seq",
      )
        .all(id)
        .map(itemRow);
    });
  }

  async pageItems(id: string, accountId: string, page: ItemPage): Promise<ItemPageRows | undefined> {
    const sql = itemPageSql(asIs, page, param);
    return read(() => {
      if (!this.readConversation(id, accountId)) return undefined;
      const from: number[] = [];
      if (page.after !== undefined) {
        const at = this.statement(sql.afterSeq).get(accountId, page.after, id)?.seq;
        if (at == null) return { unknownAfter: page.after };
        from.push(Number(at));
      }
      return pageOfRows(this.statement(sql.rows).all(id, ...from, page.limit + 1), page.limit);
    });
  }

  async getItem(id: string, itemId: string, accountId: string): Promise<ConversationItemRow | undefined> {
    const row = read(() => this.statement(itemSql(asIs, param)).get(accountId, itemId, id));
    return row && itemRow(row);
  }

  async deleteItem(id: string, itemId: string, accountId: string): Promise<boolean> {
    return this.transaction(
      () =>
        this.statement(
          "DELETE FROM conversation_items WHERE conversation_id = ? AND account_id = ? AND id = ?",
        ).run(id, accountId, itemId).changes > 0,
    );
  }

  async findItem(itemId: string, accountId: string): Promise<ConversationItemRow | undefined> {
    const row = read(() =>
      this.statement(
        "SELECT id, content FROM conversation_items WHERE account_id = ? AND id = ? LIMIT 1",
      ).get(accountId, itemId),
    );
    return row && itemRow(row);
  }

  private readConversation(id: string, accountId: string): ConversationRow | undefined {
    const row = this.statement(
      "SELECT id, account_id, created_at, metadata FROM conversations WHERE id = ? AND account_id = ?",
    ).get(id, accountId);
    return row && conversationRow(row);
  }

  private insertItems(id: string, accountId: string, items: ConversationItemRow[], firstSeq: number): void {
    const insert = this.statement(
      "INSERT INTO conversation_items (conversation_id, seq, account_id, id, content) VALUES (?, ?, ?, ?, ?)",
    );
    items.forEach((item, i) => {
      insert.run(id, firstSeq + i, accountId, item.id, item.content);
    });
  }
}

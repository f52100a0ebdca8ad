// Conversations in the shared store (conversations-types.ts). An append locks its conversation's
// row first, so that two processes appending to one conversation number their items one after the
// other.

import type { PoolClient } from "pg";
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
import { migrateUnderLock, PostgresPart, param } from "./postgres-part.ts";
import { POSTGRES } from "./sql-dialect.ts";

export class PostgresConversations extends PostgresPart implements ConversationStore {
  migrate(): Promise<void> {
    return migrateUnderLock(this.db, conversationsSchema(this.t, POSTGRES));
  }

  async createConversation(row: ConversationRow, items: ConversationItemRow[]): Promise<void> {
    await this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO ${this.t("conversations")} (id, account_id, created_at, metadata) VALUES ($1, $2, $3, $4)`,
        [row.id, row.accountId, row.createdAt, row.metadata],
      );
      await this.insertItems(client, row.id, row.accountId, items, 0);
    });
  }

  async getConversation(id: string, accountId: string): Promise<ConversationRow | undefined> {
    const result = await this.db.query(
      `SELECT id, account_id, created_at, metadata FROM ${this.t("conversations")} WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    const row = result.rows[0];
    return row && conversationRow(row);
  }

  async updateConversation(id: string, accountId: string, metadata: string): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE ${this.t("conversations")} SET metadata = $1 WHERE id = $2 AND account_id = $3`,
      [metadata, id, accountId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async deleteConversation(id: string, accountId: string): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const gone = await client.query(
        `DELETE FROM ${this.t("conversations")} WHERE id = $1 AND account_id = $2`,
        [id, accountId],
      );
      if (!gone.rowCount) return false;
      await client.query(`DELETE FROM ${this.t("conversation_items")} WHERE conversation_id = $1`, [id]);
      return true;
    });
  }

  async appendItems(id: string, accountId: string, items: ConversationItemRow[]): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const owned = await client.query(
        `SELECT 1 FROM ${this.t("conversations")} WHERE id = $1 AND account_id = $2 FOR UPDATE`,
        [id, accountId],
      );
      if (!owned.rowCount) return false;
      const last = await client.query(
        `SELECT COALESCE(MAX(seq), -1) AS seq FROM ${this.t("conversation_items")} WHERE conversation_id = $1`,
        [id],
      );
      await this.insertItems(client, id, accountId, items, Number(last.rows[0]?.seq) + 1);
      return true;
    });
  }

  async listItems(id: string, accountId: string): Promise<ConversationItemRow[] | undefined> {
    if (!(await this.getConversation(id, accountId))) return undefined;
    const result = await this.db.query(
      `SELECT id, content FROM ${this.t("conversation_items")} WHERE conversation_id = $1 ORDER BY seq`,
      [id],
    );
    return result.rows.map(itemRow);
  }

  async pageItems(id: string, accountId: string, page: ItemPage): Promise<ItemPageRows | undefined> {
    if (!(await this.getConversation(id, accountId))) return undefined;
    const sql = itemPageSql(this.t, page, param);
    const from: number[] = [];
    if (page.after !== undefined) {
      const at = (await this.db.query(sql.afterSeq, [accountId, page.after, id])).rows[0]?.seq;
      if (at == null) return { unknownAfter: page.after };
      from.push(Number(at));
    }
    const result = await this.db.query(sql.rows, [id, ...from, page.limit + 1]);
    return pageOfRows(result.rows, page.limit);
  }

  async getItem(id: string, itemId: string, accountId: string): Promise<ConversationItemRow | undefined> {
    const result = await this.db.query(itemSql(this.t, param), [accountId, itemId, id]);
    const row = result.rows[0];
    return row && itemRow(row);
  }

  async deleteItem(id: string, itemId: string, accountId: string): Promise<boolean> {
    const result = await this.db.query(
      `DELETE FROM ${this.t("conversation_items")} WHERE conversation_id = $1 AND account_id = $2 AND id = $3`,
      [id, accountId, itemId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async findItem(itemId: string, accountId: string): Promise<ConversationItemRow | undefined> {
    const result = await this.db.query(
      `SELECT id, content FROM ${this.t("conversation_items")} WHERE account_id = $1 AND id = $2 LIMIT 1`,
      [accountId, itemId],
    );
    const row = result.rows[0];
    return row && itemRow(row);
  }

  private async insertItems(
    client: PoolClient,
    id: string,
    accountId: string,
    items: ConversationItemRow[],
    firstSeq: number,
  ): Promise<void> {
    if (items.length === 0) return;
    await client.query(
      `INSERT INTO ${this.t("conversation_items")} (conversation_id, seq, account_id, id, content)
       SELECT $1, $2 + ordinality - 1, $3, item_id, content
         FROM unnest($4::text[], $5::text[]) WITH ORDINALITY AS items(item_id, content)`,
      [id, firstSeq, accountId, items.map((i) => i.id), items.map((i) => i.content)],
    );
  }
}

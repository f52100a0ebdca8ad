// Conversations (docs/responses.md §8): a list of items an account keeps and a response continues
// (`conversation` on `POST /v1/responses` prepends its items, then appends the turn's input and
// output). The endpoints answer in OpenAI's shapes; another account's conversation is a 404 exactly
// like an unknown one.

import { randomBytes } from "node:crypto";
import type { Authenticator } from "../auth/authenticator.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import { storableText } from "../ledger/columns.ts";
import type { ContentSeal } from "../ledger/content-seal.ts";
import type {
  ConversationItemRow,
  ConversationRow,
  ConversationStore,
  ItemPage,
} from "../ledger/conversations-types.ts";
import { decodeMetadata } from "../protocols/shared/openai-metadata.ts";
import { expectArray, expectObject, isObject } from "../protocols/shared/validate.ts";
import type { IncomingHeaders } from "../protocols/types.ts";
import { accountOf, listObject, pageQuery, unknownAfter } from "./stored-responses.ts";

type Json = Record<string, unknown>;

/** OpenAI's limit on the items one create or add may carry. */
const MAX_ITEMS_PER_CALL = 20;

export class Conversations {
  private readonly store: ConversationStore;
  private readonly seal: ContentSeal;

  constructor(store: ConversationStore, seal: ContentSeal) {
    this.store = store;
    this.seal = seal;
  }

  async create(accountId: string, metadata: Record<string, string>, items: Json[]): Promise<Json> {
    const row: ConversationRow = {
      id: `conv_${randomBytes(24).toString("hex")}`,
      accountId,
      createdAt: Date.now(),
      metadata: this.seal.seal(JSON.stringify(metadata)),
    };
    await this.store.createConversation(row, this.itemRows(items, row.id));
    return conversationObject(row, metadata);
  }

  async get(id: string, accountId: string): Promise<Json> {
    const row = await this.store.getConversation(id, accountId);
    if (!row) throw conversationNotFound(id);
    return conversationObject(row, JSON.parse(this.seal.open(row.metadata)));
  }

  async update(id: string, accountId: string, metadata: Record<string, string>): Promise<Json> {
    if (!(await this.store.updateConversation(id, accountId, this.seal.seal(JSON.stringify(metadata)))))
      throw conversationNotFound(id);
    return this.get(id, accountId);
  }

  async delete(id: string, accountId: string): Promise<Json> {
    if (!(await this.store.deleteConversation(id, accountId))) throw conversationNotFound(id);
    return { id, object: "conversation.deleted", deleted: true };
  }

  /** Every item, oldest first, opened. */
  async items(id: string, accountId: string): Promise<Json[]> {
    const rows = await this.store.listItems(id, accountId);
    if (!rows) throw conversationNotFound(id);
    return rows.map((row) => this.openItem(row));
  }

  /** One page of items, opened: only those it returns are read and opened. */
  async page(id: string, accountId: string, page: ItemPage): Promise<{ items: Json[]; hasMore: boolean }> {
    const rows = await this.store.pageItems(id, accountId, page);
    if (!rows) throw conversationNotFound(id);
    if ("unknownAfter" in rows) throw unknownAfter(rows.unknownAfter);
    return { items: rows.items.map((row) => this.openItem(row)), hasMore: rows.hasMore };
  }

  /** One item of the conversation, opened. */
  async item(id: string, itemId: string, accountId: string): Promise<Json> {
    const row = await this.store.getItem(id, itemId, accountId);
    if (row) return this.openItem(row);
    if (!(await this.store.getConversation(id, accountId))) throw conversationNotFound(id);
    throw itemNotFound(itemId);
  }

  /** Appends items (given ids where they have none); returns them as stored. */
  async append(id: string, accountId: string, items: Json[]): Promise<Json[]> {
    const rows = this.itemRows(items, id);
    if (!(await this.store.appendItems(id, accountId, rows))) throw conversationNotFound(id);
    return rows.map((row) => this.openItem(row));
  }

  async deleteItem(id: string, itemId: string, accountId: string): Promise<Json> {
    if (!(await this.store.deleteItem(id, itemId, accountId))) {
      await this.get(id, accountId);
      throw itemNotFound(itemId);
    }
    return this.get(id, accountId);
  }

  /** An item of any of the account's conversations (item_reference). */
  async findItem(itemId: string, accountId: string): Promise<Json | undefined> {
    const row = await this.store.findItem(itemId, accountId);
    return row && this.openItem(row);
  }

  private itemRows(items: Json[], conversationId: string): ConversationItemRow[] {
    const stamp = randomBytes(6).toString("hex");
    return items.map((item, i) => {
      const stored = storedItem(item, `${conversationId.slice(5, 17)}${stamp}_${i}`);
      return { id: String(stored.id), content: this.seal.seal(JSON.stringify(stored)) };
    });
  }

  private openItem(row: ConversationItemRow): Json {
    return JSON.parse(this.seal.open(row.content));
  }
}

/**
 * An item as it is kept and listed: typed, with an id (`msg_…` for messages, `fco_…` for tool
 * outputs, `item_…` otherwise, after `suffix`), a message's string content as one text part.
 */
export function storedItem(item: Json, suffix: string): Json {
  const type = item.type ?? (item.role !== undefined ? "message" : undefined);
  const stored: Json = { id: typeof item.id === "string" ? item.id : `${idPrefix(type)}_${suffix}`, ...item };
  if (type === undefined) return stored;
  stored.type = type;
  if (type === "message") {
    if (typeof item.content === "string")
      stored.content = [
        { type: item.role === "assistant" ? "output_text" : "input_text", text: item.content },
      ];
    stored.status ??= "completed";
  }
  return stored;
}

function idPrefix(type: unknown): string {
  if (type === "message") return "msg";
  if (type === "function_call_output") return "fco";
  return "item";
}

function conversationObject(row: ConversationRow, metadata: unknown): Json {
  return { id: row.id, object: "conversation", created_at: Math.floor(row.createdAt / 1000), metadata };
}

export function conversationNotFound(id: string, param = "conversation_id"): GatewayError {
  return new GatewayError("not_found", `Conversation with id '${id}' not found.`, { param });
}

function itemNotFound(id: string): GatewayError {
  return new GatewayError("not_found", `Item with id '${id}' not found.`, { param: "item_id" });
}

// ── the endpoints ─────────────────────────────────────────────────────────────────────────────────

export interface ConversationsDeps {
  auth: Authenticator;
  conversations: Conversations;
}

/** `items` of a create or an add: objects, at most 20. */
function itemsOf(value: unknown, required: boolean): Json[] {
  if (value === undefined || value === null) {
    if (required) throw invalid("items", "is required");
    return [];
  }
  const items = expectArray(value, "items");
  if (items.length > MAX_ITEMS_PER_CALL)
    throw invalid("items", `must hold at most ${MAX_ITEMS_PER_CALL} items`);
  return items.map((item, i) => {
    const object = expectObject(item, `items[${i}]`);
    if (object.type === "item_reference")
      throw invalid(`items[${i}].type`, "an item_reference cannot be stored");
    if (typeof object.id === "string") storableText(`items[${i}].id`, object.id);
    return object;
  });
}

/** `POST /v1/conversations` */
export async function createConversation(deps: ConversationsDeps, headers: IncomingHeaders, body: unknown) {
  const b = body === undefined || body === null ? {} : expectObject(body, "body");
  const metadata = decodeMetadata(b.metadata);
  const items = itemsOf(b.items, false);
  return deps.conversations.create(await accountOf(deps, headers), metadata, items);
}

/** `GET /v1/conversations/{id}` */
export async function retrieveConversation(deps: ConversationsDeps, headers: IncomingHeaders, id: string) {
  return deps.conversations.get(id, await accountOf(deps, headers));
}

/** `POST /v1/conversations/{id}`: its metadata replaced. */
export async function updateConversation(
  deps: ConversationsDeps,
  headers: IncomingHeaders,
  id: string,
  body: unknown,
) {
  const b = expectObject(body, "body");
  if (!isObject(b.metadata)) throw invalid("metadata", "is required");
  return deps.conversations.update(id, await accountOf(deps, headers), decodeMetadata(b.metadata));
}

/** `DELETE /v1/conversations/{id}` */
export async function deleteConversation(deps: ConversationsDeps, headers: IncomingHeaders, id: string) {
  return deps.conversations.delete(id, await accountOf(deps, headers));
}

/** `GET /v1/conversations/{id}/items?after&limit&order` */
export async function listConversationItems(
  deps: ConversationsDeps,
  headers: IncomingHeaders,
  id: string,
  query: Record<string, unknown>,
) {
  const accountId = await accountOf(deps, headers);
  const { items, hasMore } = await deps.conversations.page(id, accountId, pageQuery(query));
  return listObject(items, hasMore);
}

/** `POST /v1/conversations/{id}/items`: the items added, as a list. */
export async function addConversationItems(
  deps: ConversationsDeps,
  headers: IncomingHeaders,
  id: string,
  body: unknown,
) {
  const items = itemsOf(expectObject(body, "body").items, true);
  const added = await deps.conversations.append(id, await accountOf(deps, headers), items);
  return listObject(added, false);
}

/** `GET /v1/conversations/{id}/items/{item_id}` */
export async function retrieveConversationItem(
  deps: ConversationsDeps,
  headers: IncomingHeaders,
  id: string,
  itemId: string,
) {
  return deps.conversations.item(id, itemId, await accountOf(deps, headers));
}

/** `DELETE /v1/conversations/{id}/items/{item_id}`: the conversation. */
export async function deleteConversationItem(
  deps: ConversationsDeps,
  headers: IncomingHeaders,
  id: string,
  itemId: string,
) {
  return deps.conversations.deleteItem(id, itemId, await accountOf(deps, headers));
}

// The conversation items endpoints read and open only what they answer (src/gateway/conversations.ts):
// a page of a long conversation, or one item of it, is not a decryption of every item it holds.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Authenticator } from "../../src/auth/authenticator.ts";
import {
  addConversationItems,
  Conversations,
  createConversation,
  listConversationItems,
  retrieveConversationItem,
} from "../../src/gateway/conversations.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import { ContentSeal } from "../../src/ledger/content-seal.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";

/** A seal that counts the texts it opens. */
class CountingSeal extends ContentSeal {
  opened = 0;
  override open(stored: string): string {
    this.opened++;
    return super.open(stored);
  }
}

async function setUp() {
  const store = new SqliteStore(":memory:");
  await store.migrate();
  const seal = new CountingSeal([Buffer.alloc(32, 7).toString("base64")]);
  const auth = { authenticate: async () => ({ keyId: "k", accountId: "acct", kind: "payg" }) };
  const deps = {
    auth: auth as unknown as Authenticator,
    conversations: new Conversations(store.conversations, seal),
  };
  const headers = { authorization: "Bearer sk-test" };
  const message = (i: number) => ({ id: `msg_${i}`, type: "message", role: "user", content: `turn ${i}` });
  const conv = (await createConversation(deps, headers, {
    items: Array.from({ length: 20 }, (_, i) => message(i)),
  })) as { id: string };
  await addConversationItems(deps, headers, conv.id, {
    items: Array.from({ length: 20 }, (_, i) => message(20 + i)),
  });
  seal.opened = 0;
  return { store, seal, deps, headers, conv };
}

test("a page of items opens only the items it returns", async () => {
  const { store, seal, deps, headers, conv } = await setUp();
  try {
    const page = await listConversationItems(deps, headers, conv.id, { limit: "3" });
    assert.deepEqual(
      page.data.map((i) => i.id),
      ["msg_39", "msg_38", "msg_37"],
    );
    assert.equal(page.has_more, true);
    assert.equal(page.first_id, "msg_39");
    assert.equal(page.last_id, "msg_37");
    assert.equal(seal.opened, 3);
    const next = await listConversationItems(deps, headers, conv.id, {
      after: "msg_37",
      limit: "2",
      order: "desc",
    });
    assert.deepEqual(
      next.data.map((i) => i.id),
      ["msg_36", "msg_35"],
    );
    const last = await listConversationItems(deps, headers, conv.id, { after: "msg_37", order: "asc" });
    assert.deepEqual(
      last.data.map((i) => i.id),
      ["msg_38", "msg_39"],
    );
    assert.equal(last.has_more, false);
    assert.equal(seal.opened, 3 + 2 + 2);
    const unknown = await listConversationItems(deps, headers, conv.id, { after: "msg_x" }).catch((e) => e);
    assert.ok(unknown instanceof GatewayError && unknown.param === "after", String(unknown));
  } finally {
    await store.close();
  }
});

test("one item opens that item alone; an unknown item or conversation is a 404 naming it", async () => {
  const { store, seal, deps, headers, conv } = await setUp();
  try {
    const item = await retrieveConversationItem(deps, headers, conv.id, "msg_12");
    assert.deepEqual(item.content, [{ type: "input_text", text: "turn 12" }]);
    assert.equal(seal.opened, 1);
    const noItem = await retrieveConversationItem(deps, headers, conv.id, "msg_x").catch((e) => e);
    assert.ok(noItem instanceof GatewayError && noItem.kind === "not_found" && noItem.param === "item_id");
    const noConv = await retrieveConversationItem(deps, headers, "conv_x", "msg_1").catch((e) => e);
    assert.ok(noConv instanceof GatewayError && noConv.kind === "not_found");
    assert.equal(noConv.param, "conversation_id");
  } finally {
    await store.close();
  }
});

// The stored responses' and conversations' routes (src/gateway/stored-responses.ts,
// src/gateway/conversations.ts): thin, like every route here.

import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  addConversationItems,
  type ConversationsDeps,
  createConversation,
  deleteConversation,
  deleteConversationItem,
  listConversationItems,
  retrieveConversation,
  retrieveConversationItem,
  updateConversation,
} from "../gateway/conversations.ts";
import {
  cancelResponse,
  deleteResponse,
  listInputItems,
  resumableRun,
  retrieveResponse,
  type StoredResponsesDeps,
} from "../gateway/stored-responses.ts";
import { storableText } from "../ledger/columns.ts";
import { decodePathSegment } from "./paths.ts";

export function registerResponseRoutes(
  fastify: FastifyInstance,
  deps: StoredResponsesDeps & ConversationsDeps,
): void {
  // Ids are looked up as they come; PostgreSQL's text holds no NUL (a 400 naming the id).
  const pathId = (raw: string, param: string) => storableText(param, decodePathSegment(raw, param));
  const idOf = (req: FastifyRequest) => pathId((req.params as { id: string }).id, "response_id");
  fastify.get("/v1/responses/:id", async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    if (query.stream !== "true") return retrieveResponse(deps, req.headers, idOf(req));
    const follow = await resumableRun(deps, req.headers, idOf(req), query);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    follow({
      write: (text) => res.write(text),
      end: () => res.end(),
      onClose: (listener) => res.on("close", listener),
    });
  });
  fastify.post("/v1/responses/:id/cancel", async (req) => cancelResponse(deps, req.headers, idOf(req)));
  fastify.delete("/v1/responses/:id", async (req) => deleteResponse(deps, req.headers, idOf(req)));
  fastify.get("/v1/responses/:id/input_items", async (req) =>
    listInputItems(deps, req.headers, idOf(req), req.query as Record<string, unknown>),
  );

  const conv = (req: FastifyRequest) => pathId((req.params as { id: string }).id, "conversation_id");
  const item = (req: FastifyRequest) => pathId((req.params as { item: string }).item, "item_id");
  fastify.post("/v1/conversations", async (req) => createConversation(deps, req.headers, req.body));
  fastify.get("/v1/conversations/:id", async (req) => retrieveConversation(deps, req.headers, conv(req)));
  fastify.post("/v1/conversations/:id", async (req) =>
    updateConversation(deps, req.headers, conv(req), req.body),
  );
  fastify.delete("/v1/conversations/:id", async (req) => deleteConversation(deps, req.headers, conv(req)));
  fastify.get("/v1/conversations/:id/items", async (req) => {
    // The page's `after` is an item id the store looks up, as the path's ids are.
    const query = req.query as Record<string, unknown>;
    if (typeof query.after === "string") storableText("after", query.after);
    return listConversationItems(deps, req.headers, conv(req), query);
  });
  fastify.post("/v1/conversations/:id/items", async (req) =>
    addConversationItems(deps, req.headers, conv(req), req.body),
  );
  fastify.get("/v1/conversations/:id/items/:item", async (req) =>
    retrieveConversationItem(deps, req.headers, conv(req), item(req)),
  );
  fastify.delete("/v1/conversations/:id/items/:item", async (req) =>
    deleteConversationItem(deps, req.headers, conv(req), item(req)),
  );
}

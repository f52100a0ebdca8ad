// The stored responses' routes (src/gateway/stored-responses.ts): thin, like every route here.

import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  deleteResponse,
  listInputItems,
  retrieveResponse,
  type StoredResponsesDeps,
} from "../gateway/stored-responses.ts";
import { decodePathSegment } from "./paths.ts";

export function registerResponseRoutes(fastify: FastifyInstance, deps: StoredResponsesDeps): void {
  const idOf = (req: FastifyRequest) => decodePathSegment((req.params as { id: string }).id, "response_id");
  fastify.get("/v1/responses/:id", async (req) => retrieveResponse(deps, req.headers, idOf(req)));
  fastify.delete("/v1/responses/:id", async (req) => deleteResponse(deps, req.headers, idOf(req)));
  fastify.get("/v1/responses/:id/input_items", async (req) =>
    listInputItems(deps, req.headers, idOf(req), req.query as Record<string, unknown>),
  );
}

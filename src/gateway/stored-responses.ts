// The stored responses' own endpoints, in OpenAI's shapes (docs/responses.md): GET and DELETE
// /v1/responses/{id} and GET /v1/responses/{id}/input_items. Only the key's account's responses
// exist for it: another account's id is a 404 exactly like an unknown one.

import type { Authenticator } from "../auth/authenticator.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import type { IncomingHeaders } from "../protocols/types.ts";
import { callerOf } from "./front-step.ts";
import type { ResponseMemory, StoredContent } from "./response-memory.ts";
import type { EventSink } from "./run-events.ts";

type Json = Record<string, unknown>;

export interface StoredResponsesDeps {
  auth: Authenticator;
  memory: ResponseMemory;
}

/** `GET /v1/responses/{id}`: the response object as it was answered, or as a background run stands. */
export async function retrieveResponse(deps: StoredResponsesDeps, headers: IncomingHeaders, id: string) {
  return deps.memory.current(id, await accountOf(deps, headers));
}

/** `POST /v1/responses/{id}/cancel`: a background run aborted and recorded cancelled. */
export async function cancelResponse(deps: StoredResponsesDeps, headers: IncomingHeaders, id: string) {
  return deps.memory.background.cancel(id, await accountOf(deps, headers));
}

/**
 * `GET /v1/responses/{id}?stream=true&starting_after=N`: a streamed background run's events after
 * N, then the rest as they come, through any process and after it ended (docs/responses.md §9).
 * Checked before anything is written: an error is still an answer. Returns how to follow it.
 */
export async function resumableRun(
  deps: StoredResponsesDeps,
  headers: IncomingHeaders,
  id: string,
  query: Record<string, unknown>,
): Promise<(sink: EventSink) => void> {
  const accountId = await accountOf(deps, headers);
  const stored = await deps.memory.read(id, accountId);
  if (!stored) throw responseNotFound(id);
  const after = query.starting_after === undefined ? -1 : Number(query.starting_after);
  if (!Number.isInteger(after) || after < -1) throw invalid("starting_after", "must be a whole number");
  if (!stored.events)
    throw invalid(
      "stream",
      "only a background response created with stream: true has events to stream; retrieve it without stream",
    );
  return (sink) => deps.memory.background.follow(id, accountId, after, sink);
}

/** `DELETE /v1/responses/{id}`. */
export async function deleteResponse(deps: StoredResponsesDeps, headers: IncomingHeaders, id: string) {
  const accountId = await accountOf(deps, headers);
  if (!(await deps.memory.store.deleteResponse(id, accountId))) throw responseNotFound(id);
  return { id, object: "response.deleted", deleted: true };
}

/** `GET /v1/responses/{id}/input_items?after&limit&order`: the turn's own input items, paged. */
export async function listInputItems(
  deps: StoredResponsesDeps,
  headers: IncomingHeaders,
  id: string,
  query: Record<string, unknown>,
) {
  const { stored } = await readOwn(deps, headers, id);
  return listPage(stored.input, query);
}

/** A list of items (oldest first) as OpenAI pages it: `after` an id, `limit` 1–100, `order` (desc by default). */
function listPage(all: Json[], query: Record<string, unknown>) {
  const { after, limit, order } = pageQuery(query);
  const items = order === "asc" ? all : [...all].reverse();
  let start = 0;
  if (after !== undefined) {
    const at = items.findIndex((item) => item.id === after);
    if (at < 0) throw unknownAfter(after);
    start = at + 1;
  }
  return listObject(items.slice(start, start + limit), start + limit < items.length);
}

/** A page as OpenAI lists it. */
export function listObject(data: Json[], hasMore: boolean) {
  return {
    object: "list",
    data,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
    has_more: hasMore,
  };
}

/** `after` naming no item of the list. */
export function unknownAfter(after: string): GatewayError {
  return invalid("after", `no item '${after}' in this list`);
}

async function readOwn(deps: StoredResponsesDeps, headers: IncomingHeaders, id: string) {
  const accountId = await accountOf(deps, headers);
  const stored: StoredContent | undefined = await deps.memory.read(id, accountId);
  if (!stored) throw responseNotFound(id);
  return { stored };
}

/** The account of the key presented the Responses API's way: only its responses and conversations exist for it. */
export async function accountOf(deps: { auth: Authenticator }, headers: IncomingHeaders): Promise<string> {
  return (await callerOf(deps.auth, "openai-responses", { headers, query: {} })).accountId;
}

/** No response of that id for the account (the routes, a cancel, a retrieve of a run's state). */
export function responseNotFound(id: string): GatewayError {
  return new GatewayError("not_found", `No response found with id '${id}'.`, { param: "response_id" });
}

/** A listing's `after`, `limit` (20 unless given) and `order` (desc unless given), checked. */
export function pageQuery(query: Record<string, unknown>): {
  after?: string;
  limit: number;
  order: "asc" | "desc";
} {
  const order = query.order ?? "desc";
  if (order !== "asc" && order !== "desc") throw invalid("order", "must be one of asc, desc");
  let limit = 20;
  if (query.limit !== undefined) {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100)
      throw invalid("limit", "must be an integer from 1 to 100");
  }
  const after = query.after;
  if (after !== undefined && typeof after !== "string") throw invalid("after", "must be a string");
  return { after: after || undefined, limit, order };
}

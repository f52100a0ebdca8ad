// GET /api/v1/management/generation?id= — the generation record (docs/architecture.md §6), for the caller's
// own generations only. Billing fields appear for pay-as-you-go keys once the generation is settled.

import type { Authenticator } from "../auth/authenticator.ts";
import { creditsToJson, ratingToJson } from "../billing/render.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import type { FinishReason } from "../ir/response.ts";
import { totalTokens } from "../ir/usage.ts";
import { storableText } from "../ledger/columns.ts";
import type { Api, GenerationRow, Store } from "../ledger/types.ts";
import { protocols } from "../protocols/index.ts";
import { protocolOfApi } from "../protocols/names.ts";
import type { IncomingHeaders } from "../protocols/types.ts";
import { callerOf } from "./front-step.ts";
import { generationIdTime } from "./ids.ts";

export async function lookupGeneration(
  deps: { auth: Authenticator; store: Store },
  headers: IncomingHeaders,
  query: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const caller = await callerOf(deps.auth, "lookup", { headers, query: {} });
  const id = query.id ?? query.generate_id;
  if (typeof id !== "string" || id === "") throw invalid("id", "the generation id is required (?id=gen-…)");
  const row = await readGeneration(deps.store, storableText("id", id), caller.accountId);
  if (!row) throw new GatewayError("not_found", `No generation '${id}' for this account.`, { param: "id" });
  return generationRecord(row, caller.kind === "payg");
}

/** How long after its id was made a generation may still sit in another process's write batch. */
const RECENT_MS = 2_000;
const RETRY_MS = 25;

/**
 * A store shared by several processes sees another process's generation only once that process's
 * write batch commits (a few ms). A lookup of a just-made id that misses there reads again until the
 * id is RECENT_MS old; any other miss is answered at once (a store of one process has already
 * flushed this process's pending writes for the id).
 */
async function readGeneration(
  store: Store,
  id: string,
  accountId: string,
): Promise<GenerationRow | undefined> {
  for (;;) {
    const row = await store.getGeneration(id, accountId);
    if (!store.sharedByProcesses) return row;
    const madeAt = generationIdTime(id);
    // abs(): a forged id dated in the future must not hold the lookup open.
    if (row || madeAt === undefined || Math.abs(Date.now() - madeAt) > RECENT_MS) return row;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

export function generationRecord(row: GenerationRow, withBilling: boolean): Record<string, unknown> {
  const u = row.usage;
  const record: Record<string, unknown> = {
    api: row.api,
    generationId: row.id,
    model: row.model,
    createAt: new Date(row.createdAt).toISOString(),
    generationTime: row.generationTimeMs ?? 0,
    latency: row.latencyMs ?? 0,
    nativeTokens: {
      prompt_tokens: u?.promptTokens ?? 0,
      completion_tokens: u?.completionTokens ?? 0,
      total_tokens: u ? totalTokens(u) : 0,
      completion_tokens_details: { reasoning_tokens: u?.reasoningTokens ?? 0 },
      prompt_tokens_details: { cached_tokens: u?.cacheReadTokens ?? 0 },
    },
    streamed: row.streamed,
    finishReason: row.finishReason === undefined ? null : finishReasonName(row.api, row.finishReason),
    requestRetryTimes: row.requestRetryTimes,
    finalRetry: row.finalRetry,
    status: row.status,
    provider: row.provider ?? null,
    // The client's agent session (Claude Code's X-Claude-Code-Session-Id), when it named one.
    sessionId: row.sessionId ?? null,
  };
  // The counts are the gateway's estimate, in part or whole (cancelled before the final usage).
  if (u?.estimated) record.usageEstimated = true;
  if (withBilling && row.rating) {
    record.usage = creditsToJson(row.rating.usage);
    record.ratingResponses = ratingToJson(row.rating);
  }
  return record;
}

const FINISH_REASONS = new Set<string>([
  "stop",
  "stop_sequence",
  "length",
  "tool_calls",
  "content_filter",
  "refusal",
  "pause",
  "error",
  "other",
]);

/**
 * The ledger keeps the gateway's own word for why a generation stopped; the lookup says it as the
 * generation's protocol did to its client (`stop`, `end_turn`, `STOP`, `completed`…). A word the
 * gateway does not know is shown as stored.
 */
function finishReasonName(api: Api, stored: string): string {
  const face = protocolOfApi(api);
  if (!face || !FINISH_REASONS.has(stored)) return stored;
  return protocols[face].finishReasonName(stored as FinishReason);
}

// `cache_control` markers, kept on the IR so a same-family upstream keeps caching (docs/architecture.md §10:
// a stripped cache_control silently ends prompt caching).

import { invalid } from "../../ir/errors.ts";
import type { CacheControl } from "../../ir/request.ts";
import { expectObject } from "../shared/validate.ts";

export function decodeCacheControl(value: unknown, param: string): CacheControl | undefined {
  if (value === undefined || value === null) return undefined;
  const cc = expectObject(value, param);
  if (cc.type !== "ephemeral") throw invalid(`${param}.type`, 'must be "ephemeral"');
  if (cc.ttl === undefined || cc.ttl === null) return { type: "ephemeral" };
  if (cc.ttl !== "5m" && cc.ttl !== "1h") throw invalid(`${param}.ttl`, 'must be "5m" or "1h"');
  return { type: "ephemeral", ttl: cc.ttl };
}

/** `{cache_control}` to spread into a wire block, or nothing when the IR block has no marker. */
export function cacheControlField(cc: CacheControl | undefined): { cache_control?: CacheControl } {
  if (!cc) return {};
  return { cache_control: cc.ttl ? { type: "ephemeral", ttl: cc.ttl } : { type: "ephemeral" } };
}

// Spend reservations in Redis (src/limits/spend-reservations.ts), shared by every gateway on the same
// Redis and prefix. One hash per key budget and per account credit: a field per request in flight
// (`id` → `amount:expiresAt`), and a field per bucket of settled spend (`b:bucket` →
// `amount:expiresAt:lastSettledAt`; the buckets of src/ledger/store-rules.ts). Each operation is one
// Lua script (sent by its SHA1: luaCommand, src/routing/redis-client.ts), so the sums and the insert
// are atomic across processes; expiries are Redis's clock.
// Amounts are whole nano-USD, exact in Lua's doubles below 2^53. The rule is store-rules.ts
// spendDecision, written again in Lua.

import { SETTLED_BUCKET_MS, settledBucket } from "../ledger/store-rules.ts";
import type { HeldSpend, SpendDecision, SpendHold, SpendReservation, SpendState } from "../ledger/types.ts";
import { type LuaCommand, luaCommand, RedisBacked } from "../routing/redis-client.ts";

const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- The hash's live holds: {reserved, settling}, settling counting the buckets settled into at or
-- after readAt (a reading taken earlier lacks them); expired fields are deleted.
local function held(key, readAt)
  local sums = {0, 0}
  local all = redis.call('HGETALL', key)
  for i = 1, #all, 2 do
    local amount, expires, last = string.match(all[i + 1], '^(%d+):(%d+):?(%d*)$')
    if tonumber(expires) <= now then redis.call('HDEL', key, all[i])
    elseif last == '' then sums[1] = sums[1] + tonumber(amount)
    elseif tonumber(last) >= readAt then sums[2] = sums[2] + tonumber(amount) end
  end
  return sums
end
-- Keeps the hash at least until now + ms.
local function keep(key, ms)
  if redis.call('PTTL', key) < ms then redis.call('PEXPIRE', key, math.max(1, math.ceil(ms))) end
end
`;

// KEYS: key budget hash, account credit hash. ARGV: id, amount, minimum, key room (-1: not
// counted), account room (-1: not counted), ttl, key read at, account read at.
const RESERVE = `${PRELUDE}
local id, take, minimum, ttl = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[6])
local rooms = {tonumber(ARGV[4]), tonumber(ARGV[5])}
local readAt = {tonumber(ARGV[7]), tonumber(ARGV[8])}
local names = {'budget', 'credit'}
for i = 1, 2 do
  if rooms[i] >= 0 then
    local h = held(KEYS[i], readAt[i])
    local left = rooms[i] - h[1] - h[2]
    if left < minimum then return {names[i], string.format('%d', left)} end
    take = math.min(take, left)
  end
end
for i = 1, 2 do
  if rooms[i] >= 0 then
    redis.call('HSET', KEYS[i], id, string.format('%d', take) .. ':' .. (now + ttl))
    keep(KEYS[i], ttl)
  end
end
return {'', string.format('%d', take)}
`;

// KEYS: the hold's hashes. ARGV: id, amount, the bucket's field, its expiry, settled at (epoch ms).
const SETTLE = `${PRELUDE}
local amount, expires, at = tonumber(ARGV[2]), tonumber(ARGV[4]), tonumber(ARGV[5])
for _, key in ipairs(KEYS) do
  redis.call('HDEL', key, ARGV[1])
  local v = redis.call('HGET', key, ARGV[3])
  local sum, keepTo, last = amount, expires, at
  if v then
    local a, e, l = string.match(v, '^(%d+):(%d+):(%d+)$')
    sum = sum + tonumber(a)
    keepTo = math.max(keepTo, tonumber(e))
    last = math.max(last, tonumber(l))
  end
  redis.call('HSET', key, ARGV[3], string.format('%d:%d:%d', sum, keepTo, last))
  keep(key, keepTo - now)
end
return 1
`;

// KEYS: the holds' hashes (one per hold and side). ARGV: ttl, then each KEY's field.
const RENEW = `${PRELUDE}
local ttl = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local v = redis.call('HGET', key, ARGV[i + 1])
  local amount = v and string.match(v, '^(%d+):%d+$')  -- (a bucket has three parts: never renewed)
  if amount then
    redis.call('HSET', key, ARGV[i + 1], amount .. ':' .. (now + ttl))
    keep(key, ttl)
  end
end
return 1
`;

// KEYS: one hash. Returns {reserved, settling}.
const HELD = `${PRELUDE}
local h = held(KEYS[1], 0)
return {string.format('%d', h[1]), string.format('%d', h[2])}
`;

export class RedisSpendState extends RedisBacked implements SpendState {
  private readonly prefix: string;
  private readonly scripts: Record<"reserve" | "settle" | "renew" | "held", LuaCommand>;

  constructor(url: string, prefix: string) {
    super(url);
    this.prefix = `${prefix}spend:`;
    this.scripts = {
      reserve: luaCommand(this.redis, "spendReserve", RESERVE),
      settle: luaCommand(this.redis, "spendSettle", SETTLE),
      renew: luaCommand(this.redis, "spendRenew", RENEW),
      held: luaCommand(this.redis, "spendHeld", HELD),
    };
  }

  async reserveSpend(r: SpendReservation): Promise<SpendDecision> {
    const reply = (await this.scripts.reserve(
      [this.keyHash(r.keyId ?? ""), this.accountHash(r.accountId ?? "")],
      r.id,
      r.amount,
      Math.min(r.minimum ?? r.amount, r.amount),
      r.keyId !== undefined && r.keyRoom !== undefined ? r.keyRoom : -1,
      r.accountId !== undefined && r.accountRoom !== undefined ? r.accountRoom : -1,
      Math.round(r.ttlMs),
      Math.round(r.keyReadAt ?? 0),
      Math.round(r.accountReadAt ?? 0),
    )) as [string, string];
    if (!reply[0]) return { held: Number(reply[1]) };
    return { refused: reply[0] as "budget" | "credit", left: Number(reply[1]) };
  }

  async settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void> {
    const keys = this.hashesOf(h);
    if (keys.length === 0) return;
    const bucket = settledBucket(settledAt);
    const expires = bucket + SETTLED_BUCKET_MS + Math.round(holdMs);
    await this.scripts.settle(keys, h.id, amount, `b:${bucket}`, expires, Math.round(settledAt));
  }

  async releaseSpend(h: SpendHold): Promise<void> {
    const keys = this.hashesOf(h);
    if (keys.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hdel(key, h.id);
    await pipeline.exec();
  }

  async renewSpend(holds: SpendHold[], ttlMs: number): Promise<void> {
    const keys: string[] = [];
    const fields: string[] = [];
    for (const h of holds)
      for (const key of this.hashesOf(h)) {
        keys.push(key);
        fields.push(h.id);
      }
    if (keys.length > 0) await this.scripts.renew(keys, Math.round(ttlMs), ...fields);
  }

  async heldSpend(on: { keyId: string } | { accountId: string }): Promise<HeldSpend> {
    const key = "keyId" in on ? this.keyHash(on.keyId) : this.accountHash(on.accountId);
    const [reserved, settling] = (await this.scripts.held([key])) as [string, string];
    return { reserved: Number(reserved), settling: Number(settling) };
  }

  private hashesOf(h: SpendHold): string[] {
    const keys: string[] = [];
    if (h.keyId !== undefined) keys.push(this.keyHash(h.keyId));
    if (h.accountId !== undefined) keys.push(this.accountHash(h.accountId));
    return keys;
  }

  private keyHash(keyId: string): string {
    return `${this.prefix}key:${keyId}`;
  }

  private accountHash(accountId: string): string {
    return `${this.prefix}account:${accountId}`;
  }
}

// The limits' state in Redis, shared by every gateway that names the same Redis and prefix. Each
// operation is one Lua script (sent by its SHA1: luaCommand, src/routing/redis-client.ts), so a check
// and its take are atomic across processes, and times are Redis's own clock (TIME), so the hosts'
// clocks do not matter. The rule is buckets.ts's, written again in Lua. Like the routing state,
// commands are never queued while Redis is away and each waits a short while at most (RedisBacked):
// the rate limiter then falls back to this process's memory (rate-limiter.ts).

import { type LuaCommand, luaCommand, RedisBacked } from "../routing/redis-client.ts";
import { LEASE_TTL_MS, type LimitName, type TakeRequest, type TakeResult, WINDOW_MS } from "./buckets.ts";
import type { LimitState } from "./limit-state.ts";

const PRELUDE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = ${WINDOW_MS}
local function level(key, limit)
  local v = redis.call('HMGET', key, 'l', 't')
  local l, at = tonumber(v[1]), tonumber(v[2])
  if not l then return limit end
  return math.min(limit, l + (now - at) * limit / window)
end
local function store(key, l, limit)
  redis.call('HSET', key, 'l', tostring(l), 't', now)
  -- Kept until the bucket would be full again (then it is the same as absent).
  redis.call('PEXPIRE', key, math.max(1000, math.ceil((limit - l) * window / limit) + 1000))
end
`;

// KEYS: requests bucket, tokens bucket, leases. ARGV: rpm, tpm, concurrency (0: none), tokens, lease, ttl.
const TAKE = `${PRELUDE}
local rpm, tpm, conc = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tokens, lease, ttl = tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
local rl, tl = 0, 0
if rpm > 0 then rl = level(KEYS[1], rpm) end
if tpm > 0 then tl = level(KEYS[2], tpm) end
if rpm > 0 and rl < 1 then
  return {'rpm', math.ceil((1 - rl) * window / rpm), tostring(rl), tostring(tl)}
end
local need = math.min(tokens, tpm)
if tpm > 0 and tl < need then
  return {'tpm', math.ceil((need - tl) * window / tpm), tostring(rl), tostring(tl)}
end
if conc > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
  if redis.call('ZCARD', KEYS[3]) >= conc then return {'concurrency', 1000, tostring(rl), tostring(tl)} end
  redis.call('ZADD', KEYS[3], now + ttl, lease)
  redis.call('PEXPIRE', KEYS[3], ttl)
end
if rpm > 0 then rl = rl - 1; store(KEYS[1], rl, rpm) end
if tpm > 0 then tl = tl - tokens; store(KEYS[2], tl, tpm) end
return {'', 0, tostring(rl), tostring(tl)}
`;

// KEYS: tokens bucket. ARGV: tpm, tokens to put back.
const RETURN_TOKENS = `${PRELUDE}
local tpm = tonumber(ARGV[1])
store(KEYS[1], math.min(tpm, level(KEYS[1], tpm) + tonumber(ARGV[2])), tpm)
return 1
`;

// KEYS: leases sets. ARGV: ttl, then the lease of each key in order.
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', now + ttl, ARGV[i + 1])
  redis.call('PEXPIRE', key, ttl)
end
return 1
`;

export class RedisLimitState extends RedisBacked implements LimitState {
  private readonly prefix: string;
  private readonly scripts: Record<"take" | "returnTokens" | "renew", LuaCommand>;

  constructor(url: string, prefix: string) {
    super(url);
    this.prefix = `${prefix}limits:`;
    this.scripts = {
      take: luaCommand(this.redis, "limitsTake", TAKE),
      returnTokens: luaCommand(this.redis, "limitsReturnTokens", RETURN_TOKENS),
      renew: luaCommand(this.redis, "limitsRenew", RENEW),
    };
  }

  async take(t: TakeRequest): Promise<TakeResult> {
    const k = this.prefix + t.key;
    const reply = (await this.scripts.take(
      [`${k}:rpm`, `${k}:tpm`, `${k}:leases`],
      t.rpm ?? 0,
      t.tpm ?? 0,
      t.concurrency ?? 0,
      t.tokens,
      t.lease,
      LEASE_TTL_MS,
    )) as [string, number, string, string];
    return {
      refused: (reply[0] || undefined) as LimitName | undefined,
      waitMs: Number(reply[1]),
      requestsLevel: Number(reply[2]),
      tokensLevel: Number(reply[3]),
    };
  }

  async returnTokens(key: string, tpm: number, tokens: number): Promise<void> {
    await this.scripts.returnTokens([`${this.prefix + key}:tpm`], tpm, tokens);
  }

  async release(key: string, lease: string): Promise<void> {
    await this.redis.zrem(`${this.prefix + key}:leases`, lease);
  }

  async renew(leases: Array<{ key: string; lease: string }>): Promise<void> {
    if (leases.length === 0) return;
    await this.scripts.renew(
      leases.map((l) => `${this.prefix + l.key}:leases`),
      LEASE_TTL_MS,
      ...leases.map((l) => l.lease),
    );
  }
}

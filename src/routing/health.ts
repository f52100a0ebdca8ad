// Per-endpoint health over the shared RoutingState: success and error counts, recent latency and
// throughput, a circuit breaker, and the cool-down an upstream asked for with `retry-after`.
//
// Breaker: `failureThreshold` consecutive endpoint faults open it for `cooldownMs` (an expiring
// mark). When the mark expires the breaker is half-open: the next request that reaches the
// endpoint claims the probe (a mark taken only if absent, so one request at a time probes) and is
// let through; a success closes the breaker, a failure opens it again for another cool-down.
//
// State keys (one Redis key each): `stats:<endpoint>` hash, `open:<endpoint>`, `probe:<endpoint>`
// and `cooldown:<endpoint>` marks.

import { GatewayError } from "../ir/errors.ts";
import { isEndpointFault, isRetryable } from "./retryable.ts";
import type { HealthSettings } from "./settings.ts";
import type { RoutingState } from "./state.ts";

export type Availability =
  | { state: "closed" }
  /** The breaker's cool-down is over: one request may probe it, once it holds the probe (`claimProbe`). */
  | { state: "half-open" }
  | { state: "blocked"; reason: "breaker" | "retry-after"; forMs: number };

/** What is known of an endpoint. Latency figures are absent until measured, or once stale. */
export interface EndpointStats {
  ok: number;
  errors: number;
  consecutiveFailures: number;
  /** Recent time to first token of streamed answers, ms (moving average). */
  ttftMs?: number;
  /** Recent time to a whole non-streamed answer, ms (moving average). */
  durationMs?: number;
  /** Recent output tokens per second after the first token (moving average). */
  tokensPerSecond?: number;
}

/** One finished generation's timings, for the moving averages. */
export interface LatencySample {
  ttftMs?: number;
  durationMs?: number;
  tokensPerSecond?: number;
}

/** Weight of the newest sample in the moving averages: recent behaviour dominates within ~5 samples. */
const ALPHA = 0.3;
/** Longest cool-down a `retry-after` may impose, so one odd header cannot park an endpoint for hours. */
const MAX_RETRY_AFTER_MS = 600_000;

const SAMPLE_FIELDS = {
  ttftMs: ["ttft_ms", "ttft_at"],
  durationMs: ["duration_ms", "duration_at"],
  tokensPerSecond: ["tps", "tps_at"],
} as const;

export class EndpointHealth {
  private readonly state: RoutingState;
  private readonly settings: HealthSettings;
  private readonly now: () => number;

  constructor(state: RoutingState, settings: HealthSettings, opts: { now?: () => number } = {}) {
    this.state = state;
    this.settings = settings;
    this.now = opts.now ?? Date.now;
  }

  async availability(endpoint: string): Promise<Availability> {
    const coolingFor = await this.state.markedFor(`cooldown:${endpoint}`);
    if (coolingFor > 0) return { state: "blocked", reason: "retry-after", forMs: coolingFor };
    const failures = (await this.state.readHash(`stats:${endpoint}`)).failures ?? 0;
    if (failures < this.settings.failureThreshold) return { state: "closed" };
    const openFor = await this.state.markedFor(`open:${endpoint}`);
    if (openFor > 0) return { state: "blocked", reason: "breaker", forMs: openFor };
    const probingFor = await this.state.markedFor(`probe:${endpoint}`);
    if (probingFor > 0) return { state: "blocked", reason: "breaker", forMs: probingFor };
    return { state: "half-open" };
  }

  /** Takes the half-open probe; false when another request holds it. */
  claimProbe(endpoint: string): Promise<boolean> {
    // Held at most one cool-down: a probe that never reports back cannot block the endpoint forever.
    return this.state.mark(`probe:${endpoint}`, this.settings.cooldownMs, { onlyIfAbsent: true });
  }

  /** Gives back a probe that was claimed but not used (the request was answered by another endpoint). */
  async releaseProbe(endpoint: string): Promise<void> {
    await this.state.unmark(`probe:${endpoint}`);
  }

  /** The endpoint answered: the breaker closes. */
  async succeeded(endpoint: string): Promise<void> {
    await this.state.addToHash(`stats:${endpoint}`, { ok: 1 });
    await this.state.setInHash(`stats:${endpoint}`, { failures: 0 });
    await this.state.unmark(`open:${endpoint}`);
    await this.state.unmark(`probe:${endpoint}`);
  }

  /**
   * The endpoint failed (before or after its first byte). The request's own faults (a 400…) and
   * cancellations say nothing about the endpoint and are not counted.
   */
  async failed(endpoint: string, error: unknown): Promise<void> {
    const retryAfterMs =
      error instanceof GatewayError && error.retryAfter !== undefined && error.retryAfter > 0
        ? Math.min(error.retryAfter * 1000, MAX_RETRY_AFTER_MS)
        : 0;
    if (retryAfterMs > 0) await this.state.mark(`cooldown:${endpoint}`, retryAfterMs);
    if (!isRetryable(error)) return;
    if (!isEndpointFault(error)) {
      await this.state.addToHash(`stats:${endpoint}`, { errors: 1 });
      return;
    }
    const { failures } = await this.state.addToHash(`stats:${endpoint}`, { errors: 1, failures: 1 });
    if (failures >= this.settings.failureThreshold) {
      await this.state.mark(`open:${endpoint}`, this.settings.cooldownMs);
      await this.state.unmark(`probe:${endpoint}`);
    }
  }

  /** Folds a finished generation's timings into the endpoint's moving averages. */
  async recordLatency(endpoint: string, sample: LatencySample): Promise<void> {
    const hash = await this.state.readHash(`stats:${endpoint}`);
    const now = this.now();
    const update: Record<string, number> = {};
    for (const [name, [field, at]] of Object.entries(SAMPLE_FIELDS)) {
      const value = sample[name as keyof LatencySample];
      if (value === undefined || !Number.isFinite(value) || value < 0) continue;
      const previous = this.fresh(hash, field, at, now);
      update[field] = previous === undefined ? value : previous * (1 - ALPHA) + value * ALPHA;
      update[at] = now;
    }
    // Last writer wins between processes: losing one sample of a moving average is harmless.
    if (Object.keys(update).length > 0) await this.state.setInHash(`stats:${endpoint}`, update);
  }

  async stats(endpoint: string): Promise<EndpointStats> {
    const hash = await this.state.readHash(`stats:${endpoint}`);
    const now = this.now();
    return {
      ok: hash.ok ?? 0,
      errors: hash.errors ?? 0,
      consecutiveFailures: hash.failures ?? 0,
      ttftMs: this.fresh(hash, ...SAMPLE_FIELDS.ttftMs, now),
      durationMs: this.fresh(hash, ...SAMPLE_FIELDS.durationMs, now),
      tokensPerSecond: this.fresh(hash, ...SAMPLE_FIELDS.tokensPerSecond, now),
    };
  }

  private fresh(hash: Record<string, number>, field: string, at: string, now: number): number | undefined {
    const value = hash[field];
    const measuredAt = hash[at];
    if (value === undefined || measuredAt === undefined) return undefined;
    return now - measuredAt <= this.settings.statsTtlMs ? value : undefined;
  }
}

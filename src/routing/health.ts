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

/** Each latency figure: its name in a sample, its field in the hash, and the field of its time. */
const SAMPLE_FIELDS = [
  ["ttftMs", "ttft_ms", "ttft_at"],
  ["durationMs", "duration_ms", "duration_at"],
  ["tokensPerSecond", "tps", "tps_at"],
] as const;

/** Counts an answer; adding 0 to the failure count reads it in the same operation. */
const COUNT_SUCCESS: Readonly<Record<string, number>> = Object.freeze({ ok: 1, failures: 0 });

/** Shared by every reading of a closed breaker (readings are only ever replaced, never changed). */
const CLOSED: Availability = Object.freeze({ state: "closed" });

/** An endpoint's keys in the state, built once per endpoint rather than on every operation. */
interface StateKeys {
  stats: string;
  open: string;
  probe: string;
  cooldown: string;
}

/** What one look at an endpoint found (see `read`). */
export interface EndpointReading {
  availability: Availability;
  /**
   * The `stats` hash as read: `statsOf` makes EndpointStats of it when a strategy needs them, and a
   * success is folded into it without reading it again (`succeeded`).
   */
  hash: Readonly<Record<string, number>>;
}

/** What the request that an endpoint answered knew of it when it was planned. */
export interface PlannedView {
  /** The request holds the endpoint's half-open probe. */
  probe?: boolean;
  /** The endpoint's `stats` hash as the plan read it (absent: it is read again when needed). */
  statsAtPlan?: Readonly<Record<string, number>>;
}

/**
 * A half-open probe one request holds, given back at most once: the one handle every path that may
 * free it goes through (the plan leaving its endpoint out, an untried endpoint, a client that left,
 * a cancelled answer), so no path frees a probe another request has claimed since.
 */
export class ProbeClaim {
  readonly endpoint: string;
  private readonly health: EndpointHealth;
  private held = true;

  constructor(health: EndpointHealth, endpoint: string) {
    this.health = health;
    this.endpoint = endpoint;
  }

  /** Gives the probe back unused; nothing once it was given back or spent. */
  async release(): Promise<void> {
    if (!this.held) return;
    this.held = false;
    await this.health.releaseProbe(this.endpoint);
  }

  /** The probe was used: its outcome (succeeded / failed) settles the marks, nothing is given back. */
  spent(): void {
    this.held = false;
  }
}

/** An endpoint failure this process saw, for operators (the admin API's provider health). */
export interface RecentError {
  endpoint: string;
  /** Epoch ms. */
  at: number;
  status?: number;
  message: string;
}

/** How many recent failures this process keeps (a ring: the oldest go first). */
const RECENT_ERRORS = 50;

export class EndpointHealth {
  /** This process's latest endpoint failures, newest last; not shared between processes. */
  readonly recentErrors: RecentError[] = [];
  private readonly state: RoutingState;
  private readonly settings: HealthSettings;
  private readonly now: () => number;
  /** Per endpoint key; as many entries as the catalog has endpoints. */
  private readonly keys = new Map<string, StateKeys>();

  constructor(state: RoutingState, settings: HealthSettings, opts: { now?: () => number } = {}) {
    this.state = state;
    this.settings = settings;
    this.now = opts.now ?? Date.now;
  }

  /**
   * Everything routing needs to know of an endpoint, in as few state operations as possible: the
   * cool-down mark and the statistics hash (read together), and the breaker's marks only when the
   * count of consecutive failures says the breaker may be open.
   */
  async read(endpoint: string): Promise<EndpointReading> {
    const keys = this.keysOf(endpoint);
    const [coolingFor, hash] = await Promise.all([
      this.state.markedFor(keys.cooldown),
      this.state.readHash(keys.stats),
    ]);
    return { availability: await this.availabilityFrom(keys, coolingFor, hash), hash };
  }

  async availability(endpoint: string): Promise<Availability> {
    return (await this.read(endpoint)).availability;
  }

  async stats(endpoint: string): Promise<EndpointStats> {
    return this.statsOf(await this.state.readHash(this.keysOf(endpoint).stats));
  }

  /** The statistics in a `stats` hash (see `read`); latency figures only while fresh. */
  statsOf(hash: Readonly<Record<string, number>>): EndpointStats {
    const now = this.now();
    return {
      ok: hash.ok ?? 0,
      errors: hash.errors ?? 0,
      consecutiveFailures: hash.failures ?? 0,
      ttftMs: this.fresh(hash, "ttft_ms", "ttft_at", now),
      durationMs: this.fresh(hash, "duration_ms", "duration_at", now),
      tokensPerSecond: this.fresh(hash, "tps", "tps_at", now),
    };
  }

  /** Takes the half-open probe; false when another request holds it. */
  claimProbe(endpoint: string): Promise<boolean> {
    // Held at most one cool-down: a probe that never reports back cannot block the endpoint forever.
    return this.state.mark(this.keysOf(endpoint).probe, this.settings.cooldownMs, { onlyIfAbsent: true });
  }

  /** Gives back a probe that was claimed but not used (the request was answered by another endpoint). */
  async releaseProbe(endpoint: string): Promise<void> {
    await this.state.unmark(this.keysOf(endpoint).probe);
  }

  /**
   * The endpoint answered: it is counted, its breaker closes, and the answer's timings (when given)
   * feed the moving averages. A closed breaker, the common case, costs one counting operation and
   * at most one write: the failure count comes back from the counting itself, and the averages
   * start from the statistics the plan read (`planned.statsAtPlan`).
   */
  async succeeded(endpoint: string, sample?: LatencySample, planned: PlannedView = {}): Promise<void> {
    const keys = this.keysOf(endpoint);
    const { failures } = await this.state.addToHash(keys.stats, COUNT_SUCCESS);
    const timed = sample !== undefined && hasValidFigure(sample);
    const hash = timed ? (planned.statsAtPlan ?? (await this.state.readHash(keys.stats))) : undefined;
    const update = this.successUpdate(failures, sample, hash);
    if (update) await this.state.setInHash(keys.stats, update);
    if (this.clearsBreaker(failures, planned)) {
      await this.state.unmark(keys.open);
      await this.state.unmark(keys.probe);
    }
  }

  /**
   * What a success writes to the statistics, from the failure count its counting returned: the
   * count reset, and the sample folded into `hash` (the statistics, read when the sample is timed);
   * undefined when there is nothing to write. Last writer wins between processes: losing one
   * sample of a moving average is harmless.
   */
  private successUpdate(
    failures: number,
    sample: LatencySample | undefined,
    hash: Readonly<Record<string, number>> | undefined,
  ): Record<string, number> | undefined {
    if (failures <= 0 && hash === undefined) return undefined;
    const update: Record<string, number> = {};
    if (failures > 0) update.failures = 0;
    if (hash !== undefined && sample !== undefined) this.foldLatency(hash, sample, update);
    return update;
  }

  /**
   * The breaker's marks are only ever set while the failures reach the threshold (open, and the
   * probe claimed when it expires), or held by this very request (a probe claimed as the count was
   * being reset by another success): otherwise there is nothing to clear.
   */
  private clearsBreaker(failures: number, planned: PlannedView): boolean {
    return failures >= this.settings.failureThreshold || planned.probe === true;
  }

  /**
   * The endpoint failed (before or after its first byte). The request's own faults (a 400…) and
   * cancellations say nothing about the endpoint and are not counted.
   */
  async failed(endpoint: string, error: unknown): Promise<void> {
    this.remember(endpoint, error);
    const keys = this.keysOf(endpoint);
    const retryAfterMs =
      error instanceof GatewayError && error.retryAfter !== undefined && error.retryAfter > 0
        ? Math.min(error.retryAfter * 1000, MAX_RETRY_AFTER_MS)
        : 0;
    if (retryAfterMs > 0) await this.state.mark(keys.cooldown, retryAfterMs);
    if (!isRetryable(error)) return;
    if (!isEndpointFault(error)) {
      await this.state.addToHash(keys.stats, { errors: 1 });
      return;
    }
    const { failures } = await this.state.addToHash(keys.stats, { errors: 1, failures: 1 });
    if (failures >= this.settings.failureThreshold) {
      await this.state.mark(keys.open, this.settings.cooldownMs);
      await this.state.unmark(keys.probe);
    }
  }

  private remember(endpoint: string, error: unknown): void {
    const status = error instanceof GatewayError ? error.status : undefined;
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    this.recentErrors.push({ endpoint, at: this.now(), status, message });
    if (this.recentErrors.length > RECENT_ERRORS) this.recentErrors.shift();
  }

  /** Folds a finished generation's timings into the endpoint's moving averages. */
  async recordLatency(endpoint: string, sample: LatencySample): Promise<void> {
    if (!hasValidFigure(sample)) return;
    const keys = this.keysOf(endpoint);
    const update: Record<string, number> = {};
    this.foldLatency(await this.state.readHash(keys.stats), sample, update);
    // Last writer wins between processes: losing one sample of a moving average is harmless.
    await this.state.setInHash(keys.stats, update);
  }

  /** Writes into `update` the moving averages of `hash` with the sample's valid figures folded in. */
  private foldLatency(
    hash: Readonly<Record<string, number>>,
    sample: LatencySample,
    update: Record<string, number>,
  ): void {
    const now = this.now();
    for (const [name, field, at] of SAMPLE_FIELDS) {
      const value = sample[name];
      if (!isValidFigure(value)) continue;
      const previous = this.fresh(hash, field, at, now);
      update[field] = previous === undefined ? value : previous * (1 - ALPHA) + value * ALPHA;
      update[at] = now;
    }
  }

  /**
   * The cool-down and the failure count decide alone in the common case; the breaker's marks are
   * read only when the failures say it may be open.
   */
  private async availabilityFrom(
    keys: StateKeys,
    coolingFor: number,
    hash: Readonly<Record<string, number>>,
  ): Promise<Availability> {
    if (coolingFor > 0) return { state: "blocked", reason: "retry-after", forMs: coolingFor };
    if ((hash.failures ?? 0) < this.settings.failureThreshold) return CLOSED;
    const openFor = await this.state.markedFor(keys.open);
    if (openFor > 0) return { state: "blocked", reason: "breaker", forMs: openFor };
    const probingFor = await this.state.markedFor(keys.probe);
    if (probingFor > 0) return { state: "blocked", reason: "breaker", forMs: probingFor };
    return { state: "half-open" };
  }

  private fresh(
    hash: Readonly<Record<string, number>>,
    field: string,
    at: string,
    now: number,
  ): number | undefined {
    const value = hash[field];
    const measuredAt = hash[at];
    if (value === undefined || measuredAt === undefined) return undefined;
    return now - measuredAt <= this.settings.statsTtlMs ? value : undefined;
  }

  private keysOf(endpoint: string): StateKeys {
    let keys = this.keys.get(endpoint);
    if (!keys) {
      keys = {
        stats: `stats:${endpoint}`,
        open: `open:${endpoint}`,
        probe: `probe:${endpoint}`,
        cooldown: `cooldown:${endpoint}`,
      };
      this.keys.set(endpoint, keys);
    }
    return keys;
  }
}

function isValidFigure(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value) && value >= 0;
}

function hasValidFigure(sample: LatencySample): boolean {
  return (
    isValidFigure(sample.ttftMs) || isValidFigure(sample.durationMs) || isValidFigure(sample.tokensPerSecond)
  );
}

// Runs a plan: tries each planned endpoint in turn until one answers. A retryable failure (retryable.ts)
// moves on to the next; any other failure, or the client going away, ends the run at once.
//
// Each attempt gets its own abort signal, tied to the client's: a failed attempt is aborted so its
// connection is released at once, and `firstByteMs` (streams) bounds the wait for the first piece,
// however the upstream spends it (slow connect, slow headers, headers then silence).

import { GatewayError } from "../ir/errors.ts";
import type { EndpointHealth } from "./health.ts";
import type { PlannedAttempt } from "./plan.ts";
import { isRetryable } from "./retryable.ts";

/** What the generation record needs to know as attempts are made. */
export interface AttemptReport {
  /** Attempts made so far, this one included (requestRetryTimes = attempts − 1). */
  attempts: number;
  attempt: PlannedAttempt;
  /**
   * finalRetry: true when this attempt is the last one the plan allows, so that no endpoint would
   * be tried after it whatever happens; false while planned fallbacks remain (they stay untried
   * when this attempt answers, or fails with an error that is not retried).
   */
  final: boolean;
}

export interface Answered<T> {
  value: T;
  attempt: PlannedAttempt;
  /** The attempt's signal: aborted when the client goes away. Keep using it for the rest of the answer. */
  signal: AbortSignal;
  /** performance.now() when the answering attempt began. */
  startedAt: number;
}

export interface RunOptions {
  /** The client's signal. */
  signal: AbortSignal;
  /** Bound on the wait for the first piece of an attempt, per endpoint (undefined: none). */
  firstByteMs?(attempt: PlannedAttempt): number | undefined;
  onAttempt?(report: AttemptReport): void;
}

export async function runAttempts<T>(
  plan: PlannedAttempt[],
  health: EndpointHealth,
  opts: RunOptions,
  call: (attempt: PlannedAttempt, signal: AbortSignal) => Promise<T>,
): Promise<Answered<T>> {
  let lastError: unknown;
  let tried = 0;
  try {
    for (let i = 0; i < plan.length; i++) {
      const attempt = plan[i];
      tried = i + 1;
      opts.onAttempt?.({ attempts: i + 1, attempt, final: i === plan.length - 1 });
      const outcome = await tryOne(attempt, health, opts, call);
      if (!(outcome instanceof Failed)) return outcome;
      lastError = outcome.error;
      if (!isRetryable(outcome.error)) throw outcome.error;
    }
  } finally {
    // Probes held for endpoints this request never reached go back at once.
    for (let i = tried; i < plan.length; i++) await plan[i].claim?.release().catch(ignore);
  }
  throw lastError;
}

/** An attempt that failed (and was recorded against its endpoint). */
class Failed {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

const ONCE = { once: true } as const;

/** One attempt; a failure comes back as a value (recorded against the endpoint), a client abort is thrown. */
async function tryOne<T>(
  attempt: PlannedAttempt,
  health: EndpointHealth,
  opts: RunOptions,
  call: (attempt: PlannedAttempt, signal: AbortSignal) => Promise<T>,
): Promise<Answered<T> | Failed> {
  // The attempt's own signal: aborted by its first-byte timer, its failure, or the client leaving.
  // (A listener on the request's signal is much cheaper than AbortSignal.any, which the profile showed
  // on every request; both live as long as the request.)
  const own = new AbortController();
  const signal = own.signal;
  if (opts.signal.aborted) own.abort(opts.signal.reason);
  else opts.signal.addEventListener("abort", () => own.abort(opts.signal.reason), ONCE);
  const limit = opts.firstByteMs?.(attempt);
  let timedOut = false;
  const timer =
    limit === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          own.abort(new Error("first byte timeout"));
        }, limit);
  const startedAt = performance.now();
  try {
    const value = await call(attempt, signal);
    // Success is recorded when the whole answer has come (Router.finished): a stream that breaks
    // midway is a failure of this endpoint, not a success.
    return { value, attempt, signal, startedAt };
  } catch (err) {
    if (opts.signal.aborted) {
      // The client left: that says nothing of the endpoint, and its probe is free again.
      await attempt.claim?.release().catch(ignore);
      throw err;
    }
    const error = timedOut
      ? new GatewayError(
          "timeout",
          `Provider '${attempt.endpoint.provider}' did not start answering within ${limit} ms.`,
          { status: 504 },
        )
      : err;
    own.abort(new Error("attempt failed"));
    attempt.claim?.spent();
    await health.failed(attempt.key, error).catch(ignore);
    return new Failed(error);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** Routing statistics are best effort: a failed write must never fail a generation. */
function ignore(): void {}

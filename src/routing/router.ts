// The pipeline's one door into routing: plan a request's attempts, run them, and report how the
// answering endpoint's generation went. Everything shared between gateway processes (counters,
// statistics, breaker marks) lives in the RoutingState.

import type { CatalogModel } from "../catalog/types.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import type { Request } from "../ir/request.ts";
import { type Answered, type RunOptions, runAttempts } from "./attempts.ts";
import { type RoutingChoice, routingChoice } from "./choice.ts";
import { orderModels } from "./factors.ts";
import {
  type Availability,
  EndpointHealth,
  type EndpointReading,
  type EndpointStats,
  type LatencySample,
  ProbeClaim,
} from "./health.ts";
import { type Candidate, candidatesOf, type PlanFacts, type PlannedAttempt, planAttempts } from "./plan.ts";
import { DEFAULT_ROUTING, type RoutingSettings } from "./settings.ts";
import { MemoryRoutingState, type RoutingState } from "./state.ts";

/** How the router finds the models named in `model_routing_config` (the gateway's ModelIndex). */
export interface ModelLookup {
  resolve(name: string, opts: { param?: string }): CatalogModel;
}

export class Router {
  readonly health: EndpointHealth;
  private readonly models: ModelLookup;
  private readonly settings: RoutingSettings;
  private readonly state: RoutingState;

  constructor(opts: {
    models: ModelLookup;
    settings?: RoutingSettings;
    state?: RoutingState;
    now?: () => number;
  }) {
    this.models = opts.models;
    this.settings = opts.settings ?? DEFAULT_ROUTING;
    this.state = opts.state ?? new MemoryRoutingState({ now: opts.now });
    this.health = new EndpointHealth(this.state, this.settings.health, { now: opts.now });
  }

  /** The endpoints to try for this request, in order (never empty). */
  async plan(request: Pick<Request, "routing">, model: CatalogModel): Promise<PlannedAttempt[]> {
    const choice = routingChoice(request.routing, model, this.settings.defaults);
    const { groups, outside, preferred } = this.candidates(model, choice);
    if (groups.length === 0) {
      if (choice.providersFromRequest)
        throw invalid("provider.routing.providers", `none of these providers serves '${model.id}'`);
      throw new GatewayError(
        "overloaded",
        `No provider allowed by the routing configuration serves '${model.id}'.`,
      );
    }

    const keys = endpointKeys(groups, outside);
    const facts = await this.gatherHealth(keys);
    let plan: PlannedAttempt[] = [];
    try {
      if (choice.type === "round_robin") facts.turn = await this.state.increment(`rr:${model.id}`);
      plan = planAttempts(inModelOrder(groups, choice, preferred, facts), choice, facts, outside);
      return plan;
    } finally {
      // Probes of endpoints the plan left out (fallback "false", a named provider) go back.
      if (facts.probes)
        for (const claim of facts.probes.values())
          if (!plan.some((p) => p.claim === claim)) await claim.release();
    }
  }

  /**
   * The candidates per model (the requested one, then the preference and the available models),
   * those of providers outside `providers` apart. Without either, just the model's own, as they are.
   */
  private candidates(
    model: CatalogModel,
    choice: RoutingChoice,
  ): { groups: Candidate[][]; outside?: Candidate[]; preferred?: string } {
    const allowed = choice.providers;
    const { models, preferred } = this.modelsFor(model, choice.preference, choice.availableModels);
    const groups: Candidate[][] = [];
    if (!allowed) {
      for (const m of models) {
        const candidates = candidatesOf(m);
        if (candidates.length > 0) groups.push(candidates);
      }
      return { groups, preferred };
    }
    const outside: Candidate[] = [];
    for (const m of models) {
      const inside: Candidate[] = [];
      for (const c of candidatesOf(m)) (allowed.includes(c.endpoint.provider) ? inside : outside).push(c);
      if (inside.length > 0) groups.push(inside);
    }
    return { groups, outside, preferred };
  }

  /**
   * What health says of each endpoint, each read once. A half-open endpoint takes one probe at a
   * time: this request claims it (and then holds it), or else sees the endpoint as blocked.
   */
  private async gatherHealth(keys: string[]): Promise<HealthFacts> {
    // (Most models have one endpoint: no need to gather one promise.)
    const readings =
      keys.length === 1
        ? [await this.health.read(keys[0])]
        : await Promise.all(keys.map((k) => this.health.read(k)));
    const facts = new HealthFacts(this.health);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const reading = readings[i];
      facts.readings.set(key, reading);
      if (reading.availability.state !== "half-open") continue;
      if (await this.health.claimProbe(key)) facts.holdProbe(new ProbeClaim(this.health, key));
      else
        reading.availability = {
          state: "blocked",
          reason: "breaker",
          forMs: this.settings.health.cooldownMs,
        };
    }
    return facts;
  }

  /** Tries the plan until an endpoint answers (see attempts.ts). */
  run<T>(
    plan: PlannedAttempt[],
    opts: RunOptions,
    call: (attempt: PlannedAttempt, signal: AbortSignal) => Promise<T>,
  ): Promise<Answered<T>> {
    return runAttempts(plan, this.health, opts, call);
  }

  /**
   * The answering endpoint's generation has ended: a whole answer closes its breaker and its
   * timings feed the latency statistics; a failure after the first byte (a stream cut or stalled
   * midway) counts against it; a client that went away says nothing of the endpoint (a probe the
   * request held is given back).
   */
  async finished(
    answered: Answered<unknown>,
    outcome: { failure: unknown } | { sample: LatencySample } | { cancelled: true },
  ) {
    const { key, claim } = answered.attempt;
    if ("cancelled" in outcome) {
      await claim?.release();
      return;
    }
    claim?.spent();
    if ("failure" in outcome) {
      await this.health.failed(key, outcome.failure);
      return;
    }
    await this.health.succeeded(key, outcome.sample, answered.attempt);
  }

  /** The requested model, then the preference and the available models, each once. */
  private modelsFor(
    model: CatalogModel,
    preference: string | undefined,
    available: string[],
  ): { models: CatalogModel[]; preferred?: string } {
    if (preference === undefined && available.length === 0) return { models: [model] };
    const models = [model];
    const add = (name: string, param: string) => {
      const found = this.models.resolve(name, { param });
      if (!models.some((m) => m.id === found.id)) models.push(found);
      return found.id;
    };
    const preferred = preference ? add(preference, "model_routing_config.preference") : undefined;
    available.forEach((name, i) => {
      add(name, `model_routing_config.available_models[${i}]`);
    });
    return { models, preferred };
  }
}

/** Each endpoint the plan may use, once. */
function endpointKeys(groups: Candidate[][], outside?: Candidate[]): string[] {
  const keys: string[] = [];
  for (const group of groups) for (const c of group) if (!keys.includes(c.key)) keys.push(c.key);
  if (outside) for (const c of outside) if (!keys.includes(c.key)) keys.push(c.key);
  return keys;
}

/** The models' groups in the order `primary_factor` and `preference` say (one group stays as it is). */
function inModelOrder(
  groups: Candidate[][],
  choice: RoutingChoice,
  preferred: string | undefined,
  facts: PlanFacts,
): Candidate[][] {
  if (groups.length === 1) return groups;
  const groupOf = new Map(groups.map((group) => [group[0].model, group]));
  const throughputOf = (m: CatalogModel) => {
    let best: number | undefined;
    for (const c of groupOf.get(m) ?? []) {
      const tps = facts.stats(c.key).tokensPerSecond;
      if (tps !== undefined && (best === undefined || tps > best)) best = tps;
    }
    return best;
  };
  const ordered = orderModels([...groupOf.keys()], choice.primaryFactor, {
    preference: preferred,
    throughputOf,
  });
  return ordered.map((m) => groupOf.get(m)!);
}

/** What this request learned of its endpoints' health: the facts its plan is decided from. */
class HealthFacts implements PlanFacts {
  /** Per endpoint key, with its statistics once a strategy has asked for them. */
  readonly readings = new Map<string, EndpointReading & { stats?: EndpointStats }>();
  /** The half-open probes this request claimed, by endpoint. */
  probes: Map<string, ProbeClaim> | undefined;
  turn = 1;
  private readonly health: EndpointHealth;

  constructor(health: EndpointHealth) {
    this.health = health;
  }

  holdProbe(claim: ProbeClaim): void {
    this.probes ??= new Map();
    this.probes.set(claim.endpoint, claim);
  }

  claimOf(key: string): ProbeClaim | undefined {
    return this.probes?.get(key);
  }

  /** Worked out on demand: the default strategy never looks at them. */
  stats(key: string): EndpointStats {
    const reading = this.readings.get(key)!;
    reading.stats ??= this.health.statsOf(reading.hash);
    return reading.stats;
  }
  availability(key: string): Availability {
    return this.readings.get(key)!.availability;
  }
  statsHash(key: string): Readonly<Record<string, number>> {
    return this.readings.get(key)!.hash;
  }
}

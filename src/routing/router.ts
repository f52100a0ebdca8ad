// The pipeline's one door into routing: plan a request's attempts, run them, and report how the
// answering endpoint's generation went. Everything shared between gateway processes (counters,
// statistics, breaker marks) lives in the RoutingState.

import type { CatalogModel } from "../catalog/types.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import type { Request } from "../ir/request.ts";
import { type Answered, type RunOptions, runAttempts } from "./attempts.ts";
import { routingChoice } from "./choice.ts";
import { orderModels } from "./factors.ts";
import { type Availability, EndpointHealth, type EndpointStats, type LatencySample } from "./health.ts";
import { type Candidate, candidatesOf, type PlannedAttempt, planAttempts } from "./plan.ts";
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
  async plan(request: Request, model: CatalogModel): Promise<PlannedAttempt[]> {
    const choice = routingChoice(request.routing, model, this.settings.defaults);
    const allowed = choice.providers;
    const groups = new Map<CatalogModel, Candidate[]>();
    const outside: Candidate[] = [];
    const { models, preferred } = this.modelsFor(model, choice.preference, choice.availableModels);
    for (const m of models) {
      const candidates = candidatesOf(m);
      const inside = allowed ? candidates.filter((c) => allowed.includes(c.endpoint.provider)) : candidates;
      outside.push(...candidates.filter((c) => !inside.includes(c)));
      if (inside.length > 0) groups.set(m, inside);
    }
    if (groups.size === 0) {
      if (choice.providersFromRequest)
        throw invalid("provider.routing.providers", `none of these providers serves '${model.id}'`);
      throw new GatewayError(
        "overloaded",
        `No provider allowed by the routing configuration serves '${model.id}'.`,
      );
    }

    const keys = new Set([...[...groups.values()].flat(), ...outside].map((c) => c.key));
    const { stats, availability, probes } = await this.gatherHealth(keys);
    const throughputOf = (m: CatalogModel) => {
      const measured = (groups.get(m) ?? []).flatMap((c) => stats.get(c.key)?.tokensPerSecond ?? []);
      return measured.length > 0 ? Math.max(...measured) : undefined;
    };
    const ordered = orderModels([...groups.keys()], choice.primaryFactor, {
      preference: preferred,
      throughputOf,
    });
    const turn = choice.type === "round_robin" ? await this.state.increment(`rr:${model.id}`) : 1;
    const facts = {
      stats: (key: string) => stats.get(key)!,
      availability: (key: string) => availability.get(key)!,
      turn,
    };
    let plan: PlannedAttempt[] = [];
    try {
      plan = planAttempts(
        ordered.map((m) => groups.get(m)!),
        choice,
        facts,
        outside,
      );
      return plan;
    } finally {
      // Probes of endpoints the plan left out (fallback "false", a named provider) go back.
      for (const key of probes) if (!plan.some((p) => p.key === key)) await this.health.releaseProbe(key);
    }
  }

  /**
   * What health says of each endpoint. A half-open endpoint takes one probe at a time: this request
   * claims it (and then holds it), or else sees the endpoint as blocked.
   */
  private async gatherHealth(keys: Set<string>) {
    const stats = new Map<string, EndpointStats>();
    const availability = new Map<string, Availability>();
    await Promise.all(
      [...keys].map(async (key) => {
        stats.set(key, await this.health.stats(key));
        availability.set(key, await this.health.availability(key));
      }),
    );
    const probes: string[] = [];
    for (const [key, a] of availability) {
      if (a.state !== "half-open") continue;
      if (await this.health.claimProbe(key)) probes.push(key);
      else
        availability.set(key, {
          state: "blocked",
          reason: "breaker",
          forMs: this.settings.health.cooldownMs,
        });
    }
    return { stats, availability, probes };
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
    const key = answered.attempt.key;
    if ("cancelled" in outcome) {
      if (answered.attempt.probe) await this.health.releaseProbe(key);
      return;
    }
    if ("failure" in outcome) {
      await this.health.failed(key, outcome.failure);
      return;
    }
    await this.health.succeeded(key);
    await this.health.recordLatency(key, outcome.sample);
  }

  /** The requested model, then the preference and the available models, each once. */
  private modelsFor(
    model: CatalogModel,
    preference: string | undefined,
    available: string[],
  ): { models: CatalogModel[]; preferred?: string } {
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

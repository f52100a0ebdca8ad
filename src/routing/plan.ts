// The ordered attempts for one request (docs/architecture.md §7), decided from facts already gathered: no I/O
// here, so every rule is testable on its own.
//
// 1. Each model's endpoints are ordered by the strategy (strategies.ts); the models come in the
//    order the router chose (the requested one, or `preference` and `primary_factor`, factors.ts).
// 2. Health: endpoints whose breaker is open or that asked for a `retry-after` pause are left out,
//    unless every candidate is in that state: then they are all kept, the one free soonest first
//    (an answer from a struggling endpoint beats an error of our own). A half-open endpoint is in
//    the facts only when this request holds its probe; otherwise it is reported as blocked.
// 3. `fallback`: "true" keeps them all, "false" keeps the first, a provider id keeps the first
//    endpoint of another provider and then that provider's endpoint (and nothing else).

import type { CatalogModel, Endpoint } from "../catalog/types.ts";
import { invalid } from "../ir/errors.ts";
import type { RoutingChoice } from "./choice.ts";
import type { Availability, EndpointStats, ProbeClaim } from "./health.ts";
import { orderEndpoints } from "./strategies.ts";

/** One endpoint of one model: a place the request can go. */
export interface Candidate {
  model: CatalogModel;
  endpoint: Endpoint;
  /** The endpoint's key in the routing state. */
  key: string;
}

export interface PlannedAttempt extends Candidate {
  /** The endpoint's breaker is half-open and this request holds its probe (given back if untried). */
  probe: boolean;
  /** The held probe's handle, through which it is given back (once) or spent. */
  claim?: ProbeClaim;
  /** The endpoint's statistics hash as the plan read it: its success is folded in without a new read. */
  statsAtPlan?: Readonly<Record<string, number>>;
}

export interface PlanFacts {
  stats(key: string): EndpointStats;
  availability(key: string): Availability;
  /** The statistics hash read for the endpoint, carried in its attempt (see PlannedAttempt). */
  statsHash?(key: string): Readonly<Record<string, number>>;
  /** The round-robin turn of this request (from 1). */
  turn: number;
  /** The probe this request holds for the endpoint, if it claimed one. */
  claimOf?(key: string): ProbeClaim | undefined;
}

export function endpointKey(endpoint: Endpoint): string {
  return `${endpoint.provider}|${endpoint.model}`;
}

/** Built once per catalog record (records are never changed, only replaced). */
const candidatesByModel = new WeakMap<CatalogModel, Candidate[]>();

/** The model's endpoints as candidates. Shared between requests: frozen, so nobody changes them. */
export function candidatesOf(model: CatalogModel): Candidate[] {
  let candidates = candidatesByModel.get(model);
  if (!candidates) {
    candidates = Object.freeze(
      model.endpoints.map((endpoint) => ({ model, endpoint, key: endpointKey(endpoint) })),
    ) as Candidate[];
    candidatesByModel.set(model, candidates);
  }
  return candidates;
}

const NO_CANDIDATES: Candidate[] = Object.freeze([]) as unknown as Candidate[];

/**
 * @param groups  per model, in model order, the endpoints allowed by `providers` (none empty)
 * @param outside endpoints `providers` left out: a fallback provider named explicitly may be there
 */
export function planAttempts(
  groups: Candidate[][],
  choice: RoutingChoice,
  facts: PlanFacts,
  outside: Candidate[] = NO_CANDIDATES,
): PlannedAttempt[] {
  const ordered = inStrategyOrder(groups, choice, facts);
  const usable = healthy(ordered, facts);

  if (choice.fallback === "true") return usable.map((c) => planned(c, facts));
  if (choice.fallback === "false") return usable.slice(0, 1).map((c) => planned(c, facts));

  const name = choice.fallback;
  const named = [...usable, ...ordered, ...outside].find((c) => c.endpoint.provider === name);
  const primary = usable.find((c) => c.endpoint.provider !== name) ?? usable[0];
  if (!named) {
    if (choice.fallbackFromRequest)
      throw invalid("provider.routing.fallback", `provider '${name}' does not serve '${primary.model.id}'`);
    return [planned(primary, facts)];
  }
  return (primary === named ? [named] : [primary, named]).map((c) => planned(c, facts));
}

/** Each model's endpoints in the strategy's order, the models one after another. */
function inStrategyOrder(groups: Candidate[][], choice: RoutingChoice, facts: PlanFacts): Candidate[] {
  const how = { factor: choice.primaryFactor, turn: facts.turn, stats: (c: Candidate) => facts.stats(c.key) };
  if (groups.length === 1) return orderEndpoints(groups[0], choice.type, how);
  return groups.flatMap((group) => orderEndpoints(group, choice.type, how));
}

function planned(c: Candidate, facts: PlanFacts): PlannedAttempt {
  return {
    model: c.model,
    endpoint: c.endpoint,
    key: c.key,
    probe: facts.availability(c.key).state === "half-open",
    claim: facts.claimOf?.(c.key),
    statsAtPlan: facts.statsHash?.(c.key),
  };
}

/** The endpoints not blocked (the same array when none is); when all are, all, the one free soonest first. */
function healthy(ordered: Candidate[], facts: PlanFacts): Candidate[] {
  let blocked = 0;
  for (const c of ordered) if (facts.availability(c.key).state === "blocked") blocked++;
  if (blocked === 0) return ordered;
  if (blocked < ordered.length) return ordered.filter((c) => facts.availability(c.key).state !== "blocked");
  const waitOf = (c: Candidate) => {
    const a = facts.availability(c.key);
    return a.state === "blocked" ? a.forMs : 0;
  };
  return ordered
    .map((c, i) => ({ c, i, wait: waitOf(c) }))
    .sort((a, b) => a.wait - b.wait || a.i - b.i)
    .map((x) => x.c);
}

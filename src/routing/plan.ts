// The ordered attempts for one request (DESIGN §4), decided from facts already gathered: no I/O
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
import type { Availability, EndpointStats } from "./health.ts";
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
}

export interface PlanFacts {
  stats(key: string): EndpointStats;
  availability(key: string): Availability;
  /** The round-robin turn of this request (from 1). */
  turn: number;
}

export function endpointKey(endpoint: Endpoint): string {
  return `${endpoint.provider}|${endpoint.model}`;
}

export function candidatesOf(model: CatalogModel): Candidate[] {
  return model.endpoints.map((endpoint) => ({ model, endpoint, key: endpointKey(endpoint) }));
}

/**
 * @param groups  per model, in model order, the endpoints allowed by `providers` (none empty)
 * @param outside endpoints `providers` left out: a fallback provider named explicitly may be there
 */
export function planAttempts(
  groups: Candidate[][],
  choice: RoutingChoice,
  facts: PlanFacts,
  outside: Candidate[] = [],
): PlannedAttempt[] {
  const stats = (c: Candidate) => facts.stats(c.key);
  const ordered = groups.flatMap((group) =>
    orderEndpoints(group, choice.type, { factor: choice.primaryFactor, turn: facts.turn, stats }),
  );
  const usable = healthy(ordered, facts);
  const planned = (c: Candidate): PlannedAttempt => ({
    ...c,
    probe: facts.availability(c.key).state === "half-open",
  });

  if (choice.fallback === "true") return usable.map(planned);
  if (choice.fallback === "false") return usable.slice(0, 1).map(planned);

  const name = choice.fallback;
  const named = [...usable, ...ordered, ...outside].find((c) => c.endpoint.provider === name);
  const primary = usable.find((c) => c.endpoint.provider !== name) ?? usable[0];
  if (!named) {
    if (choice.fallbackFromRequest)
      throw invalid("provider.routing.fallback", `provider '${name}' does not serve '${primary.model.id}'`);
    return [planned(primary)];
  }
  return (primary === named ? [named] : [primary, named]).map(planned);
}

function healthy(ordered: Candidate[], facts: PlanFacts): Candidate[] {
  const open = ordered.filter((c) => facts.availability(c.key).state !== "blocked");
  if (open.length > 0) return open;
  const waitOf = (c: Candidate) => {
    const a = facts.availability(c.key);
    return a.state === "blocked" ? a.forMs : 0;
  };
  return ordered
    .map((c, i) => ({ c, i, wait: waitOf(c) }))
    .sort((a, b) => a.wait - b.wait || a.i - b.i)
    .map((x) => x.c);
}

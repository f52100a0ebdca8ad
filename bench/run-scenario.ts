// One load scenario: check that both targets answer correctly, warm both up, then alternate timed
// runs proxy, gateway, proxy, gateway… so that a noisy machine weighs on both alike.

import { type LoadRequest, measure, type RunResult, type Target } from "./load.ts";
import { OtherLoad } from "./proc-stats.ts";
import type { ScenarioOutcome } from "./report.ts";
import type { LoadScenario } from "./scenarios.ts";

/** Sends one request; returns what is wrong with the answer, or undefined when it is right. */
export async function checkAnswer(
  target: Target,
  req: LoadRequest,
  expect?: string,
): Promise<string | undefined> {
  try {
    const res = await fetch(target.url + req.path, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      signal: AbortSignal.timeout(15_000),
    });
    const text = await res.text();
    if (res.status !== 200) return `HTTP ${res.status}: ${text.slice(0, 400)}`;
    if (expect && !text.includes(expect)) return `the answer lacks ${expect}: ${text.slice(0, 400)}`;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Processes that have had their first, longer warm-up (settleSeconds). */
const settled = new Set<number>();

export async function runLoadScenario(
  scenario: LoadScenario,
  proxy: Target,
  gateway: Target | undefined,
  opts: {
    rounds: number;
    seconds: number;
    warmupSeconds: number;
    settleSeconds: number;
    otherPids: number[];
  },
): Promise<ScenarioOutcome> {
  const outcome: ScenarioOutcome = { scenario, proxyRuns: [], gatewayRuns: [] };
  const otherLoad = new OtherLoad([proxy.pid, ...(gateway ? [gateway.pid] : []), ...opts.otherPids]);
  const proxyProblem = await checkAnswer(proxy, scenario.proxy);
  if (proxyProblem) throw new Error(`the bare proxy fails ${scenario.name}: ${proxyProblem}`);
  let target = gateway;
  const request = target && scenario.prepare ? await scenario.prepare(target.url) : scenario.gateway;
  if (target) {
    const problem = await checkAnswer(target, request, scenario.expect);
    if (problem) {
      outcome.skipped = `the gateway does not answer correctly (${problem}); proxy measured alone`;
      target = undefined;
    }
  }
  const load = { connections: scenario.connections };
  const progress = (what: string) => process.stderr.write(`  ${scenario.name}: ${what}\n`);
  // A process's first scenario warms it longer: its JIT is still compiling for several seconds of
  // load (the bare proxy's too), and a gateway measured then is one no deployment runs for long.
  const warmUp = async (t: Target, request: LoadRequest) => {
    const seconds = settled.has(t.pid)
      ? opts.warmupSeconds
      : Math.max(opts.warmupSeconds, opts.settleSeconds);
    settled.add(t.pid);
    if (seconds > 0) await measure(t, request, { ...load, seconds });
  };
  progress("warming up");
  await warmUp(proxy, scenario.proxy);
  if (target) await warmUp(target, request);
  for (let round = 1; round <= opts.rounds; round++) {
    const p = await measure(proxy, scenario.proxy, { ...load, seconds: opts.seconds });
    outcome.proxyRuns.push(p);
    let g: RunResult | undefined;
    if (target) {
      g = await measure(target, request, { ...load, seconds: opts.seconds });
      outcome.gatewayRuns.push(g);
    }
    progress(
      `round ${round}/${opts.rounds}: proxy ${p.rps.toFixed(0)} req/s` +
        (g ? `, gateway ${g.rps.toFixed(0)} req/s (${((100 * g.rps) / p.rps).toFixed(0)} %)` : ""),
    );
  }
  outcome.otherLoad = otherLoad.share();
  return outcome;
}

// One gateway in front of four fake upstreams, one per wire protocol, shared by a matrix test file.
// Each catalog model is served by exactly one fake, so a test picks its upstream by model id:
//
//   fo/m → fake OpenAI chat-completions upstream   (upstream model name oa-upstream-1)
//   fa/m → fake Anthropic messages upstream        (upstream model name an-upstream-1)
//   fg/m → fake Gemini upstream                    (upstream model name gm-upstream-1)
//   fr/m → fake OpenAI Responses API upstream      (upstream model name rs-upstream-1)
//
// Between the gateway and each fake sits a tap: a pass-through proxy that keeps the exact bytes the
// fake answered, so relay tests can compare what the client got with what the upstream sent.
// Nothing here imports src/: expectations are computed from the fakes' documented semantics.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeProtocol, type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { startTap, type Tap } from "../../support/tap.ts";

export type { Tap, TappedAnswer } from "../../support/tap.ts";

export type Upstream = FakeProtocol;
export const UPSTREAMS: readonly Upstream[] = ["openai", "anthropic", "gemini", "openai-responses"];

/** The catalog model served by each upstream. */
export const MODEL: Record<Upstream, string> = {
  openai: "fo/m",
  anthropic: "fa/m",
  gemini: "fg/m",
  "openai-responses": "fr/m",
};
/** The name each upstream knows its model by (the endpoint's `model`). */
export const UPSTREAM_MODEL: Record<Upstream, string> = {
  openai: "oa-upstream-1",
  anthropic: "an-upstream-1",
  gemini: "gm-upstream-1",
  "openai-responses": "rs-upstream-1",
};
/** The upstream credential the gateway must present. */
export const UPSTREAM_KEY: Record<Upstream, string> = {
  openai: "k-openai",
  anthropic: "k-anthropic",
  gemini: "k-gemini",
  "openai-responses": "k-responses",
};
/** The catalog's output limit for every model: an Anthropic upstream gets it when the client gave none. */
export const MAX_OUTPUT = 8192;

export interface Matrix {
  gw: RunningGateway;
  fakes: Record<Upstream, FakeUpstream>;
  taps: Record<Upstream, Tap>;
  /** Forgets scripted replies, recorded requests and tapped answers everywhere. */
  reset(): void;
  close(): Promise<void>;
}

/** More names (`aliases`) each upstream's catalog model answers to, as an operator may give them. */
export type MatrixAliases = Partial<Record<Upstream, string[]>>;

function catalogModel(upstream: Upstream, aliases: MatrixAliases) {
  return {
    id: MODEL[upstream],
    ...(aliases[upstream] ? { aliases: aliases[upstream] } : {}),
    display_name: `Matrix ${upstream}`,
    created: "2025-01-01",
    input_modalities: ["text", "image"],
    output_modalities: ["text"],
    reasoning: true,
    context_length: 200_000,
    max_output_tokens: MAX_OUTPUT,
    pricings: {
      prompt: [{ value: 1, unit: "perMTokens", currency: "USD" }],
      completion: [{ value: 2, unit: "perMTokens", currency: "USD" }],
    },
    endpoints: [{ provider: MODEL[upstream].split("/")[0], model: UPSTREAM_MODEL[upstream] }],
  };
}

/** `extra`: more top-level config (e.g. `clients`), merged over the matrix's own. */
export async function startMatrix(
  extra: Record<string, unknown> = {},
  aliases: MatrixAliases = {},
): Promise<Matrix> {
  const fakeList = await Promise.all(UPSTREAMS.map((u) => startFakeUpstream(u, { apiKey: UPSTREAM_KEY[u] })));
  const fakes = Object.fromEntries(UPSTREAMS.map((u, i) => [u, fakeList[i]])) as Record<
    Upstream,
    FakeUpstream
  >;
  const tapList = await Promise.all(
    UPSTREAMS.map((u) => startTap(fakes[u].port, new URL(fakes[u].url).pathname)),
  );
  const taps = Object.fromEntries(UPSTREAMS.map((u, i) => [u, tapList[i]])) as Record<Upstream, Tap>;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-matrix-"));
  const config = baseConfig(dir, {
    providers: UPSTREAMS.map((u) => ({
      id: MODEL[u].split("/")[0],
      protocol: u,
      base_url: taps[u].url,
      api_key: UPSTREAM_KEY[u],
    })),
    models: UPSTREAMS.map((u) => catalogModel(u, aliases)),
    ...extra,
  });
  const gw = await startGateway(config, { dir });
  return {
    gw,
    fakes,
    taps,
    reset() {
      for (const u of UPSTREAMS) {
        fakes[u].reset();
        taps[u].answers.length = 0;
      }
    },
    async close() {
      await gw.stop();
      await Promise.all(UPSTREAMS.flatMap((u) => [taps[u].close(), fakes[u].close()]));
    },
  };
}

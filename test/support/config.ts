// Pieces of gateway configuration that tests put together: a provider entry for a fake upstream and a
// catalog model served by given providers.

import type { FakeUpstream } from "../fakes/index.ts";

/** A provider entry for a fake upstream (its protocol, its URL, any key). */
export function fakeProvider(id: string, fake: FakeUpstream, timeouts?: object) {
  return { id, protocol: fake.protocol, base_url: fake.url, api_key: "k", ...(timeouts ? { timeouts } : {}) };
}

/** A catalog model served by the given providers (each under the upstream name `upstream`). */
export function fakeModel(
  id: string,
  providers: string[],
  opts: {
    upstream?: string;
    prompt?: number;
    completion?: number;
    quality_rank?: number;
    routing?: object;
  } = {},
) {
  const price = (value: number) => [{ value, unit: "perMTokens", currency: "USD" }];
  return {
    id,
    display_name: id,
    created: "2025-01-01",
    input_modalities: ["text"],
    output_modalities: ["text"],
    reasoning: false,
    context_length: 100000,
    max_output_tokens: 4096,
    pricings: { prompt: price(opts.prompt ?? 1), completion: price(opts.completion ?? 2) },
    endpoints: providers.map((provider) => ({ provider, model: opts.upstream ?? id.split("/")[1] })),
    ...(opts.quality_rank !== undefined ? { quality_rank: opts.quality_rank } : {}),
    ...(opts.routing ? { routing: opts.routing } : {}),
  };
}

/** A catalog model served by the given endpoints, each its own provider and upstream name (a cloud platform's model ids). */
export function endpointsModel(
  id: string,
  endpoints: Array<{ provider: string; model: string; pricings?: object }>,
) {
  return { ...fakeModel(id, []), endpoints };
}

/**
 * The gateway's environment for cloud-platform fakes: no AWS or Google credentials of the machine's
 * (HOME is the test's own), and Google's metadata server at `metadataHost` (a FakeGoogleTokens' host).
 */
export function platformEnv(home: string, metadataHost: string): Record<string, string> {
  return {
    HOME: home,
    AWS_ACCESS_KEY_ID: "",
    AWS_SECRET_ACCESS_KEY: "",
    AWS_BEARER_TOKEN_BEDROCK: "",
    GCE_METADATA_HOST: metadataHost,
    METADATA_SERVER_DETECTION: "ping-only",
    GOOGLE_APPLICATION_CREDENTIALS: "",
  };
}

// A gateway in front of fake upstreams, one catalog model `<id>/m` per fake, and the SDK clients the
// fidelity tests drive it with.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import {
  type FakeOptions,
  type FakeProtocol,
  type FakeUpstream,
  startFakeUpstream,
} from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

export interface FakesGateway {
  gw: RunningGateway;
  fakes: Record<string, FakeUpstream>;
  stop(): Promise<void>;
}

/** Starts each fake (a protocol, or a protocol and its options) and a gateway serving `<id>/m` from it. */
export async function startFakesGateway(
  upstreams: Record<string, FakeProtocol | [FakeProtocol, FakeOptions]>,
): Promise<FakesGateway> {
  const fakes: Record<string, FakeUpstream> = {};
  for (const [id, spec] of Object.entries(upstreams)) {
    const [protocol, options] = Array.isArray(spec) ? spec : [spec, {}];
    fakes[id] = await startFakeUpstream(protocol, options);
  }
  const dir = mkdtempSync(join(tmpdir(), "switchyard-fidelity-"));
  const gw = await startGateway(
    baseConfig(dir, {
      providers: Object.entries(fakes).map(([id, fake]) => fakeProvider(id, fake)),
      models: Object.keys(fakes).map((id) => fakeModel(`${id}/m`, [id])),
    }),
    { dir },
  );
  return {
    gw,
    fakes,
    async stop() {
      await gw.stop();
      await Promise.all(Object.values(fakes).map((fake) => fake.close()));
    },
  };
}

export function anthropicClient(gw: RunningGateway): Anthropic {
  return new Anthropic({
    apiKey: PAYG_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { "anthropic-version": "2023-06-01" },
  });
}

export function openaiClient(gw: RunningGateway): OpenAI {
  return new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

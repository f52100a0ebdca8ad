// A gateway in front of one fake upstream of each protocol (messages, Gemini, a relayed Responses
// API, chat completions) beside the local models: what the Responses tests run on every upstream.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, type RunningGateway, startGateway } from "../../support/gateway.ts";

export interface UpstreamGateway {
  gw: RunningGateway;
  anthropic: FakeUpstream;
  gemini: FakeUpstream;
  responses: FakeUpstream;
  chat: FakeUpstream;
  close(): Promise<void>;
}

/** Every model the gateway serves, one per upstream: local, messages, Gemini, chat, relayed Responses. */
export const UPSTREAM_MODELS = ["local/echo-1", "fa/claude", "fg/flash", "fo/gpt", "fr/gpt"];

export interface UpstreamOptions {
  /** storage.encryption_key (base64 of 32 bytes). */
  encryptionKey?: string;
  /** More of the config (`admin`, say). */
  config?: Record<string, unknown>;
  /** Models beside the four fakes'. */
  models?: unknown[];
}

export async function startUpstreamGateway(options: UpstreamOptions = {}): Promise<UpstreamGateway> {
  const [anthropic, gemini, responses, chat] = await Promise.all([
    startFakeUpstream("anthropic"),
    startFakeUpstream("gemini"),
    startFakeUpstream("openai-responses"),
    startFakeUpstream("openai"),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-upstreams-"));
  const storage = { url: `sqlite:${join(dir, "switchyard.db")}`, encryption_key: options.encryptionKey };
  const config = baseConfig(dir, {
    ...options.config,
    ...(options.encryptionKey ? { storage } : {}),
    providers: [
      fakeProvider("fa", anthropic),
      fakeProvider("fg", gemini),
      fakeProvider("fr", responses),
      fakeProvider("fo", chat),
    ],
    models: [
      fakeModel("fa/claude", ["fa"], { upstream: "claude-sonnet-4-5" }),
      fakeModel("fg/flash", ["fg"], { upstream: "gemini-2.5-flash" }),
      fakeModel("fr/gpt", ["fr"], { upstream: "gpt-5" }),
      fakeModel("fo/gpt", ["fo"], { upstream: "gpt-4.1" }),
      ...(options.models ?? []),
    ],
  });
  const gw = await startGateway(config, { dir });
  return {
    gw,
    anthropic,
    gemini,
    responses,
    chat,
    async close() {
      await gw.stop();
      await Promise.all([anthropic, gemini, responses, chat].map((f) => f.close()));
    },
  };
}

// The cloud platforms' libraries are loaded when a platform provider first needs a credential, not
// when the gateway starts, nor when such a provider is merely configured (docs/clouds.md).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { sep } from "node:path";
import { test } from "node:test";
import type { ProviderConfig } from "../../src/config/providers.ts";
import { DEFAULT_TIMEOUTS } from "../../src/config/providers.ts";
import { canRelay } from "../../src/providers/types.ts";

const loaded = (pkg: string) =>
  Object.keys(createRequire(import.meta.url).cache).some((path) =>
    path.includes(`${sep}node_modules${sep}${pkg}${sep}`),
  );

test("google-auth-library is loaded with a Vertex provider's first credential, not before", async () => {
  await import("../../src/server/app.ts");
  const { adapterRegistry } = await import("../../src/providers/registry.ts");
  const provider: ProviderConfig = {
    id: "vertex",
    protocol: "gemini",
    baseUrl: "http://127.0.0.1:9",
    enabled: true,
    timeouts: { ...DEFAULT_TIMEOUTS },
    platform: {
      kind: "google-vertex",
      project: "p",
      location: "us-east5",
      credentialsFile: "/nonexistent.json",
    },
  };
  const registry = adapterRegistry();
  const adapter = registry.adapterFor(provider).select?.("gemini-2.5-pro");
  assert.ok(adapter && canRelay(adapter, "gemini"));
  assert.equal(loaded("google-auth-library"), false, "loaded by configuring a platform");
  await assert.rejects(
    adapter.relay(
      { path: "/v1beta/models/gemini-2.5-pro:generateContent", body: "{}", headers: {}, stream: false },
      AbortSignal.timeout(5000),
    ),
    /no usable credentials/,
  );
  assert.equal(loaded("google-auth-library"), true, "loaded for the credential");
  await registry.close();
});

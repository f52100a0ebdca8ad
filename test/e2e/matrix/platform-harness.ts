// The matrix's cloud-platform rows: one gateway in front of the three platforms' fakes (in-process:
// Bedrock's native API, Vertex AI with its metadata server's tokens, Azure OpenAI), each model served
// by one platform family:
//
//   pb/claude  → Bedrock InvokeModel, an Anthropic body   (upstream id us.anthropic.claude-m-v1:0)
//   pb/nova    → Bedrock Converse                         (amazon.nova-m-v1:0)
//   pv/gemini  → Vertex generateContent                   (gemini-m)
//   pv/claude  → Vertex rawPredict, an Anthropic body     (claude-m@20250101)
//   pz/gpt     → Azure chat completions, or Azure Responses for a Responses client (deployment gpt-dep)
//
// Azure picks its family by the client's protocol (docs/clouds.md), so a Responses client reaches
// Azure Responses and the other three Azure chat. Vertex's tokens are due for renewal 0.8 s after
// issue, so a run renews them. Nothing here imports src/.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeBedrock } from "../../fakes/bedrock.ts";
import { sigV4Authorizer } from "../../fakes/bedrock-auth.ts";
import type { Reply } from "../../fakes/index.ts";
import {
  type FakeGoogleTokens,
  type FakePlatform,
  startFakeAzure,
  startFakeGoogleTokens,
  startFakeVertex,
} from "../../fakes/platforms.ts";
import { endpointsModel, platformEnv } from "../../support/config.ts";
import { baseConfig, type RunningGateway, startGateway } from "../../support/gateway.ts";
import type { Upstream } from "./harness.ts";

type Json = Record<string, any>;

/** The wire protocol a platform row speaks upstream: a vendor's, or Bedrock's Converse. */
export type PlatformWire = Upstream | "converse";

/**
 * Each row by name, with the client protocols that reach it: all four, but for Azure, whose family
 * follows the client's protocol.
 */
export const ROW_CLIENTS = {
  "Bedrock Anthropic": ["openai", "anthropic", "gemini", "openai-responses"],
  "Bedrock Converse": ["openai", "anthropic", "gemini", "openai-responses"],
  "Vertex Gemini": ["openai", "anthropic", "gemini", "openai-responses"],
  "Vertex Anthropic": ["openai", "anthropic", "gemini", "openai-responses"],
  "Azure chat": ["openai", "anthropic", "gemini"],
  "Azure Responses": ["openai-responses"],
} as const satisfies Record<string, readonly Upstream[]>;

export type RowName = keyof typeof ROW_CLIENTS;

export interface PlatformRow {
  name: RowName;
  /** The catalog model it serves. */
  model: string;
  provider: string;
  wire: PlatformWire;
  script(...replies: Reply[]): void;
  /** The inference request bodies it received, in order, in its wire's own terms. */
  bodies(): Json[];
  /**
   * The generation requests it received (no token counts, no side calls answered aside), with their
   * bytes: what the conformance matrix reads (vendor wires only; Converse's are not a client's).
   */
  requests(): Array<{ body: Json; rawBody: string; pathname?: string; side?: boolean }>;
  /** What 1000 prompt and 500 completion tokens cost on its endpoint, as the lookup writes it. */
  cost: string;
}

export interface PlatformMatrix {
  gw: RunningGateway;
  rows: PlatformRow[];
  tokens: FakeGoogleTokens;
  reset(): void;
  close(): Promise<void>;
}

const CREDENTIALS = {
  accessKeyId: "AKIDMATRIX0123456789",
  secretAccessKey: "matrixSecretKey/K7MDENG+bPxRfiCYEXAMPLE",
  sessionToken: "FwoGZXIvYXdzMATRIXSESSION",
};
const PROJECT = "matrix-project";
const LOCATION = "global";
const AZURE_KEY = "azure-matrix-key";
/** google-auth-library renews a token 5 minutes before it expires: these are due 0.8 s after issue. */
const TOKEN_LIFETIME_S = 300.8;
/** A regional Bedrock endpoint's own prices ($3.3 and $16.5 a million), above the model's $1 and $2. */
const REGIONAL = {
  prompt: [{ value: 3.3, unit: "perMTokens", currency: "USD" }],
  completion: [{ value: 16.5, unit: "perMTokens", currency: "USD" }],
};
/** 1000 × $1/M + 500 × $2/M. */
const MODEL_COST = "0.002";

/** A reasoning model (the reasoning turn must reach the upstream) at $1 / $2 a million tokens. */
function catalogModel(id: string, endpoint: { provider: string; model: string; pricings?: object }) {
  return { ...endpointsModel(id, [endpoint]), reasoning: true, max_output_tokens: 8192 };
}

/** `extra`: more top-level config (e.g. `clients`), merged over the matrix's own. */
export async function startPlatformMatrix(extra: Record<string, unknown> = {}): Promise<PlatformMatrix> {
  const bedrock = await startFakeBedrock({ authorize: sigV4Authorizer(CREDENTIALS) });
  const tokens = await startFakeGoogleTokens(TOKEN_LIFETIME_S);
  const vertex = await startFakeVertex({ project: PROJECT, location: LOCATION, tokens });
  const azure = await startFakeAzure({ apiKey: AZURE_KEY });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-platform-matrix-"));
  const aws = {
    access_key_id: CREDENTIALS.accessKeyId,
    secret_access_key: CREDENTIALS.secretAccessKey,
    session_token: CREDENTIALS.sessionToken,
  };
  const config = baseConfig(dir, {
    providers: [
      { id: "pb", platform: "aws-bedrock", region: "us-east-1", base_url: bedrock.url, aws },
      { id: "pv", platform: "google-vertex", project: PROJECT, location: LOCATION, base_url: vertex.url },
      { id: "pz", platform: "azure-openai", base_url: azure.url, api_key: AZURE_KEY },
    ],
    ...extra,
    models: [
      catalogModel("pb/claude", { provider: "pb", model: "us.anthropic.claude-m-v1:0", pricings: REGIONAL }),
      catalogModel("pb/nova", { provider: "pb", model: "amazon.nova-m-v1:0" }),
      catalogModel("pv/gemini", { provider: "pv", model: "gemini-m" }),
      catalogModel("pv/claude", { provider: "pv", model: "claude-m@20250101" }),
      catalogModel("pz/gpt", { provider: "pz", model: "gpt-dep" }),
    ],
  });
  const gw = await startGateway(config, {
    dir,
    env: platformEnv(dir, tokens.host),
  });
  const inference = () => bedrock.requests.filter((r) => r.operation !== "count-tokens");
  const bedrockRequests = (operation: string) =>
    inference()
      .filter((r) => r.operation?.startsWith(operation))
      .map((r) => ({ body: r.body, rawBody: r.rawBody.toString() }));
  const vendorRow = (platform: FakePlatform, wire: Upstream) => ({
    script: (...replies: Reply[]) => platform.vendor[wire]!.script(...replies),
    bodies: () => platform.vendor[wire]!.requests.map((r) => r.body),
    requests: () => platform.vendor[wire]!.requests,
  });
  const rows: PlatformRow[] = [
    {
      name: "Bedrock Anthropic",
      model: "pb/claude",
      provider: "pb",
      wire: "anthropic",
      script: (...replies) => bedrock.script(...replies),
      bodies: () => bedrockRequests("invoke").map((r) => r.body),
      requests: () => bedrockRequests("invoke"),
      cost: "0.01155",
    },
    {
      name: "Bedrock Converse",
      model: "pb/nova",
      provider: "pb",
      wire: "converse",
      script: (...replies) => bedrock.script(...replies),
      bodies: () => bedrockRequests("converse").map((r) => r.body),
      requests: () => bedrockRequests("converse"),
      cost: MODEL_COST,
    },
    {
      name: "Vertex Gemini",
      model: "pv/gemini",
      provider: "pv",
      wire: "gemini",
      ...vendorRow(vertex, "gemini"),
      cost: MODEL_COST,
    },
    {
      name: "Vertex Anthropic",
      model: "pv/claude",
      provider: "pv",
      wire: "anthropic",
      ...vendorRow(vertex, "anthropic"),
      cost: MODEL_COST,
    },
    {
      name: "Azure chat",
      model: "pz/gpt",
      provider: "pz",
      wire: "openai",
      ...vendorRow(azure, "openai"),
      cost: MODEL_COST,
    },
    {
      name: "Azure Responses",
      model: "pz/gpt",
      provider: "pz",
      wire: "openai-responses",
      ...vendorRow(azure, "openai-responses"),
      cost: MODEL_COST,
    },
  ];
  return {
    gw,
    rows,
    tokens,
    reset() {
      bedrock.reset();
      for (const platform of [vertex, azure])
        for (const fake of Object.values(platform.vendor)) fake?.reset();
    },
    async close() {
      await gw.stop();
      await Promise.all([bedrock.close(), vertex.close(), azure.close(), tokens.close()]);
    },
  };
}

// Providers Switchyard knows without a config file. Each is configured when its key is in the
// environment (or given in the file); `local` is always on unless a file switches it off.

import type { ConfigProtocolName } from "../protocols/names.ts";
import type { RequestFields } from "../protocols/openai-chat/request-fields.ts";

/** `providers[].protocol`: a wire protocol by its config name (protocols/names.ts), or the built-in demo. */
export type UpstreamProtocol = ConfigProtocolName | "local";

export interface Timeouts {
  connectMs: number;
  /** Streamed answers: until the first byte. */
  firstByteMs: number;
  /** Whole (non-streamed) answers arrive all at once, after the generation: until that answer. */
  requestMs: number;
  idleMs: number;
}

export interface ProviderConfig {
  id: string;
  protocol: UpstreamProtocol;
  baseUrl: string;
  apiKey?: string;
  enabled: boolean;
  timeouts: Timeouts;
  /** local only: pause between streamed pieces, so demo streams look like streams. */
  chunkDelayMs?: number;
  /** openai protocol: send the output limit as `max_tokens`, not `max_completion_tokens`. */
  legacyMaxTokens?: boolean;
  /** openai protocol: the upstream reports a stream's usage unasked and refuses `stream_options`. */
  streamUsageUnasked?: boolean;
  /** openai protocol: the upstream refuses request members outside its vendor's list. */
  requestFields?: RequestFields;
  /** Set: call the upstream over HTTP/2 (h2 by ALPN over https, h2c over http), this many streams a connection. */
  http2?: { maxStreams: number };
  /**
   * A cloud platform (docs/clouds.md): it picks each model family's wire protocol, the URLs and the
   * authentication; `protocol` is then the protocol of the platform's main family.
   */
  platform?: PlatformConfig;
}

export type PlatformName = PlatformConfig["kind"];

/** Credentials named in the file; each absent one comes from the platform's standard sources. */
export interface AwsCredentialsConfig {
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  profile?: string;
}

export type PlatformConfig =
  | { kind: "aws-bedrock"; region: string; aws?: AwsCredentialsConfig }
  | { kind: "google-vertex"; project: string; location: string; credentialsFile?: string }
  | { kind: "azure-openai"; apiVersion?: string };

/** Streams one HTTP/2 connection carries: Node's and most servers' SETTINGS_MAX_CONCURRENT_STREAMS. */
export const DEFAULT_HTTP2_MAX_STREAMS = 100;

export const DEFAULT_TIMEOUTS: Timeouts = {
  connectMs: 5_000,
  firstByteMs: 60_000,
  requestMs: 600_000,
  idleMs: 120_000,
};

interface BuiltinProvider {
  id: string;
  protocol: UpstreamProtocol;
  baseUrl: string;
  /** Environment variables holding the key, first found wins. */
  env: string[];
  legacyMaxTokens?: boolean;
  streamUsageUnasked?: boolean;
  requestFields?: RequestFields;
}

export const BUILTIN_PROVIDERS: BuiltinProvider[] = [
  {
    id: "openai",
    protocol: "openai",
    baseUrl: "https://api.openai.com/v1",
    env: ["OPENAI_API_KEY"],
    // Its reasoning models answer sampling members away from their defaults with a 400.
    requestFields: "openai",
  },
  {
    id: "anthropic",
    protocol: "anthropic",
    baseUrl: "https://api.anthropic.com",
    env: ["ANTHROPIC_API_KEY"],
  },
  {
    id: "google",
    protocol: "gemini",
    baseUrl: "https://generativelanguage.googleapis.com",
    env: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
  },
  {
    id: "deepseek",
    protocol: "openai",
    baseUrl: "https://api.deepseek.com/v1",
    env: ["DEEPSEEK_API_KEY"],
    legacyMaxTokens: true,
    // Its thinking mode wants an assistant turn's reasoning back as `reasoning_content` (a 400 after
    // tool calls without it).
    requestFields: "deepseek",
  },
  {
    id: "mistral",
    protocol: "openai",
    baseUrl: "https://api.mistral.ai/v1",
    env: ["MISTRAL_API_KEY"],
    legacyMaxTokens: true,
    // Its API refuses any field it does not know (`stream_options` with a 422) and puts usage in the
    // stream's last chunk without being asked.
    streamUsageUnasked: true,
    requestFields: "mistral",
  },
  { id: "xai", protocol: "openai", baseUrl: "https://api.x.ai/v1", env: ["XAI_API_KEY"] },
  {
    id: "groq",
    protocol: "openai",
    baseUrl: "https://api.groq.com/openai/v1",
    env: ["GROQ_API_KEY"],
    // Its API answers logprobs, top_logprobs, logit_bias and a message's name with a 400.
    requestFields: "groq",
  },
  {
    id: "together",
    protocol: "openai",
    baseUrl: "https://api.together.xyz/v1",
    env: ["TOGETHER_API_KEY"],
    legacyMaxTokens: true,
  },
  { id: "local", protocol: "local", baseUrl: "local:", env: [] },
];

/** The built-in providers as configured by the environment alone. */
export function providersFromEnv(env: NodeJS.ProcessEnv): ProviderConfig[] {
  return BUILTIN_PROVIDERS.map((p) => {
    const apiKey = p.env.map((name) => env[name]).find((v) => v !== undefined && v !== "");
    return {
      id: p.id,
      protocol: p.protocol,
      baseUrl: p.baseUrl,
      apiKey,
      enabled: p.protocol === "local" || apiKey !== undefined,
      timeouts: { ...DEFAULT_TIMEOUTS },
      ...(p.legacyMaxTokens ? { legacyMaxTokens: true } : {}),
      ...(p.streamUsageUnasked ? { streamUsageUnasked: true } : {}),
      ...(p.requestFields ? { requestFields: p.requestFields } : {}),
    };
  });
}

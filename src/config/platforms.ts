// A provider's `platform` (docs/clouds.md): the keys each platform requires, the ones that belong to
// another platform (refused, so a typo cannot be silently ignored), and the base URL made from the
// region or location when the file gives none.

import type { ConfigProtocolName } from "../protocols/names.ts";
import type { AwsCredentialsConfig, PlatformConfig, PlatformName } from "./providers.ts";
import type { ConfigFile } from "./schema.ts";

type FileProvider = NonNullable<ConfigFile["providers"]>[number];
type Fail = (path: string, problem: string) => never;

/** The keys that only some platform takes, and which. */
const PLATFORM_KEYS = {
  region: "aws-bedrock",
  aws: "aws-bedrock",
  project: "google-vertex",
  location: "google-vertex",
  google: "google-vertex",
  api_version: "azure-openai",
} as const satisfies Partial<Record<keyof FileProvider, PlatformName>>;

/** The protocol of each platform's main family: what code that knows only `protocol` sees. */
const MAIN_PROTOCOL: Record<PlatformName, ConfigProtocolName> = {
  "aws-bedrock": "anthropic",
  "google-vertex": "gemini",
  "azure-openai": "openai",
};

export interface PlatformProvider {
  platform?: PlatformConfig;
  protocol?: ConfigProtocolName;
  baseUrl?: string;
}

/** The provider's platform settings; `{}` for a provider without `platform`, whose platform keys are refused. */
export function platformOf(p: FileProvider, path: string, fail: Fail): PlatformProvider {
  const name = p.platform;
  for (const [key, owner] of Object.entries(PLATFORM_KEYS))
    if (p[key as keyof typeof PLATFORM_KEYS] !== undefined && owner !== name)
      fail(`${path}.${key}`, `applies only to platform ${owner}`);
  if (name === undefined) return {};
  if (p.protocol !== undefined) fail(`${path}.protocol`, `cannot be set with platform (${name} picks it)`);
  // Vertex takes OAuth tokens only; a key would be silently unused.
  if (name === "google-vertex" && p.api_key)
    fail(
      `${path}.api_key`,
      "does not apply to platform google-vertex (its credentials are Google's: google.credentials_file or ADC)",
    );
  if (name === "aws-bedrock" && p.api_key && p.aws?.access_key_id)
    fail(`${path}.api_key`, "and aws.access_key_id name two credentials; keep one");
  const required = (key: "region" | "project" | "location" | "base_url"): string =>
    p[key] || fail(`${path}.${key}`, `is required for platform ${name}`);
  const protocol = MAIN_PROTOCOL[name];
  switch (name) {
    case "aws-bedrock": {
      const region = required("region");
      return {
        platform: { kind: name, region, ...awsCredentials(p, path, fail) },
        protocol,
        baseUrl: p.base_url ?? `https://bedrock-runtime.${region}.amazonaws.com`,
      };
    }
    case "google-vertex": {
      const [project, location] = [required("project"), required("location")];
      const host =
        location === "global" ? "aiplatform.googleapis.com" : `${location}-aiplatform.googleapis.com`;
      const credentialsFile = p.google?.credentials_file;
      return {
        platform: { kind: name, project, location, ...(credentialsFile ? { credentialsFile } : {}) },
        protocol,
        baseUrl: p.base_url ?? `https://${host}`,
      };
    }
    case "azure-openai": {
      const baseUrl = required("base_url");
      return {
        platform: { kind: name, ...(p.api_version ? { apiVersion: p.api_version } : {}) },
        protocol,
        baseUrl,
      };
    }
  }
}

/** `aws`: a key id without its secret (or the reverse) would fall back to the chain unnoticed. */
function awsCredentials(p: FileProvider, path: string, fail: Fail): { aws?: AwsCredentialsConfig } {
  const aws = p.aws;
  if (!aws) return {};
  if (Boolean(aws.access_key_id) !== Boolean(aws.secret_access_key))
    fail(`${path}.aws`, "needs both access_key_id and secret_access_key, or neither");
  if (aws.session_token && !aws.access_key_id) fail(`${path}.aws.session_token`, "needs access_key_id");
  return {
    aws: {
      ...(aws.access_key_id
        ? { accessKeyId: aws.access_key_id, secretAccessKey: aws.secret_access_key }
        : {}),
      ...(aws.session_token ? { sessionToken: aws.session_token } : {}),
      ...(aws.profile ? { profile: aws.profile } : {}),
    },
  };
}

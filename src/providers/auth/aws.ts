// AWS Bedrock's authorization. Credentials named in the file win (keys, a profile, or a Bedrock API
// key as `api_key`); else a Bedrock API key in AWS_BEARER_TOKEN_BEDROCK is sent as Bearer; else the
// AWS default credential chain (@aws-sdk/credential-providers: environment, shared files and
// AWS_PROFILE, SSO, web identity, ECS and EC2 metadata), whose temporary credentials it renews
// before they expire. A SigV4 signature
// (@smithy/signature-v4, service "bedrock") covers the URL, the headers and exactly the body's bytes
// that are sent; nothing is added after signing.

import type { AwsCredentialsConfig } from "../../config/providers.ts";
import { credentialError, type OutgoingRequest, type UpstreamAuth } from "./types.ts";

interface Signer {
  sign(request: OutgoingRequest): Promise<Record<string, string>>;
}

export function awsAuth(
  providerId: string,
  region: string,
  named: AwsCredentialsConfig | undefined,
  env: NodeJS.ProcessEnv = process.env,
  apiKey?: string,
): UpstreamAuth {
  // A Bedrock API key the file names wins over the environment's, as any named credential does.
  const bearer = apiKey || (named?.accessKeyId || named?.profile ? undefined : env.AWS_BEARER_TOKEN_BEDROCK);
  if (bearer)
    return { authorize: async (request) => ({ ...request.headers, authorization: `Bearer ${bearer}` }) };
  let signer: Promise<Signer> | undefined;
  return {
    async authorize(request) {
      signer ??= sigV4Signer(region, named);
      try {
        return await (await signer).sign(request);
      } catch (err) {
        throw credentialError(providerId, err);
      }
    },
    // A new signer resolves the credentials again (the chain's may have been renewed since).
    refused: () => {
      signer = undefined;
    },
  };
}

/** A signer over the named credentials, the named profile or the default chain; the libraries loaded now. */
async function sigV4Signer(region: string, named: AwsCredentialsConfig | undefined): Promise<Signer> {
  const [{ SignatureV4 }, { Sha256 }, providers] = await Promise.all([
    import("@smithy/signature-v4"),
    import("./aws-sha256.ts"),
    import("@aws-sdk/credential-providers"),
  ]);
  const credentials =
    named?.accessKeyId && named.secretAccessKey
      ? {
          accessKeyId: named.accessKeyId,
          secretAccessKey: named.secretAccessKey,
          ...(named.sessionToken ? { sessionToken: named.sessionToken } : {}),
        }
      : named?.profile
        ? providers.fromIni({ profile: named.profile })
        : providers.fromNodeProviderChain();
  const sigv4 = new SignatureV4({
    service: "bedrock",
    region,
    credentials,
    sha256: Sha256,
  });
  const target = lastUrl();
  return {
    async sign({ url, headers, body }) {
      const { host, ...parts } = target(url);
      const signed = await sigv4.sign({ method: "POST", ...parts, headers: { ...headers, host }, body });
      // The transport writes the same host itself (HTTP/2 as :authority, where a host header is refused).
      const { host: _host, ...sent } = signed.headers;
      return sent;
    },
  };
}

interface SignedUrl {
  protocol: string;
  hostname: string;
  host: string;
  port: number | undefined;
  path: string;
  query: Record<string, string>;
}

/** A URL's parts as the signer takes them, kept for the last URL: a provider's calls mostly repeat one model's. */
function lastUrl(): (url: string) => SignedUrl {
  let last: { url: string; parts: SignedUrl } | undefined;
  return (url) => {
    if (last?.url === url) return { ...last.parts, query: { ...last.parts.query } };
    const parsed = new URL(url);
    const parts: SignedUrl = {
      protocol: parsed.protocol,
      hostname: parsed.hostname,
      host: parsed.host,
      port: parsed.port ? Number(parsed.port) : undefined,
      path: parsed.pathname,
      query: Object.fromEntries(parsed.searchParams),
    };
    last = { url, parts };
    return { ...parts, query: { ...parts.query } };
  };
}

// Checks an AWS SigV4 signature the way AWS does: the request is signed again, with the same
// library the SDKs use (@smithy/signature-v4), from known credentials and the signature's own date
// and signed headers, and the two `authorization` values must be equal.

import type { IncomingHttpHeaders } from "node:http";
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";

export interface TestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/;

/** Why the request's signature is not right for these credentials, or undefined when it is. */
export async function sigV4Problem(
  request: { method: string; path: string; headers: IncomingHttpHeaders; rawBody: Buffer | string },
  credentials: TestCredentials,
  region: string,
  service = "bedrock",
): Promise<string | undefined> {
  const authorization = String(request.headers.authorization ?? "");
  const parts = AUTHORIZATION.exec(authorization);
  if (!parts) return `not a SigV4 authorization: ${authorization.slice(0, 40)}`;
  if (parts[1] !== credentials.accessKeyId) return `signed with key ${parts[1]}`;
  if (parts[3] !== region || parts[4] !== service) return `signed for ${parts[3]}/${parts[4]}`;
  if (credentials.sessionToken && request.headers["x-amz-security-token"] !== credentials.sessionToken)
    return "the session token was not sent";
  const amzDate = String(request.headers["x-amz-date"] ?? "");
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!date) return `bad x-amz-date ${amzDate}`;
  const signingDate = new Date(
    Date.UTC(+date[1]!, +date[2]! - 1, +date[3]!, +date[4]!, +date[5]!, +date[6]!),
  );
  const url = new URL(request.path, `http://${request.headers.host}`);
  const headers: Record<string, string> = {};
  for (const name of parts[5]!.split(";")) headers[name] = String(request.headers[name] ?? "");
  const signer = new SignatureV4({ service, region, credentials, sha256: Hash.bind(null, "sha256") });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers,
      body: request.rawBody,
    },
    { signingDate },
  );
  return signed.headers.authorization === authorization ? undefined : "the signature does not match";
}

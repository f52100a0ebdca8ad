// How the Bedrock fake checks credentials as Bedrock does (FakeBedrockOptions.authorize):
// - `sigV4Authorizer(credentials)`: the request's SigV4 signature (service `bedrock`) is computed
//   again over the bytes that arrived with the AWS SDK's own signer (@smithy/signature-v4) and must
//   match; the access key must be the one given, the session token too when one is given, and the
//   signing time within 15 minutes of now. Refusals are Bedrock's: UnrecognizedClientException
//   (unknown key or token), InvalidSignatureException (a wrong signature, an expired one),
//   IncompleteSignatureException (no or a malformed Authorization header).
// - `apiKeyAuthorizer(key)`: a Bedrock API key, sent as `Authorization: Bearer <key>`.

import { createHash, createHmac, type Hash, type Hmac } from "node:crypto";
import { SignatureV4 } from "@smithy/signature-v4";
import type { BedrockRequest, FakeBedrockOptions } from "./bedrock.ts";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

type Refusal = { exceptionName: string; message: string } | undefined;

const SKEW_MS = 15 * 60 * 1000;

export function sigV4Authorizer(credentials: AwsCredentials): NonNullable<FakeBedrockOptions["authorize"]> {
  return async (request) => {
    const parsed = parseAuthorization(String(request.headers.authorization ?? ""));
    if (!parsed)
      return {
        exceptionName: "IncompleteSignatureException",
        message: "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.",
      };
    const [accessKeyId, date, region, service] = parsed.credential.split("/");
    if (accessKeyId !== credentials.accessKeyId) return unrecognized();
    if (
      credentials.sessionToken !== undefined &&
      request.headers["x-amz-security-token"] !== credentials.sessionToken
    )
      return unrecognized();
    const signingDate = amzDate(String(request.headers["x-amz-date"] ?? ""));
    if (signingDate === undefined || service !== "bedrock") return invalidSignature();
    if (!signingDate.toISOString().replace(/-/g, "").startsWith(date)) return invalidSignature();
    if (Math.abs(Date.now() - signingDate.getTime()) > SKEW_MS)
      return { exceptionName: "InvalidSignatureException", message: "Signature expired" };
    const expected = await signatureOf(request, parsed.signedHeaders, credentials, region, signingDate);
    return expected === parsed.signature ? undefined : invalidSignature();
  };
}

export function apiKeyAuthorizer(key: string): NonNullable<FakeBedrockOptions["authorize"]> {
  return (request) =>
    request.headers.authorization === `Bearer ${key}`
      ? undefined
      : {
          exceptionName: "UnrecognizedClientException",
          message: "Invalid API Key format: Must start with pre-defined prefix",
        };
}

function parseAuthorization(
  header: string,
): { credential: string; signedHeaders: string[]; signature: string } | undefined {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^,]+),\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(header);
  return match
    ? { credential: match[1], signedHeaders: match[2].split(";"), signature: match[3] }
    : undefined;
}

/** `20261128T071234Z` → the instant. */
function amzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}

/** The signature the SDK's signer gives the request as received, over the headers it says it signed. */
async function signatureOf(
  request: BedrockRequest,
  signedHeaders: string[],
  credentials: AwsCredentials,
  region: string,
  signingDate: Date,
): Promise<string | undefined> {
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return undefined;
    headers[name] = Array.isArray(value) ? value.join(",") : value;
  }
  const [path, search = ""] = request.path.split("?");
  const host = headers.host ?? "";
  const signer = new SignatureV4({ service: "bedrock", region, credentials, sha256: NodeSha256 });
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: "http:",
      hostname: host.split(":")[0],
      path,
      query: Object.fromEntries(new URLSearchParams(search)),
      headers,
      body: request.rawBody,
    },
    { signingDate },
  );
  return /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization))?.[1];
}

/** The hash the signer asks for, over node:crypto (HMAC when given a key). */
class NodeSha256 {
  private readonly hash: Hash | Hmac;

  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash("sha256") : createHmac("sha256", bytes(secret));
  }

  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }

  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === "string") return Buffer.from(data, "utf8");
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

function unrecognized(): Refusal {
  return {
    exceptionName: "UnrecognizedClientException",
    message: "The security token included in the request is invalid.",
  };
}

function invalidSignature(): Refusal {
  return {
    exceptionName: "InvalidSignatureException",
    message:
      "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
  };
}

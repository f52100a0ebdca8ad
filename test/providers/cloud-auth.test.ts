// The platform auths of src/providers/auth/ on their own: which AWS credential wins (the file's, a
// Bedrock API key, a profile, the default chain from the environment), each SigV4 signature checked
// again from the credentials it should have used; the token cache's renewal; and errors that name
// the provider and the cause, never the secret.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { awsAuth } from "../../src/providers/auth/aws.ts";
import { googleAuth } from "../../src/providers/auth/google.ts";
import { CachedToken, REFRESH_MARGIN_MS } from "../../src/providers/auth/types.ts";
import type { BedrockRequest } from "../fakes/bedrock.ts";
import { type AwsCredentials, sigV4Authorizer } from "../fakes/bedrock-auth.ts";

const URL_ = "https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-x%3A0/invoke";
const BODY =
  '{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"messages":[{"role":"user","content":"héllo"}]}';

/** Signs the request with `auth`; the Bedrock fake's check of it against `credentials` (undefined: signed right). */
async function signedBy(
  auth: ReturnType<typeof awsAuth>,
  credentials: AwsCredentials,
): Promise<string | undefined> {
  const headers = await auth.authorize({
    url: URL_,
    headers: { "content-type": "application/json" },
    body: BODY,
  });
  const url = new URL(URL_);
  assert.match(headers.authorization ?? "", /Credential=[^/]+\/\d{8}\/eu-west-1\/bedrock\/aws4_request/);
  const request = {
    method: "POST",
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, host: url.host },
    rawBody: Buffer.from(BODY),
  } as unknown as BedrockRequest;
  return (await sigV4Authorizer(credentials)(request))?.message;
}

test("credentials named in the file are used, even with a Bedrock API key in the environment", async () => {
  const named = { accessKeyId: "AKIDFILE", secretAccessKey: "file-secret", sessionToken: "file-session" };
  const auth = awsAuth("bedrock", "eu-west-1", named, { AWS_BEARER_TOKEN_BEDROCK: "api-key" });
  assert.equal(await signedBy(auth, named), undefined);
});

test("a Bedrock API key is sent as Bearer when the file names no credentials", async () => {
  const auth = awsAuth("bedrock", "eu-west-1", undefined, { AWS_BEARER_TOKEN_BEDROCK: "api-key" });
  const headers = await auth.authorize({ url: URL_, headers: { a: "b" }, body: BODY });
  assert.deepEqual(headers, { a: "b", authorization: "Bearer api-key" });
});

test("a Bedrock API key named in the file wins over the environment's", async () => {
  const auth = awsAuth(
    "bedrock",
    "eu-west-1",
    undefined,
    { AWS_BEARER_TOKEN_BEDROCK: "env-key" },
    "file-key",
  );
  const headers = await auth.authorize({ url: URL_, headers: {}, body: BODY });
  assert.equal(headers.authorization, "Bearer file-key");
});

test("the default chain: a profile of the shared credentials file, then the environment's keys", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-aws-"));
  const file = join(dir, "credentials");
  writeFileSync(file, "[prod]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n");
  const saved = { ...process.env };
  try {
    Object.assign(process.env, {
      AWS_SHARED_CREDENTIALS_FILE: file,
      AWS_CONFIG_FILE: join(dir, "config"),
      AWS_ACCESS_KEY_ID: "AKIDENV",
      AWS_SECRET_ACCESS_KEY: "env-secret",
      AWS_EC2_METADATA_DISABLED: "true",
    });
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    const profile = awsAuth("bedrock", "eu-west-1", { profile: "prod" }, {});
    assert.equal(
      await signedBy(profile, { accessKeyId: "AKIDPROFILE", secretAccessKey: "profile-secret" }),
      undefined,
    );
    const chain = awsAuth("bedrock", "eu-west-1", undefined, {});
    assert.equal(await signedBy(chain, { accessKeyId: "AKIDENV", secretAccessKey: "env-secret" }), undefined);
  } finally {
    process.env = saved;
  }
});

test("no credentials anywhere: a 502 naming the provider and the cause", async () => {
  const saved = { ...process.env };
  const dir = mkdtempSync(join(tmpdir(), "switchyard-aws-"));
  try {
    for (const name of Object.keys(process.env)) if (name.startsWith("AWS_")) delete process.env[name];
    Object.assign(process.env, {
      AWS_SHARED_CREDENTIALS_FILE: join(dir, "none"),
      AWS_CONFIG_FILE: join(dir, "none"),
      AWS_EC2_METADATA_DISABLED: "true",
    });
    await assert.rejects(
      awsAuth("bedrock", "eu-west-1", { profile: "missing" }, {}).authorize({
        url: URL_,
        headers: {},
        body: BODY,
      }),
      (err: any) => {
        assert.equal(err.status, 502);
        assert.match(err.message, /^Provider 'bedrock' has no usable credentials \(.+\)/);
        return true;
      },
    );
  } finally {
    process.env = saved;
  }
});

test("a Google credentials file that is not there: a 502 naming the provider and the file", async () => {
  const auth = googleAuth("vertex", "/nonexistent/sa.json");
  await assert.rejects(auth.authorize({ url: "https://x", headers: {}, body: "{}" }), (err: any) => {
    assert.equal(err.status, 502);
    assert.match(err.message, /Provider 'vertex' has no usable credentials .*\/nonexistent\/sa\.json/);
    return true;
  });
});

test("a cached token is kept until its renewal margin, fetched once however many wait", async () => {
  let fetched = 0;
  let lifetime = REFRESH_MARGIN_MS + 60_000;
  const token = new CachedToken(async () => {
    fetched++;
    return { token: `t${fetched}`, expiresAt: Date.now() + lifetime };
  });
  assert.deepEqual(await Promise.all([token.get(), token.get(), token.get()]), ["t1", "t1", "t1"]);
  assert.equal(await token.get(), "t1");
  lifetime = REFRESH_MARGIN_MS - 1; // the next token is due for renewal as soon as it is had
  const cache = token as unknown as { current: { expiresAt: number } };
  cache.current.expiresAt = Date.now() + REFRESH_MARGIN_MS - 1;
  assert.equal(await token.get(), "t2");
  assert.equal(await token.get(), "t3");
});

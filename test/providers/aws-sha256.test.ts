// The SigV4 signer's hash (src/providers/auth/aws-sha256.ts) gives the digests of the AWS SDK's own
// (@smithy/hash-node), keyed or not, with its key objects reused; a whole signature made with it
// is the signature the SDK makes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Hash } from "@smithy/hash-node";
import { SignatureV4 } from "@smithy/signature-v4";
import { Sha256 } from "../../src/providers/auth/aws-sha256.ts";

async function digests(secret: string | Uint8Array | undefined, pieces: Array<string | Uint8Array>) {
  const ours = new Sha256(secret);
  const sdk = new Hash("sha256", secret);
  for (const piece of pieces) {
    ours.update(piece);
    sdk.update(piece);
  }
  return [Buffer.from(await ours.digest()).toString("hex"), Buffer.from(await sdk.digest()).toString("hex")];
}

test("hashes and HMACs are the SDK's, for string and byte keys, one piece or several", async () => {
  const key = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
  for (const secret of [undefined, "AWS4wJalrXUtnFEMI/K7MDENG", key])
    for (const pieces of [[""], ["one piece ü"], [Buffer.from("two "), "pieces"]]) {
      const [ours, sdk] = await digests(secret, pieces);
      assert.equal(ours, sdk, `${String(secret)} ${pieces.join("|")}`);
      // Again: the key's object is now the kept one.
      assert.equal((await digests(secret, pieces))[0], sdk);
    }
});

test("a digest starts the next one afresh", async () => {
  const hash = new Sha256("k");
  hash.update("a");
  await hash.digest();
  hash.update("b");
  const [expected] = await digests("k", ["b"]);
  assert.equal(Buffer.from(await hash.digest()).toString("hex"), expected);
});

test("a SigV4 signature made with it is the SDK's, request after request", async () => {
  const credentials = {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  };
  const signer = (sha256: ConstructorParameters<typeof SignatureV4>[0]["sha256"]) =>
    new SignatureV4({ service: "bedrock", region: "us-east-1", credentials, sha256 });
  const ours = signer(Sha256);
  const sdk = signer(Hash.bind(null, "sha256"));
  for (const body of ['{"messages":[]}', '{"messages":[{"role":"user","content":"ü"}]}']) {
    const request = {
      method: "POST",
      protocol: "https:",
      hostname: "bedrock-runtime.us-east-1.amazonaws.com",
      path: "/model/anthropic.claude%3A0/invoke",
      query: {},
      headers: { host: "bedrock-runtime.us-east-1.amazonaws.com", "content-type": "application/json" },
      body,
    };
    const signingDate = new Date("2026-11-28T08:00:00Z");
    const [a, b] = await Promise.all([
      ours.sign(request, { signingDate }),
      sdk.sign(request, { signingDate }),
    ]);
    assert.ok(a.headers.authorization?.includes("Signature="));
    assert.equal(a.headers.authorization, b.headers.authorization);
  }
});

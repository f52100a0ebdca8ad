// The platform fakes are faithful to what Anthropic's own platform clients send and read: the
// unmodified @anthropic-ai/vertex-sdk against the fake Vertex (test/fakes/platforms.ts: rawPredict,
// streamRawPredict, a token its metadata server issued), and @anthropic-ai/bedrock-sdk against the
// fake Bedrock Runtime (test/fakes/bedrock.ts: InvokeModel and its event stream, SigV4-signed).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { AnthropicBedrock } from "@anthropic-ai/bedrock-sdk";
import { AnthropicVertex } from "@anthropic-ai/vertex-sdk";
import { OAuth2Client } from "google-auth-library";
import { type FakeBedrock, startFakeBedrock } from "./bedrock.ts";
import { sigV4Authorizer } from "./bedrock-auth.ts";
import {
  type FakeGoogleTokens,
  type FakePlatform,
  startFakeGoogleTokens,
  startFakeVertex,
} from "./platforms.ts";

const CREDENTIALS = {
  accessKeyId: "AKIDFAKES0123",
  secretAccessKey: "fake-secret-key",
  sessionToken: "fake-session",
};
const CLAUDE = "global.anthropic.claude-sonnet-4-6";

let tokens: FakeGoogleTokens;
let vertex: FakePlatform;
let bedrock: FakeBedrock;
let token: string;

before(async () => {
  tokens = await startFakeGoogleTokens();
  vertex = await startFakeVertex({ project: "proj", location: "us-east5", tokens });
  bedrock = await startFakeBedrock({ authorize: sigV4Authorizer(CREDENTIALS) });
  const res = await fetch(
    `http://${tokens.host}/computeMetadata/v1/instance/service-accounts/default/token`,
    {
      headers: { "metadata-flavor": "Google" },
    },
  );
  token = ((await res.json()) as { access_token: string }).access_token;
});
after(async () => {
  await vertex.close();
  await tokens.close();
  await bedrock.close();
});

/** The client with this access token (as an OAuth client holding it: the SDK asks its auth client for headers). */
function vertexClient(accessToken: string): AnthropicVertex {
  const authClient = new OAuth2Client();
  authClient.setCredentials({ access_token: accessToken, expiry_date: Date.now() + 3_600_000 });
  return new AnthropicVertex({
    region: "us-east5",
    projectId: "proj",
    authClient,
    baseURL: `${vertex.url}/v1`,
    maxRetries: 0,
  });
}

test("AnthropicVertex: rawPredict and streamRawPredict, whole and streamed", async () => {
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "vertex whole" }] });
  const whole = await vertexClient(token).messages.create({
    model: "claude-sonnet-4-6",
    max_tokens: 50,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(whole.content[0]?.type === "text" && whole.content[0].text, "vertex whole");
  assert.equal(
    vertex.requests.at(-1)?.path,
    "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-6:rawPredict",
  );
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "vertex streamed" }], chunks: 3 });
  const streamed = await vertexClient(token)
    .messages.stream({
      model: "claude-sonnet-4-6",
      max_tokens: 50,
      messages: [{ role: "user", content: "hi" }],
    })
    .finalMessage();
  assert.equal(streamed.content[0]?.type === "text" && streamed.content[0].text, "vertex streamed");
  assert.match(String(vertex.requests.at(-1)?.path), /:streamRawPredict$/);
});

test("AnthropicVertex with a token the metadata server never issued gets Vertex's 401", async () => {
  await assert.rejects(
    vertexClient("ya29.forged").messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
    }),
    { status: 401 },
  );
});

test("AnthropicBedrock: InvokeModel and its event stream, signed", async () => {
  const client = new AnthropicBedrock({
    awsRegion: "us-east-1",
    awsAccessKey: CREDENTIALS.accessKeyId,
    awsSecretKey: CREDENTIALS.secretAccessKey,
    awsSessionToken: CREDENTIALS.sessionToken,
    baseURL: bedrock.url,
    maxRetries: 0,
  });
  bedrock.script({ blocks: [{ type: "text", text: "bedrock whole" }] });
  const whole = await client.messages.create({
    model: CLAUDE,
    max_tokens: 50,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(whole.content[0]?.type === "text" && whole.content[0].text, "bedrock whole");
  const sent = bedrock.requests.at(-1)!;
  assert.equal(sent.operation, "invoke");
  bedrock.script({ blocks: [{ type: "text", text: "bedrock streamed" }], chunks: 3 });
  const streamed = await client.messages
    .stream({ model: CLAUDE, max_tokens: 50, messages: [{ role: "user", content: "hi" }] })
    .finalMessage();
  assert.equal(streamed.content[0]?.type === "text" && streamed.content[0].text, "bedrock streamed");
  assert.equal(bedrock.requests.at(-1)?.operation, "invoke-with-response-stream");
});

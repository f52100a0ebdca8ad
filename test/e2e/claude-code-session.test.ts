// Claude Code sends `X-Claude-Code-Session-Id` on every call of one agent session. The gateway
// records it with each generation and shows it in the lookup as `sessionId`, so that a user can add
// up what one session cost. Driven by @anthropic-ai/sdk with the header as Claude Code sets it.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
before(async () => {
  gw = await startGateway();
});
after(() => gw?.stop());

const clientWith = (sessionId?: string) =>
  new Anthropic({
    apiKey: PAYG_KEY,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: sessionId === undefined ? {} : { "X-Claude-Code-Session-Id": sessionId },
  });

async function lookup(id: string): Promise<Record<string, any>> {
  const res = await fetch(`${gw.url}/api/v1/management/generation?id=${id}`, {
    headers: { authorization: `Bearer ${PAYG_KEY}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, any>;
}

const ask = { model: "local/echo-1", max_tokens: 50, messages: [{ role: "user" as const, content: "hi" }] };

describe("X-Claude-Code-Session-Id", () => {
  test("every generation of a session, streamed or not, is looked up with its session id", async () => {
    const session = randomUUID();
    const client = clientWith(session);
    const whole = await client.messages.create(ask);
    const streamed = await client.messages.stream(ask).finalMessage();
    for (const id of [whole.id, streamed.id]) {
      const record = await lookup(id);
      assert.equal(record.sessionId, session, id);
    }
  });

  test("a generation without the header has no session id", async () => {
    const record = await lookup((await clientWith().messages.create(ask)).id);
    assert.equal(record.sessionId, null);
  });

  test("a session id is bounded in length and never echoed into a response header", async () => {
    const long = `s-${"x".repeat(5000)}`;
    const { data, response } = await clientWith(long).messages.create(ask).withResponse();
    for (const [name, value] of response.headers) assert.ok(!value.includes("xxxxxxxx"), name);
    const record = await lookup(data.id);
    assert.equal(record.sessionId, long.slice(0, 128));
  });
});

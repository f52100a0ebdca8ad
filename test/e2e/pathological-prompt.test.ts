// Regression: one pathological prompt froze every request. The local models counted tokens with a
// BPE that is quadratic on a long run without whitespace, on the event loop: 100 KB of `\"{}[]` took
// 3 to 5 s and 1 MiB minutes, and no other request was answered meanwhile. Now a 1 MiB prompt of each
// kind gets a proper answer while a listing, polled all along, keeps answering in well under a second
// (minutes before; the bound leaves room for a machine busy with other work), and the gateway's own
// measure of its event loop (switchyard_event_loop_lag_seconds) agrees.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const MiB = 1 << 20;
const LISTING_BUDGET_MS = 1000;

const prompts: Record<string, () => string> = {
  '`\\"{}[]` repeated': () => '\\"{}[]'.repeat(MiB / 6 + 1).slice(0, MiB),
  "one letter": () => "a".repeat(MiB),
  // Random bytes as a client would send them: decoded as UTF-8 (invalid sequences become U+FFFD).
  "random bytes": () => randomBytes(MiB).toString("utf8"),
};

let gw: RunningGateway;
before(async () => {
  gw = await startGateway();
});
// SIGKILL: on a regression the gateway is still busy counting and would not exit in time.
after(() => gw?.stop("SIGKILL"));

interface Sent {
  status: number;
  body: any;
  /** How long each listing polled while the request was in flight took, in ms. */
  polls: number[];
}

/** Sends one inference request and polls GET /v1/models back to back until it is answered. */
async function sendWhilePolling(path: string, headers: Record<string, string>, body: string): Promise<Sent> {
  let answered = false;
  const request = fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    signal: AbortSignal.timeout(60_000),
  }).then(async (res) => {
    const text = await res.text();
    answered = true;
    return { status: res.status, text };
  });
  request.catch(() => {
    answered = true;
  });
  const polls: number[] = [];
  let slowInARow = 0;
  while (!answered) {
    const started = performance.now();
    // A frozen gateway answers the listing only once the count is done, minutes later: give up
    // well before that, so a regression fails fast instead of timing the suite out.
    const listing = await fetch(`${gw.url}/v1/models`, { signal: AbortSignal.timeout(2_000) }).catch(
      (error: Error) => error,
    );
    const elapsed = performance.now() - started;
    if (answered) break; // this poll may have raced the answer; only polls during the request count
    assert.ok(!(listing instanceof Error), `GET /v1/models did not answer within 2 s: ${listing}`);
    assert.equal(listing.status, 200);
    await listing.arrayBuffer();
    polls.push(elapsed);
    // A held event loop keeps every poll waiting; one slow poll between fast ones is this machine
    // scheduling another process (the event-loop check below still sees any stall of the gateway's).
    slowInARow = elapsed < LISTING_BUDGET_MS ? 0 : slowInARow + 1;
    assert.ok(
      slowInARow < 2,
      `GET /v1/models took ${polls.slice(-2).map((ms) => ms.toFixed(0))} ms while a pathological prompt was processed`,
    );
  }
  const { status, text } = await request;
  const maxLag = await longestStall();
  assert.ok(maxLag < LISTING_BUDGET_MS / 1000, `the gateway's event loop stalled for ${maxLag} s`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    assert.fail(`the pathological request got a non-JSON answer (${status}): ${text.slice(0, 200)}`);
  }
  return { status, body: parsed, polls };
}

/** The longest the gateway's event loop was held lately, from its own /metrics. */
async function longestStall(): Promise<number> {
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  const max = /^switchyard_event_loop_lag_seconds\{quantile="1"\} (\S+)$/m.exec(metrics);
  assert.ok(max, "switchyard_event_loop_lag_seconds is exported");
  return Number(max[1]);
}

function assertProperAnswer(sent: Sent, usage: (body: any) => number): void {
  if (sent.status === 200) {
    const tokens = usage(sent.body);
    assert.ok(Number.isInteger(tokens) && tokens > 0, `prompt tokens: ${tokens}`);
  } else {
    assert.ok(sent.status >= 400 && sent.status < 500, `status ${sent.status}: ${JSON.stringify(sent.body)}`);
  }
}

describe("a 1 MiB pathological prompt to a local model leaves the gateway answering", () => {
  for (const [kind, make] of Object.entries(prompts)) {
    test(`chat completions, ${kind}`, async () => {
      const sent = await sendWhilePolling(
        "/v1/chat/completions",
        { authorization: `Bearer ${PAYG_KEY}` },
        JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: make() }] }),
      );
      assertProperAnswer(sent, (body) => body.usage.prompt_tokens);
      assert.ok(sent.polls.length > 0, "the listing was polled while the request was in flight");
    });
  }

  for (const kind of ['`\\"{}[]` repeated', "one letter"]) {
    test(`messages, ${kind}`, async () => {
      const sent = await sendWhilePolling(
        "/v1/messages",
        { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01" },
        JSON.stringify({
          model: "local/echo-1",
          max_tokens: 64,
          messages: [{ role: "user", content: prompts[kind]() }],
        }),
      );
      assertProperAnswer(sent, (body) => body.usage.input_tokens);
      assert.ok(sent.polls.length > 0, "the listing was polled while the request was in flight");
    });
  }
});

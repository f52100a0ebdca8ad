// A stream that fails after it started, in every client protocol, on the relay and the translated
// route: the client sees one stream (one opening, its sequence numbers rising) that ends in one
// error event of its own protocol, and the generation is recorded as failed with what it produced.
// Each fault strikes once some text has gone to the client, so no other endpoint may be tried: the
// fake sends that text with its headers in one write, so the client reads it at once however loaded
// the machine (frames paced by timers let a starved gateway's idle limit strike first, with no text).
// The fault then comes in a later read, or in that same read (what a loaded machine makes of paced
// writes): the events decoded from the read it ends still reach the client, before the error.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type FakeProtocol, type FakeUpstream, type Fault, startFakeUpstream } from "../../fakes/index.ts";
import { type Frame, parseFrames } from "../../fakes/read-frames.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { fakeProvider, model, record } from "./support.ts";

type Client = "chat" | "messages" | "gemini" | "responses";

/** Each client's own upstream (relayed) and another one (translated). */
const UPSTREAMS: Record<Client, { relay: FakeProtocol; translated: FakeProtocol }> = {
  chat: { relay: "openai", translated: "anthropic" },
  messages: { relay: "anthropic", translated: "gemini" },
  gemini: { relay: "gemini", translated: "openai-responses" },
  responses: { relay: "openai-responses", translated: "openai" },
};
const CLIENTS = Object.keys(UPSTREAMS) as Client[];
const ROUTES = ["relay", "translated"] as const;
const FAULTS: Fault[] = ["reset-mid", "stall-mid", "truncated-sse", "malformed-json", "oversized-event"];
/** When the fault's bytes come after the text's: the pause between the two writes. */
const DELIVERIES = [
  { name: "in a later read", chunkDelayMs: 10 },
  { name: "in the same read", chunkDelayMs: 0 },
] as const;
/** A stalled upstream is given up after this long without a byte. */
const IDLE_MS = 200;

let gw: RunningGateway;
/**
 * Each case has its own fake (and provider, and model), so that the cases can run side by side: a
 * fake answers its requests from one queue of scripts, and cases sharing it would take each
 * other's faults.
 */
const fakes = {} as Record<string, FakeUpstream>;
const cases = CLIENTS.flatMap((client) =>
  ROUTES.flatMap((route) =>
    FAULTS.flatMap((fault) =>
      DELIVERIES.filter((delivery) => deliveredApart(fault, delivery.chunkDelayMs)).map((delivery) => ({
        client,
        route,
        fault,
        delivery,
        name: `${client}-${route}-${fault}-${delivery.chunkDelayMs}`,
      })),
    ),
  ),
);

/**
 * The forms that differ: a stall sends no bytes, so it has one; an oversized event is read the same
 * way after the text whichever read brought it, and each costs the gateway a core for a while, so it
 * runs in the same read only.
 */
function deliveredApart(fault: Fault, chunkDelayMs: number): boolean {
  if (fault === "stall-mid") return chunkDelayMs > 0;
  if (fault === "oversized-event") return chunkDelayMs === 0;
  return true;
}

before(async () => {
  await Promise.all(
    cases.map(async ({ client, route, name }) => {
      fakes[name] = await startFakeUpstream(UPSTREAMS[client][route]);
    }),
  );
  // Only the stall is waited for; the other limits are far, as a loaded machine may start slowly.
  const timeouts = { connect_ms: 5000, first_byte_ms: 8000, request_ms: 8000, idle_ms: IDLE_MS };
  const dir = mkdtempSync(join(tmpdir(), "switchyard-stream-failures-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: cases.map(({ name }) => fakeProvider(name, fakes[name], timeouts)),
      models: cases.map(({ name }) => model(`${name}/m`, [name])),
      // Every case must reach its one endpoint, however many failed before it.
      routing: { health: { failure_threshold: 100000 } },
    }),
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
});

/** The client's streamed request for a model, as fetch() arguments. */
function streamed(client: Client, modelId: string): [string, RequestInit] {
  const post = (path: string, headers: Record<string, string>, body: unknown): [string, RequestInit] => [
    `${gw.url}${path}`,
    {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    },
  ];
  const bearer = { authorization: `Bearer ${PAYG_KEY}` };
  const messages = [{ role: "user", content: "hi" }];
  switch (client) {
    case "chat":
      return post("/v1/chat/completions", bearer, { model: modelId, messages, stream: true });
    case "messages":
      return post(
        "/v1/messages",
        { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01" },
        { model: modelId, max_tokens: 64, messages, stream: true },
      );
    case "gemini":
      return post(
        `/v1beta/models/${modelId}:streamGenerateContent?alt=sse`,
        { "x-goog-api-key": PAYG_KEY },
        { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
      );
    case "responses":
      return post("/v1/responses", bearer, { model: modelId, input: "hi", stream: true });
  }
}

/** The frames' JSON (`[DONE]` as the string), each frame's data whole JSON. */
function payloads(frames: Frame[]): any[] {
  return frames.map((f) => {
    if (f.data === "[DONE]") return f.data;
    try {
      return JSON.parse(f.data);
    } catch {
      return assert.fail(`a frame the client cannot read: ${f.data.slice(0, 200)}`);
    }
  });
}

const count = <T>(items: T[], test: (item: T) => boolean) => items.filter(test).length;

/**
 * One opening, content, then one error as the protocol's last event(s), and nothing after it.
 * Returns how many frames carried content before the error.
 */
function assertOneStreamEndingInError(client: Client, frames: Frame[]): number {
  const data = payloads(frames);
  switch (client) {
    case "chat": {
      assert.equal(
        count(data, (d) => d?.choices?.[0]?.delta?.role !== undefined),
        1,
        "one opening chunk",
      );
      assert.equal(
        count(data, (d) => d?.error !== undefined),
        1,
        "one error chunk",
      );
      assert.ok(data.at(-2)?.error?.message, "the error comes last, before [DONE]");
      assert.equal(data.at(-1), "[DONE]");
      assert.equal(
        count(data, (d) => d === "[DONE]"),
        1,
      );
      return count(data, (d) => Boolean(d?.choices?.[0]?.delta?.content));
    }
    case "messages": {
      assert.equal(
        count(frames, (f) => f.event === "message_start"),
        1,
        "one message_start",
      );
      assert.equal(
        count(frames, (f) => f.event === "error"),
        1,
        "one error event",
      );
      assert.equal(frames.at(-1)?.event, "error", "the error comes last");
      assert.equal(data.at(-1).type, "error");
      assert.ok(data.at(-1).error.type && data.at(-1).error.message);
      return count(data, (d) => d.delta?.type === "text_delta");
    }
    case "gemini": {
      assert.equal(
        count(data, (d) => d.error !== undefined),
        1,
        "one error chunk",
      );
      const error = data.at(-1).error;
      assert.ok(error, "the error comes last");
      assert.equal(typeof error.code, "number");
      assert.ok(error.status && error.message);
      return count(data, (d) => Boolean(d.candidates?.[0]?.content?.parts?.some((p: any) => p.text)));
    }
    case "responses": {
      const types = data.map((d) => d.type);
      assert.equal(
        count(types, (t) => t === "response.created"),
        1,
        "one response.created",
      );
      assert.equal(
        count(types, (t) => t === "response.in_progress"),
        1,
        "one response.in_progress",
      );
      assert.deepEqual(types.slice(-2), ["response.failed", "error"], "response.failed, then error, end it");
      assert.equal(
        count(types, (t) => t === "response.failed"),
        1,
      );
      const numbers = data.map((d) => d.sequence_number);
      for (let i = 1; i < numbers.length; i++)
        assert.ok(numbers[i] > numbers[i - 1], `sequence numbers rise: ${numbers.join(",")}`);
      assert.ok(data.at(-2).response.error.message);
      return count(types, (t) => t === "response.output_text.delta");
    }
  }
}

/** The case's streamed request, answered by its fake with text and then its fault. */
async function failingStream({ client, fault, delivery, name }: (typeof cases)[number]): Promise<void> {
  fakes[name].script({
    blocks: [{ type: "text", text: "one two three four five six" }],
    chunks: 6,
    burst: true,
    chunkDelayMs: delivery.chunkDelayMs,
    fault,
  });
  const res = await fetch(...streamed(client, `${name}/m`));
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const produced = assertOneStreamEndingInError(client, parseFrames(text));
  assert.ok(produced > 0, `text reached the client before the error: ${text}`);
  const generation = await record(gw, res.headers.get("x-generation-id") ?? "");
  assert.equal(generation.status, "failed");
  assert.ok(generation.latency > 0, "the first token's arrival is recorded");
}

/**
 * An event past 64 MiB costs the gateway a core for a while: such streams go one at a time, beside
 * the other cases, which would otherwise wait on a starved gateway past their time limits.
 */
const OVERSIZED: Fault = "oversized-event";

describe("a stream failing after its first text", { concurrency: true }, () => {
  for (const client of CLIENTS)
    for (const route of ROUTES)
      describe(`${client} client, ${route}`, () => {
        for (const c of cases.filter(
          (c) => c.client === client && c.route === route && c.fault !== OVERSIZED,
        ))
          test(`${c.fault}, ${c.delivery.name}`, { timeout: 10_000 }, () => failingStream(c));
      });
  describe(`${OVERSIZED}, one stream at a time`, { concurrency: false }, () => {
    for (const c of cases.filter((c) => c.fault === OVERSIZED))
      test(`${c.client} client, ${c.route}, ${c.delivery.name}`, { timeout: 10_000 }, () => failingStream(c));
  });
});

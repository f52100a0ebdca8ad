// Fault injection: the primary endpoint fails in each way an upstream can fail, under each fallback
// setting, streamed and not, on the relay path (chat client → chat upstream) and the translated path
// (chat client → messages upstream). The client must get the fallback's answer or one clean native
// error — never a hang past the configured timeouts, never a half-written body — and the generation
// record must tell how many attempts were made and which provider answered.
//
// Each case has its own model (its own endpoints in the routing state), so a retry-after or a
// failure count left by one case cannot steer another.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI, { APIError } from "openai";
import { DEFAULT_TEXT, type FakeUpstream, type Reply, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import {
  type ChatResult,
  chat,
  fakeProvider,
  model,
  record,
  SHORT_TIMEOUTS,
  streamedText,
} from "./support.ts";

type Path = "relay" | "translated";
/** "true", "false", or the path's named fallback provider. */
type Fallback = string;

/** Each path has its own three fakes, so that the two paths can run side by side. */
interface Route {
  path: Path;
  /** Provider ids: the failing primary, the next endpoint, the endpoint named as fallback. */
  primary: string;
  next: string;
  named: string;
}
const ROUTES: Route[] = [
  { path: "relay", primary: "a", next: "b", named: "c" },
  { path: "translated", primary: "x", next: "y", named: "z" },
];
const fallbacksOf = (route: Route): Fallback[] => ["true", "false", route.named];

interface FaultCase {
  name: string;
  reply: Reply;
  /** Streamed: the fault strikes after the first bytes went to the client (no fallback then). */
  afterFirstByte?: boolean;
  /**
   * The status the client gets when nothing falls back, per mode; `translated` when the messages
   * upstream says otherwise (its "overloaded" is 529, kept as the upstream said it).
   */
  status: { whole: number; stream: number; translated?: number };
}

// The default text in 4 pieces, with pauses between the fake's chunks that make "some text, then
// the fault" deterministic.
const SLOW: Reply = { blocks: [{ type: "text", text: DEFAULT_TEXT }], chunks: 4, chunkDelayMs: 30 };
const FAULTS: FaultCase[] = [
  { name: "refuse", reply: { fault: "refuse" }, status: { whole: 502, stream: 502 } },
  { name: "reset-before", reply: { fault: "reset-before" }, status: { whole: 502, stream: 502 } },
  {
    name: "reset-mid",
    reply: { fault: "reset-mid", ...SLOW },
    afterFirstByte: true,
    status: { whole: 502, stream: 200 },
  },
  { name: "hang", reply: { fault: "hang" }, status: { whole: 504, stream: 504 } },
  {
    name: "stall-mid",
    reply: { fault: "stall-mid", ...SLOW },
    afterFirstByte: true,
    status: { whole: 504, stream: 200 },
  },
  {
    name: "malformed-json",
    reply: { fault: "malformed-json", ...SLOW },
    afterFirstByte: true,
    status: { whole: 502, stream: 200 },
  },
  {
    name: "truncated-sse",
    reply: { fault: "truncated-sse", ...SLOW },
    afterFirstByte: true,
    status: { whole: 502, stream: 200 },
  },
  {
    name: "midstream-error",
    reply: { fault: "midstream-error", ...SLOW },
    afterFirstByte: true,
    // The messages upstream answers 529; a chat client gets the 503 it knows on either path.
    status: { whole: 503, stream: 200 },
  },
  {
    name: "429",
    reply: { status: 429, headers: { "retry-after": "1" } },
    status: { whole: 429, stream: 429 },
  },
  { name: "500", reply: { status: 500 }, status: { whole: 500, stream: 500 } },
  { name: "503", reply: { status: 503 }, status: { whole: 503, stream: 503 } },
];
/** No case may take longer than the timeouts it meets (500 ms each) plus slack. */
const LIMIT = { timeout: 4000 };

const modelName = (path: Path, fault: string, stream: boolean, fallback: Fallback) =>
  `${path}-${fault}-${stream ? "s" : "w"}-${fallback}`;

let gw: RunningGateway;
/** By provider id: a (chat) and x (messages) are the primaries; the others answer. */
const fakes: Record<string, FakeUpstream> = {};
/** Answers every request 200 with a stream whose first and only event is the protocol's error. */
let erring: Server;

function startErringUpstream(): Promise<Server> {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    if (req.url?.startsWith("/v1/messages"))
      res.end(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      );
    else
      res.end('data: {"error":{"message":"The server had an error","type":"server_error","code":null}}\n\n');
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const rawProvider = (id: string, protocol: string, baseUrl: string) => ({
  id,
  protocol,
  base_url: baseUrl,
  api_key: "k",
  timeouts: SHORT_TIMEOUTS,
});

before(async () => {
  const ids = ["a", "b", "c", "x", "y", "z"];
  const started = await Promise.all(ids.map((id) => startFakeUpstream(id === "x" ? "anthropic" : "openai")));
  ids.forEach((id, i) => {
    fakes[id] = started[i];
  });
  const models = [];
  for (const route of ROUTES)
    for (const fault of [...FAULTS.map((f) => f.name), "400", "both"])
      for (const stream of [false, true])
        for (const fallback of fallbacksOf(route))
          models.push(
            model(`rt/${modelName(route.path, fault, stream, fallback)}`, [
              route.primary,
              route.next,
              route.named,
            ]),
          );
  for (const stream of [false, true])
    for (const fallback of fallbacksOf(ROUTES[0]))
      models.push(model(`rt/dead-${stream ? "s" : "w"}-${fallback}`, ["dead", "b", "c"]));
  erring = await startErringUpstream();
  const erringUrl = `http://127.0.0.1:${(erring.address() as AddressInfo).port}`;
  models.push(model("rt/err-chat", ["err-chat", "b"]), model("rt/err-messages", ["err-messages", "b"]));
  const dir = mkdtempSync(join(tmpdir(), "switchyard-faults-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        ...ids.map((id) => fakeProvider(id, fakes[id])),
        // Nothing listens there: every connection is refused.
        rawProvider("dead", "openai", "http://127.0.0.1:9/v1"),
        rawProvider("err-chat", "openai", `${erringUrl}/v1`),
        rawProvider("err-messages", "anthropic", erringUrl),
      ],
      models,
      // The breaker is tested elsewhere: here every case must reach its primary.
      routing: { health: { failure_threshold: 100000 } },
    }),
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((f) => f.close()));
  erring?.close();
});

/** Requests the route's fakes received during `run`. */
async function counting(route: Pick<Route, "primary" | "next" | "named">, run: () => Promise<ChatResult>) {
  const count = (id: string) => fakes[id]?.requests.length ?? 0;
  const before = { primary: count(route.primary), next: count(route.next), named: count(route.named) };
  const result = await run();
  const sent = {
    primary: count(route.primary) - before.primary,
    next: count(route.next) - before.next,
    named: count(route.named) - before.named,
  };
  return { result, sent };
}

function send(path: Path, fault: string, stream: boolean, fallback: Fallback) {
  return chat(gw, {
    model: `rt/${modelName(path, fault, stream, fallback)}`,
    stream,
    provider: { routing: { fallback } },
  });
}

function assertFallbackAnswer(r: ChatResult, stream: boolean, provider: string) {
  assert.equal(r.status, 200);
  assert.equal(r.headers.get("x-switchyard-provider"), provider);
  if (stream) assert.equal(streamedText(r.frames!), DEFAULT_TEXT);
  else assert.equal(r.json.choices[0].message.content, DEFAULT_TEXT);
}

function assertCleanError(r: ChatResult, status: number) {
  assert.equal(r.status, status, JSON.stringify(r.json));
  assert.equal(typeof r.json.error.message, "string");
  assert.doesNotMatch(r.json.error.message, /Internal error in the gateway/, "never a 500 of our own making");
  assert.equal(typeof r.json.error.type, "string");
}

/** A stream that started, then broke: some text, then one error chunk, then [DONE]. */
function assertBrokenStream(r: ChatResult) {
  assert.equal(r.status, 200);
  const frames = r.frames!;
  const errors = frames.filter((f) => f !== "[DONE]" && f.error);
  assert.equal(errors.length, 1, `one error chunk in ${JSON.stringify(frames)}`);
  assert.equal(frames.at(-2), errors[0], "the error chunk is the last before [DONE]");
  assert.equal(typeof errors[0].error.message, "string");
  const text = streamedText(frames);
  // Part of the text (all of it when only the closing events were lost), and no second answer.
  assert.ok(text.length > 0 && DEFAULT_TEXT.startsWith(text), `the primary's text: '${text}'`);
}

// The two paths use disjoint fakes and models: they run side by side, each case in turn.
describe("fault matrix", { concurrency: 2 }, () => {
  for (const route of ROUTES) {
    const { path, primary, next, named } = route;
    const fake = () => fakes[primary];
    describe(`${path} path`, { concurrency: 1 }, () => {
      for (const f of FAULTS) {
        for (const stream of [false, true]) {
          const committed = stream && f.afterFirstByte === true;
          for (const fallback of fallbacksOf(route)) {
            const label = `${f.name}, ${stream ? "streamed" : "whole"}, fallback ${fallback}`;
            test(label, LIMIT, async () => {
              fake().script(f.reply);
              const { result: r, sent } = await counting(route, () => send(path, f.name, stream, fallback));
              const rec = await record(gw, r.generationId);
              if (committed) {
                // The first bytes reached the client: no silent retry, whatever the setting.
                assertBrokenStream(r);
                assert.deepEqual(sent, { primary: 1, next: 0, named: 0 });
                assert.equal(r.headers.get("x-switchyard-provider"), primary);
                assert.equal(rec.status, "failed");
                assert.equal(rec.requestRetryTimes, 0);
                assert.equal(rec.finalRetry, fallback === "false");
                assert.equal(rec.provider, primary);
                return;
              }
              if (fallback === "false") {
                const status = stream ? f.status.stream : f.status.whole;
                assertCleanError(r, path === "translated" ? (f.status.translated ?? status) : status);
                if (f.name === "429") assert.equal(r.headers.get("retry-after"), "1");
                assert.deepEqual(sent, { primary: 1, next: 0, named: 0 });
                assert.equal(r.headers.get("x-switchyard-provider"), primary);
                assert.equal(rec.status, "failed");
                assert.equal(rec.requestRetryTimes, 0);
                assert.equal(rec.finalRetry, true);
                assert.equal(rec.provider, primary);
                return;
              }
              const to = fallback === "true" ? next : named;
              assertFallbackAnswer(r, stream, to);
              assert.deepEqual(sent, { primary: 1, next: to === next ? 1 : 0, named: to === named ? 1 : 0 });
              assert.equal(rec.status, "completed");
              assert.equal(rec.requestRetryTimes, 1);
              // [primary, next, named]: next answered with named still planned; [primary, named]: the last.
              assert.equal(rec.finalRetry, to === named);
              assert.equal(rec.provider, to);
            });
          }
        }
      }

      for (const stream of [false, true]) {
        const mode = stream ? "streamed" : "whole";
        test(`a 400 caused by the request is never retried (${mode})`, LIMIT, async () => {
          fake().script({ status: 400 });
          const { result: r, sent } = await counting(route, () => send(path, "400", stream, "true"));
          assertCleanError(r, 400);
          assert.deepEqual(sent, { primary: 1, next: 0, named: 0 });
          const rec = await record(gw, r.generationId);
          assert.equal(rec.requestRetryTimes, 0);
          assert.equal(rec.finalRetry, false, "the others were planned but not tried");
        });

        test(`fallback to a named provider that fails too returns its error (${mode})`, LIMIT, async () => {
          fake().script({ status: 503 });
          fakes[named].script({ status: 500 });
          const { result: r, sent } = await counting(route, () => send(path, "both", stream, named));
          assertCleanError(r, 500);
          assert.deepEqual(sent, { primary: 1, next: 0, named: 1 });
          assert.equal(r.headers.get("x-switchyard-provider"), named);
          const rec = await record(gw, r.generationId);
          assert.equal(rec.status, "failed");
          assert.equal(rec.requestRetryTimes, 1);
          assert.equal(rec.finalRetry, true);
          assert.equal(rec.provider, named);
        });
      }
    });
  }
});

describe("a provider that refuses connections", () => {
  for (const stream of [false, true]) {
    for (const fallback of fallbacksOf(ROUTES[0])) {
      test(`${stream ? "streamed" : "whole"}, fallback ${fallback}`, LIMIT, async () => {
        const mode = stream ? "s" : "w";
        const { result: r, sent } = await counting({ primary: "dead", next: "b", named: "c" }, () =>
          chat(gw, { model: `rt/dead-${mode}-${fallback}`, stream, provider: { routing: { fallback } } }),
        );
        const rec = await record(gw, r.generationId);
        if (fallback === "false") {
          assertCleanError(r, 502);
          assert.match(r.json.error.message, /could not be reached/);
          assert.equal(rec.requestRetryTimes, 0);
          assert.equal(rec.provider, "dead");
          return;
        }
        const to = fallback === "true" ? "b" : "c";
        assertFallbackAnswer(r, stream, to);
        assert.deepEqual(sent, { primary: 0, next: to === "b" ? 1 : 0, named: to === "c" ? 1 : 0 });
        assert.equal(rec.requestRetryTimes, 1);
        assert.equal(rec.provider, to);
      });
    }
  }
});

describe("an error event before any byte reached the client", () => {
  for (const upstream of ["chat", "messages"]) {
    test(`falls back like an error status (${upstream} upstream)`, LIMIT, async () => {
      const r = await chat(gw, { model: `rt/err-${upstream}`, stream: true });
      assertFallbackAnswer(r, true, "b");
      const rec = await record(gw, r.generationId);
      assert.equal(rec.requestRetryTimes, 1);
      assert.equal(rec.status, "completed");
    });
  }
});

describe("through the official SDK", () => {
  const client = () => new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

  test("a primary that hangs falls back within first_byte_ms, streamed", LIMIT, async () => {
    fakes.a.script({ fault: "hang" });
    const started = Date.now();
    const stream = await client().chat.completions.create({
      model: "rt/relay-hang-s-true",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    assert.equal(text, DEFAULT_TEXT);
    assert.ok(Date.now() - started < 1500, "the 500 ms first-byte timeout moved on");
  });

  test("a stream that stalls midway ends in an APIError after idle_ms, not a hang", LIMIT, async () => {
    fakes.a.script({ fault: "stall-mid", ...SLOW });
    const stream = await client().chat.completions.create({
      model: "rt/relay-stall-mid-s-true",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    let text = "";
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
      })(),
      (err: unknown) => err instanceof APIError && /stalled/.test(err.message),
    );
    assert.ok(text.length > 0 && DEFAULT_TEXT.startsWith(text));
  });

  test("fallback false: the upstream's 503 is the SDK's APIError with status 503", LIMIT, async () => {
    fakes.a.script({ status: 503 });
    await assert.rejects(
      client().chat.completions.create({
        model: "rt/relay-503-w-false",
        messages: [{ role: "user", content: "hi" }],
        // @ts-expect-error gateway routing field
        provider: { routing: { fallback: "false" } },
      }),
      (err: unknown) => err instanceof APIError && err.status === 503,
    );
  });
});

// Each scripted fault produces the failure it claims, on every protocol's fake, seen both on the raw
// wire and through the official SDKs.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { APIConnectionError, APIError } from "openai";
import { type FakeProtocol, type FakeUpstream, type Reply, startFakeUpstream } from "./index.ts";
import { parseFrames } from "./read-frames.ts";

const PROTOCOLS: FakeProtocol[] = ["openai", "anthropic", "gemini"];
const TEXT: Reply = { blocks: [{ type: "text", text: "one two three four five six" }], chunks: 6 };

const fakes = {} as Record<FakeProtocol, FakeUpstream>;
before(async () => {
  for (const p of PROTOCOLS) fakes[p] = await startFakeUpstream(p);
});
after(async () => {
  for (const p of PROTOCOLS) await fakes[p].close();
});
// A failing test must not leave replies behind for the next one.
beforeEach(() => {
  for (const p of PROTOCOLS) fakes[p].reset();
});
// A fault that misbehaves would otherwise hang the run.
const LIMIT = { timeout: 3000 };

/** A minimal valid request for the protocol, as fetch() arguments. */
function request(p: FakeProtocol, stream: boolean, signal?: AbortSignal): [string, RequestInit] {
  const fake = fakes[p];
  const init = (headers: Record<string, string>, body: unknown): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal,
  });
  const messages = [{ role: "user", content: "hi" }];
  if (p === "openai") {
    return [
      `${fake.url}/chat/completions`,
      init(
        { authorization: "Bearer k" },
        { model: "m", messages, stream, stream_options: { include_usage: true } },
      ),
    ];
  }
  if (p === "anthropic") {
    return [
      `${fake.url}/v1/messages`,
      init(
        { "x-api-key": "k", "anthropic-version": "2023-06-01" },
        { model: "m", max_tokens: 64, messages, stream },
      ),
    ];
  }
  const method = stream ? "streamGenerateContent?alt=sse" : "generateContent";
  return [
    `${fake.url}/v1beta/models/m:${method}`,
    init({ "x-goog-api-key": "k" }, { contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  ];
}

/** Settles to "pending" if the promise has not settled within `ms`. */
function pendingAfter(promise: Promise<unknown>, ms: number): Promise<unknown> {
  return Promise.race([
    promise.then(
      () => "settled",
      () => "settled",
    ),
    new Promise((resolve) => setTimeout(() => resolve("pending"), ms)),
  ]);
}

for (const p of PROTOCOLS) {
  describe(`${p} fake faults`, () => {
    test("refuse: the connection is reset before anything is answered", LIMIT, async () => {
      const fake = fakes[p];
      const before = fake.requests.length;
      fake.script({ fault: "refuse" });
      await assert.rejects(fetch(...request(p, false)), TypeError);
      assert.equal(fake.requests.length, before + 1);
      assert.equal(fake.requests.at(-1)!.body, undefined, "the body is never read");
      assert.equal(fake.requests.at(-1)!.aborted, false, "a reset by the fake is not a client abort");
    });

    test("reset-before: the request is read and recorded, then the connection is reset", LIMIT, async () => {
      const fake = fakes[p];
      fake.script({ fault: "reset-before" });
      await assert.rejects(fetch(...request(p, true)), TypeError);
      assert.ok(fake.requests.at(-1)!.rawBody.length > 0);
      assert.equal(typeof fake.requests.at(-1)!.body, "object");
    });

    test("reset-mid: headers and some chunks arrive, then the body breaks", LIMIT, async () => {
      fakes[p].script({ ...TEXT, fault: "reset-mid" }, { ...TEXT, fault: "reset-mid" });
      const streamed = await fetch(...request(p, true));
      assert.equal(streamed.status, 200);
      const reader = streamed.body!.getReader();
      const first = await reader.read();
      assert.ok(first.value && first.value.length > 0, "some chunks came before the reset");
      await assert.rejects(
        (async () => {
          while (!(await reader.read()).done);
        })(),
      );
      const whole = await fetch(...request(p, false));
      assert.equal(whole.status, 200);
      await assert.rejects(whole.text());
    });

    test("hang: no answer until the client aborts, and the abort is recorded", LIMIT, async () => {
      const fake = fakes[p];
      const before = fake.requests.length;
      fake.script({ fault: "hang" });
      const controller = new AbortController();
      const pending = fetch(...request(p, true, controller.signal));
      await fake.until(() => fake.requests.length === before + 1);
      assert.equal(await pendingAfter(pending, 100), "pending");
      controller.abort();
      await assert.rejects(pending, { name: "AbortError" });
      const recorded = fake.requests[before];
      await fake.until(() => recorded.aborted);
      assert.ok(recorded.abortedAt! >= recorded.receivedAt);
    });

    test(
      "stall-mid: some chunks, then silence with the socket open; the abort is recorded",
      LIMIT,
      async () => {
        const fake = fakes[p];
        fake.script({ ...TEXT, fault: "stall-mid" });
        const controller = new AbortController();
        const res = await fetch(...request(p, true, controller.signal));
        const reader = res.body!.getReader();
        const first = await reader.read();
        assert.ok(first.value && first.value.length > 0);
        // Drain whatever was sent; then the next read must stay pending.
        let next = reader.read();
        while ((await pendingAfter(next, 50)) === "settled") next = reader.read();
        assert.equal(await pendingAfter(next, 100), "pending");
        controller.abort();
        await assert.rejects(next);
        const recorded = fake.requests.at(-1)!;
        await fake.until(() => recorded.aborted);
      },
    );

    test(
      "malformed-json: a 200 body that is not JSON; in a stream, a data: line that is not JSON",
      LIMIT,
      async () => {
        fakes[p].script({ fault: "malformed-json" }, { ...TEXT, fault: "malformed-json" });
        const whole = await fetch(...request(p, false));
        assert.equal(whole.status, 200);
        await assert.rejects(whole.json(), SyntaxError);
        const frames = parseFrames(await (await fetch(...request(p, true))).text());
        assert.ok(frames.length >= 2);
        JSON.parse(frames[0].data);
        assert.throws(() => JSON.parse(frames.at(-1)!.data), SyntaxError);
      },
    );

    test("truncated-sse: the stream ends cleanly without its closing events", LIMIT, async () => {
      fakes[p].script({ ...TEXT, fault: "truncated-sse" });
      const text = await (await fetch(...request(p, true))).text();
      const frames = parseFrames(text);
      assert.ok(frames.length >= 2, "content came before the end");
      if (p === "openai") {
        assert.ok(!text.includes("[DONE]"));
        assert.ok(frames.every((f) => JSON.parse(f.data).choices[0]?.finish_reason === null));
      } else if (p === "anthropic") {
        assert.ok(!frames.some((f) => f.event === "message_delta" || f.event === "message_stop"));
      } else {
        assert.ok(frames.every((f) => !JSON.parse(f.data).candidates[0].finishReason));
      }
    });

    test("midstream-error: some chunks, then the protocol's native in-stream error", LIMIT, async () => {
      fakes[p].script({ ...TEXT, fault: "midstream-error" });
      const frames = parseFrames(await (await fetch(...request(p, true))).text());
      if (p === "openai") {
        assert.equal(frames.at(-1)!.data, "[DONE]");
        assert.equal(JSON.parse(frames.at(-2)!.data).error.type, "server_error");
      } else if (p === "anthropic") {
        assert.equal(frames.at(-1)!.event, "error");
        assert.deepEqual(JSON.parse(frames.at(-1)!.data).error, {
          type: "overloaded_error",
          message: "Overloaded",
        });
      } else {
        assert.equal(JSON.parse(frames.at(-1)!.data).error.status, "UNAVAILABLE");
      }
      assert.ok(frames.length >= 3, "content came before the error");
    });

    test(
      "burst: the frames before the fault and the fault's bytes come in the first read",
      LIMIT,
      async () => {
        fakes[p].script({ ...TEXT, burst: true, fault: "malformed-json" });
        const res = await fetch(...request(p, true));
        const reader = res.body!.getReader();
        const first = new TextDecoder().decode((await reader.read()).value);
        const frames = parseFrames(first);
        assert.ok(frames.length >= 3, `content and the fault in one read: ${first}`);
        JSON.parse(frames[0].data);
        assert.throws(() => JSON.parse(frames.at(-1)!.data), SyntaxError);
        assert.equal((await reader.read()).done, true, "nothing after the fault");
      },
    );

    test("burst with a pause: the fault's bytes come in a later read", LIMIT, async () => {
      fakes[p].script({ ...TEXT, burst: true, chunkDelayMs: 100, fault: "malformed-json" });
      const res = await fetch(...request(p, true));
      const reader = res.body!.getReader();
      const first = parseFrames(new TextDecoder().decode((await reader.read()).value));
      assert.ok(first.length >= 2, "the frames before the fault came together, unpaced");
      for (const frame of first) JSON.parse(frame.data);
    });
  });
}

describe("faults through the SDKs", () => {
  test("openai: refuse is an APIConnectionError", LIMIT, async () => {
    const client = new OpenAI({ apiKey: "k", baseURL: fakes.openai.url, maxRetries: 0 });
    fakes.openai.script({ fault: "refuse" });
    await assert.rejects(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      APIConnectionError,
    );
  });

  test(
    "openai: midstream-error rejects the stream with an APIError; truncated-sse has no finish",
    LIMIT,
    async () => {
      const client = new OpenAI({ apiKey: "k", baseURL: fakes.openai.url, maxRetries: 0 });
      const params = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
      fakes.openai.script({ ...TEXT, fault: "midstream-error" }, { ...TEXT, fault: "truncated-sse" });
      await assert.rejects(client.chat.completions.stream(params).finalChatCompletion(), APIError);
      await assert.rejects(
        client.chat.completions.stream(params).finalChatCompletion(),
        /missing finish_reason/,
      );
    },
  );

  test(
    "anthropic: midstream-error is an overloaded_error; truncated-sse never completes a message",
    LIMIT,
    async () => {
      const client = new Anthropic({ apiKey: "k", baseURL: fakes.anthropic.url, maxRetries: 0 });
      const params = { model: "m", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
      fakes.anthropic.script({ ...TEXT, fault: "midstream-error" }, { ...TEXT, fault: "truncated-sse" });
      await assert.rejects(client.messages.stream(params).finalMessage(), (err: unknown) => {
        assert.ok(err instanceof Anthropic.APIError);
        assert.equal((err.error as any).error.type, "overloaded_error");
        return true;
      });
      await assert.rejects(client.messages.stream(params).finalMessage(), /without producing a Message/);
    },
  );

  test("gemini: midstream-error throws while iterating the stream", LIMIT, async () => {
    const ai = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: fakes.gemini.url } });
    fakes.gemini.script({ ...TEXT, fault: "midstream-error" });
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const chunk of await ai.models.generateContentStream({ model: "m", contents: "hi" })) {
        seen.push(chunk.text ?? "");
      }
    }, /UNAVAILABLE|overloaded/);
    assert.ok(seen.length > 0, "chunks arrived before the error");
  });
});

describe("fake server behaviour", () => {
  test("chunkDelayMs spaces the chunks out", LIMIT, async () => {
    fakes.openai.script({ blocks: [{ type: "text", text: "abc" }], chunkDelayMs: 30 });
    const started = Date.now();
    const frames = parseFrames(await (await fetch(...request("openai", true))).text());
    // role, 3 pieces, finish, usage, [DONE]: six pauses.
    assert.equal(frames.length, 7);
    assert.ok(Date.now() - started >= 6 * 30 - 5, `took ${Date.now() - started} ms`);
  });

  test("replies are used first in, first out", LIMIT, async () => {
    const a: Reply = { blocks: [{ type: "text", text: "first" }] };
    const b: Reply = { blocks: [{ type: "text", text: "second" }] };
    fakes.gemini.script(a, b);
    const one: any = await (await fetch(...request("gemini", false))).json();
    const two: any = await (await fetch(...request("gemini", false))).json();
    assert.equal(one.candidates[0].content.parts[0].text, "first");
    assert.equal(two.candidates[0].content.parts[0].text, "second");
    assert.equal(fakes.gemini.queued, 0);
  });

  test("errorBody replaces the native error body; status keeps its headers", LIMIT, async () => {
    fakes.anthropic.script({ status: 503, errorBody: { custom: true }, headers: { "x-why": "test" } });
    const res = await fetch(...request("anthropic", false));
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("x-why"), "test");
    assert.deepEqual(await res.json(), { custom: true });
  });

  test(
    "close() does not wait for a hung request, and does not record it as a client abort",
    LIMIT,
    async () => {
      const fake = await startFakeUpstream("openai");
      fake.script({ fault: "hang" });
      const [url, init] = request("openai", false);
      const pending = fetch(url.replace(fakes.openai.url, fake.url), init);
      await fake.until(() => fake.requests.length === 1);
      const started = Date.now();
      await fake.close();
      assert.ok(Date.now() - started < 500);
      await assert.rejects(pending);
      assert.equal(fake.requests[0].aborted, false);
    },
  );
});

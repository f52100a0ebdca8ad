// The 4 × 4 matrix, chat-completions column: the unmodified `openai` SDK (chat.completions) against
// one gateway whose four models are served by fake OpenAI chat, Anthropic, Gemini and OpenAI
// Responses upstreams, each route streamed and not. Every test asserts what the client got AND what the
// upstream received. Plus: the same-protocol relay is byte-exact but for id and model, and a translated
// stream reaches the client while the upstream is still sending.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import OpenAI from "openai";
import type { RecordedRequest } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import {
  ANSWER,
  ASSISTANT_1,
  callId,
  IMAGE_PROMPT,
  IMAGE_URL,
  JSON_ANSWER,
  JSON_PROMPT,
  JSON_SCHEMA,
  LENGTH_MAX_TOKENS,
  MULTIBYTE_TEXT,
  PARALLEL_ARGS,
  PARALLEL_PROMPT,
  PARALLEL_RESULTS,
  PNG_BASE64,
  parallelReply,
  STOP,
  STOP_MAX_TOKENS,
  STOP_PROMPT,
  SYSTEM,
  TEMPERATURE,
  THINKING_SIGNATURE,
  THINKING_TEXT,
  TIME_TOOL,
  TOOL_ANSWER,
  TOOL_PROMPT,
  textReply,
  thinkingReply,
  toolCallReply,
  USAGE,
  USER_1,
  USER_2,
  WEATHER_ARGS,
  WEATHER_RESULT,
  WEATHER_RESULT_TEXT,
  WEATHER_TOOL,
} from "./fixtures.ts";
import { type Matrix, MODEL, startMatrix, UPSTREAM_MODEL, UPSTREAMS, type Upstream } from "./harness.ts";
import {
  checkClientCallId,
  checkEnvelope,
  checkImages,
  checkJsonFormat,
  checkMultiTurn,
  checkNothingElse,
  checkPrompt,
  checkReasoningSettings,
  checkSignaturesReplayed,
  checkStopSequences,
  checkToolsOffered,
  checkToolTurn,
  type ReasoningExpectation,
  type Route,
  routeName,
} from "./upstream-checks.ts";
import { reportedUsage } from "./usage-expectations.ts";
import { frameData, replaceFirstString, sseFrames } from "./wire-text.ts";

type Json = Record<string, any>;
type Params = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, "stream">;

let m: Matrix;
let client: OpenAI;

before(async () => {
  m = await startMatrix();
  client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${m.gw.url}/v1`, maxRetries: 0 });
});
after(() => m?.close());
beforeEach(() => m.reset());

const TOOLS: OpenAI.ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: WEATHER_TOOL.name,
      description: WEATHER_TOOL.description,
      parameters: WEATHER_TOOL.schema,
    },
  },
  {
    type: "function",
    function: { name: TIME_TOOL.name, description: TIME_TOOL.description, parameters: TIME_TOOL.schema },
  },
];

const CHAT_FORMAT = {
  type: "json_schema" as const,
  json_schema: { name: "weather", schema: JSON_SCHEMA, strict: true },
};

/** reasoning_effort "low", as each upstream must receive it (the gateway's documented mapping). */
const REASONING: ReasoningExpectation = {
  openai: { reasoning_effort: "low" },
  anthropic: { thinking: { type: "enabled", budget_tokens: 2048 } },
  gemini: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
  "openai-responses": { reasoning: { effort: "low", summary: "auto" } },
};

/** What one call gave the client: the assembled completion and, when streamed, every chunk. */
interface ChatResult {
  completion: OpenAI.ChatCompletion;
  message: OpenAI.ChatCompletionMessage & Json;
  chunks: OpenAI.ChatCompletionChunk[];
}

async function chat(route: Route, params: Params): Promise<ChatResult> {
  if (!route.stream) {
    const completion = await client.chat.completions.create({ ...params, stream: false });
    return { completion, message: completion.choices[0].message, chunks: [] };
  }
  const stream = client.chat.completions.stream({ ...params, stream: true });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const completion = await stream.finalChatCompletion();
  return { completion, message: completion.choices[0].message, chunks };
}

/** Deltas of the first choice. */
function deltas(result: ChatResult): Json[] {
  return result.chunks.flatMap((c) => (c.choices[0]?.delta ? [c.choices[0].delta as Json] : []));
}

/** The reasoning as the client saw it: the message fields, or every streamed piece joined. */
function reasoningSeen(result: ChatResult, route: Route): { text: string; details: Json[] } {
  if (!route.stream) return { text: result.message.reasoning, details: result.message.reasoning_details };
  const pieces = deltas(result);
  return {
    text: pieces.map((d) => d.reasoning ?? "").join(""),
    details: pieces.flatMap((d) => d.reasoning_details ?? []),
  };
}

/**
 * The assistant turn sent back as the SDK returned it. A streamed turn's `reasoning_details` are the
 * pieces of every chunk: the SDK's helper keeps only the last piece of fields it does not know, and
 * they must come back in full (docs/architecture.md §8).
 */
function replayTurn(result: ChatResult, route: Route): OpenAI.ChatCompletionMessageParam {
  const turn: Json = { ...result.message };
  if (route.stream) {
    const seen = reasoningSeen(result, route);
    if (seen.details.length > 0) turn.reasoning_details = seen.details;
    if (seen.text) turn.reasoning = seen.text;
  }
  return turn as OpenAI.ChatCompletionMessageParam;
}

function only(fake: Upstream): RecordedRequest {
  assert.equal(m.fakes[fake].requests.length, 1, "one upstream request");
  return m.fakes[fake].requests[0];
}

function checkIdentity(result: ChatResult, upstream: Upstream): void {
  assert.match(result.completion.id, /^gen-/);
  assert.equal(result.completion.model, MODEL[upstream]);
  for (const chunk of result.chunks) {
    assert.equal(chunk.id, result.completion.id, "every chunk carries the generation id");
    assert.equal(chunk.model, MODEL[upstream]);
  }
}

for (const upstream of UPSTREAMS) {
  for (const stream of [false, true]) {
    const route: Route = { client: "openai", upstream, stream };
    const model = MODEL[upstream];
    const fake = () => m.fakes[upstream];

    describe(routeName(route), () => {
      test("multi-turn text with a system prompt", async () => {
        fake().script(textReply(ANSWER));
        const result = await chat(route, {
          model,
          messages: [
            { role: "system", content: SYSTEM },
            { role: "user", content: USER_1 },
            { role: "assistant", content: ASSISTANT_1 },
            { role: "user", content: USER_2 },
          ],
          temperature: TEMPERATURE,
        });
        assert.equal(result.message.content, ANSWER);
        assert.equal(result.completion.choices[0].finish_reason, "stop");
        checkIdentity(result, upstream);
        if (stream) {
          assert.ok(deltas(result).filter((d) => d.content).length >= 2, "text arrives in pieces");
          assert.equal(deltas(result)[0].role, "assistant", "the opening delta carries the role");
          assert.ok(
            result.chunks.every((c) => !c.usage),
            "no usage chunk: the client did not ask for one",
          );
        }
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkMultiTurn(req, route);
        checkNothingElse(req);
      });

      test("an image as base64 PNG and as a URL", async () => {
        fake().script(textReply("A transparent pixel and a cat."));
        const result = await chat(route, {
          model,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: IMAGE_PROMPT },
                { type: "image_url", image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
                { type: "image_url", image_url: { url: IMAGE_URL } },
              ],
            },
          ],
        });
        assert.equal(result.message.content, "A transparent pixel and a cat.");
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkImages(req, route);
        checkNothingElse(req);
      });

      test("a tool call whose arguments arrive in pieces, then the tool-result turn", async () => {
        fake().script(toolCallReply(upstream), textReply(TOOL_ANSWER));
        const first = await chat(route, {
          model,
          messages: [{ role: "user", content: TOOL_PROMPT }],
          tools: TOOLS,
          tool_choice: "required",
        });
        assert.equal(first.completion.choices[0].finish_reason, "tool_calls");
        const calls = first.message.tool_calls ?? [];
        assert.equal(calls.length, 1);
        const call = calls[0];
        assert.ok(call.type === "function");
        assert.equal(call.function.name, WEATHER_TOOL.name);
        assert.deepEqual(JSON.parse(call.function.arguments), WEATHER_ARGS);
        checkClientCallId(call.id, callId(upstream, 1));
        if (stream) {
          const pieces = deltas(first).flatMap((d) =>
            (d.tool_calls ?? [])
              .filter((t: Json) => t.function?.arguments)
              .map((t: Json) => t.function.arguments),
          );
          // Gemini sends a call whole; the others stream the arguments text, passed on piece by piece.
          if (upstream === "gemini") assert.equal(pieces.length, 1);
          else assert.ok(pieces.length >= 3, `arguments in ${pieces.length} pieces`);
          assert.equal(pieces.join(""), call.function.arguments);
          const openings = deltas(first).flatMap((d) => (d.tool_calls ?? []).filter((t: Json) => t.id));
          assert.equal(openings.length, 1, "id, type and name come once, on the opening piece");
        }
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route, "required");
        checkNothingElse(req1);

        const second = await chat(route, {
          model,
          messages: [
            { role: "user", content: TOOL_PROMPT },
            replayTurn(first, route),
            { role: "tool", tool_call_id: call.id, content: WEATHER_RESULT_TEXT },
          ],
          tools: TOOLS,
        });
        assert.equal(second.message.content, TOOL_ANSWER);
        assert.equal(second.completion.choices[0].finish_reason, "stop");
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, undefined);
        checkToolsOffered(req2, route);
        checkToolTurn(
          req2,
          route,
          TOOL_PROMPT,
          [{ id: callId(upstream, 1), name: WEATHER_TOOL.name, args: WEATHER_ARGS }],
          [WEATHER_RESULT],
        );
        checkNothingElse(req2);
      });

      test("two parallel tool calls, answered together", async () => {
        fake().script(parallelReply(upstream), textReply(TOOL_ANSWER));
        const first = await chat(route, {
          model,
          messages: [{ role: "user", content: PARALLEL_PROMPT }],
          tools: TOOLS,
          tool_choice: "auto",
        });
        assert.equal(first.completion.choices[0].finish_reason, "tool_calls");
        const calls = (first.message.tool_calls ?? []).filter((c) => c.type === "function");
        assert.deepEqual(
          calls.map((c) => ({ name: c.function.name, args: JSON.parse(c.function.arguments) })),
          PARALLEL_ARGS.map((args) => ({ name: WEATHER_TOOL.name, args })),
        );
        calls.forEach((c, i) => {
          checkClientCallId(c.id, callId(upstream, i + 1));
        });
        assert.equal(new Set(calls.map((c) => c.id)).size, 2, "distinct call ids");
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, PARALLEL_PROMPT);
        checkToolsOffered(req1, route, "auto");
        checkNothingElse(req1);

        await chat(route, {
          model,
          messages: [
            { role: "user", content: PARALLEL_PROMPT },
            replayTurn(first, route),
            ...calls.map(
              (c, i): OpenAI.ChatCompletionToolMessageParam => ({
                role: "tool",
                tool_call_id: c.id,
                content: JSON.stringify(PARALLEL_RESULTS[i]),
              }),
            ),
          ],
          tools: TOOLS,
        });
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, undefined);
        checkToolsOffered(req2, route);
        checkToolTurn(
          req2,
          route,
          PARALLEL_PROMPT,
          PARALLEL_ARGS.map((args, i) => ({ id: callId(upstream, i + 1), name: WEATHER_TOOL.name, args })),
          PARALLEL_RESULTS,
        );
        checkNothingElse(req2);
      });

      test("structured JSON output (response_format json_schema)", async () => {
        fake().script(textReply(JSON.stringify(JSON_ANSWER)));
        const result = await chat(route, {
          model,
          messages: [{ role: "user", content: JSON_PROMPT }],
          response_format: CHAT_FORMAT,
        });
        assert.deepEqual(JSON.parse(result.message.content ?? ""), JSON_ANSWER);
        assert.equal(result.completion.choices[0].finish_reason, "stop");
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkPrompt(req, route, JSON_PROMPT);
        checkJsonFormat(req, route, CHAT_FORMAT);
        checkNothingElse(req);
      });

      test("a stop sequence ends the turn as stop", async () => {
        fake().script(textReply("1, 2, 3, ", { finish: "stop_sequence", stopSequence: STOP }));
        const result = await chat(route, {
          model,
          messages: [{ role: "user", content: STOP_PROMPT }],
          stop: [STOP],
          max_completion_tokens: STOP_MAX_TOKENS,
        });
        assert.equal(result.message.content, "1, 2, 3, ");
        // The chat protocol has no stop_sequence reason: a matched stop is a natural stop
        // (docs/architecture.md §8).
        assert.equal(result.completion.choices[0].finish_reason, "stop");
        const req = only(upstream);
        checkEnvelope(req, route, STOP_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkStopSequences(req, route);
        checkNothingElse(req);
      });

      test("the max-tokens limit ends the turn as length", async () => {
        fake().script(textReply("One two three four five", { finish: "length" }));
        const result = await chat(route, {
          model,
          messages: [{ role: "user", content: STOP_PROMPT }],
          max_completion_tokens: LENGTH_MAX_TOKENS,
        });
        assert.equal(result.completion.choices[0].finish_reason, "length");
        const req = only(upstream);
        checkEnvelope(req, route, LENGTH_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkNothingElse(req);
      });

      test("thinking signatures survive a second tool-calling turn", async () => {
        fake().script(thinkingReply(upstream), textReply(TOOL_ANSWER));
        const first = await chat(route, {
          model,
          messages: [{ role: "user", content: TOOL_PROMPT }],
          tools: TOOLS,
          reasoning_effort: "low",
        });
        const seen = reasoningSeen(first, route);
        assert.equal(seen.text, THINKING_TEXT);
        assert.deepEqual(
          seen.details.filter((d) => d.signature).map((d) => d.signature),
          [THINKING_SIGNATURE],
        );
        const call = first.message.tool_calls?.[0];
        assert.ok(call && call.type === "function");
        assert.equal(call.function.name, WEATHER_TOOL.name);
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route);
        checkReasoningSettings(req1, route, REASONING);
        checkNothingElse(req1);

        await chat(route, {
          model,
          messages: [
            { role: "user", content: TOOL_PROMPT },
            replayTurn(first, route),
            { role: "tool", tool_call_id: call.id, content: WEATHER_RESULT_TEXT },
          ],
          tools: TOOLS,
          reasoning_effort: "low",
        });
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, undefined);
        checkToolsOffered(req2, route);
        checkReasoningSettings(req2, route, REASONING);
        checkSignaturesReplayed(req2, route);
        checkToolTurn(
          req2,
          route,
          TOOL_PROMPT,
          [{ id: callId(upstream, 1), name: WEATHER_TOOL.name, args: { city: "Paris" } }],
          [WEATHER_RESULT],
        );
        checkNothingElse(req2);
      });

      test("usage in chat semantics: prompt includes cache, completion includes reasoning", async () => {
        fake().script(textReply("ok", { usage: USAGE }));
        const result = await chat(route, {
          model,
          messages: [{ role: "user", content: "hi" }],
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        });
        const n = reportedUsage(upstream);
        const usage = result.completion.usage as Json;
        assert.equal(usage.prompt_tokens, n.prompt);
        assert.equal(usage.completion_tokens, n.completion);
        assert.equal(usage.total_tokens, n.prompt + n.completion);
        assert.equal(usage.prompt_tokens_details.cached_tokens, n.cacheRead);
        const writes = n.cacheWrite5m + n.cacheWrite1h;
        assert.equal(usage.prompt_tokens_details.cache_write_tokens, writes > 0 ? writes : undefined);
        assert.equal(usage.completion_tokens_details.reasoning_tokens, n.reasoning);
        if (stream) {
          const carrying = result.chunks.filter((c) => c.usage);
          assert.equal(carrying.length, 1, "usage comes once, in its own chunk");
          assert.deepEqual(carrying[0].choices, []);
          assert.equal(result.chunks.at(-1), carrying[0], "the usage chunk is the last");
        }
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkPrompt(req, route, "hi");
        checkNothingElse(req);
      });

      if (stream)
        test("multi-byte text split across network reads arrives intact", async () => {
          fake().script(textReply(MULTIBYTE_TEXT, { chunks: 1 }));
          const result = await chat(route, { model, messages: [{ role: "user", content: "Echo." }] });
          assert.equal(result.message.content, MULTIBYTE_TEXT);
        });
    });
  }
}

describe("a translated stream reaches the client while the upstream is still sending", () => {
  test("chat client ← gemini upstream, 8 pieces 150 ms apart", async () => {
    const pieces = 8;
    m.fakes.gemini.script(
      textReply("One. Two. Three. Four. Five. Six. Seven. Eight.", { chunks: pieces, chunkDelayMs: 150 }),
    );
    const stream = await client.chat.completions.create({
      model: MODEL.gemini,
      messages: [{ role: "user", content: "Count." }],
      stream: true,
    });
    const arrivals: number[] = [];
    let text = "";
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta?.content;
      if (piece) {
        arrivals.push(Date.now());
        text += piece;
      }
    }
    assert.equal(text, "One. Two. Three. Four. Five. Six. Seven. Eight.");
    assert.equal(arrivals.length, pieces, "each upstream piece is its own delta");
    const upstreamEnded = m.taps.gemini.answers[0].endedAt;
    assert.ok(upstreamEnded !== undefined);
    // The first delta left the gateway ≥ 3 piece intervals before the upstream's last byte.
    assert.ok(
      upstreamEnded - arrivals[0] >= 450,
      `first delta ${upstreamEnded - arrivals[0]} ms before the end`,
    );
    assert.ok(arrivals[pieces - 1] - arrivals[0] >= 450, "the deltas are spread as the upstream sent them");
  });
});

describe("a translated chat stream is well framed on the wire", () => {
  for (const upstream of ["anthropic", "gemini"] as const) {
    test(`chat client ← ${upstream} upstream: JSON chunks, then data: [DONE]`, async () => {
      m.fakes[upstream].script(textReply(ANSWER));
      const res = await fetch(`${m.gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: MODEL[upstream],
          stream: true,
          messages: [{ role: "user", content: "Hi" }],
        }),
      });
      assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
      const text = await res.text();
      assert.ok(text.endsWith("data: [DONE]\n\n"), "the stream ends with [DONE]");
      const frames = sseFrames(text);
      for (const frame of frames.slice(0, -1)) {
        const chunk = JSON.parse(frameData(frame));
        assert.equal(chunk.object, "chat.completion.chunk");
      }
    });
  }
});

describe("chat relay (chat client → chat upstream) is byte-exact but for id and model", () => {
  const EXTRA = {
    x_vendor_trace: { id: "nested-id", model: "nested-model", scores: [1, 2.5] },
    x_flag: true,
  };

  async function post(raw: string): Promise<{ text: string; id: string; contentType: string }> {
    const res = await fetch(`${m.gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: raw,
    });
    assert.equal(res.status, 200);
    const id = res.headers.get("x-generation-id") ?? "";
    assert.match(id, /^gen-/);
    return { text: await res.text(), id, contentType: res.headers.get("content-type") ?? "" };
  }

  /** The client's body as a chat upstream must receive it: only `model` (and stream_options) differ. */
  function upstreamBody(raw: string, addStreamOptions: boolean): string {
    const body = raw.replace(`"model":"${MODEL.openai}"`, `"model":"${UPSTREAM_MODEL.openai}"`);
    return addStreamOptions ? `${body.slice(0, -1)},"stream_options":{"include_usage":true}}` : body;
  }

  function identity(data: string, id: string): string {
    const withId = replaceFirstString(data, "id", id);
    return replaceFirstString(withId, "model", MODEL.openai);
  }

  test("a whole completion", async () => {
    const raw =
      '{"model":"fo/m","messages":[{"role":"user","content":"Hi \\u00e9t\\u00e9"}],"temperature":0.70,' +
      '"x_unknown_field":{"keep":[1,2.50,"é"]},"top_p":1.0}';
    m.fakes.openai.script(textReply("Hello!", { extraFields: EXTRA }));
    const { text, id } = await post(raw);
    assert.equal(m.fakes.openai.requests[0].rawBody, upstreamBody(raw, false));
    const sent = m.taps.openai.answers[0].text;
    assert.equal(text, identity(sent, id));
    assert.deepEqual(JSON.parse(text).x_vendor_trace, EXTRA.x_vendor_trace, "nested id/model untouched");
  });

  test("a stream whose client did not ask for usage: the usage-only chunk is withheld, and every chunk's usage: null", async () => {
    const raw =
      '{"model":"fo/m","stream":true,"messages":[{"role":"user","content":"Hi"}],"x_unknown":[true]}';
    m.fakes.openai.script(textReply("Hello there!", { extraFields: EXTRA, chunks: 3 }));
    const { text, id, contentType } = await post(raw);
    assert.match(contentType, /^text\/event-stream/);
    assert.equal(m.fakes.openai.requests[0].rawBody, upstreamBody(raw, true));
    const sent = sseFrames(m.taps.openai.answers[0].text);
    const usageOnly = sent.filter((f) => frameData(f).includes('"choices":[]'));
    assert.equal(usageOnly.length, 1, "the upstream did send usage (the gateway asked for it)");
    assert.ok(
      sent.some((f) => frameData(f).includes(',"usage":null')),
      "as OpenAI does, once asked",
    );
    // OpenAI writes no usage member at all to a client that did not ask.
    const expected = sent
      .filter((f) => !usageOnly.includes(f))
      .map((f) => (frameData(f) === "[DONE]" ? f : `data: ${identity(frameData(f), id)}`))
      .map((f) => f.replace(',"usage":null', ""))
      .map((f) => `${f}\n\n`)
      .join("");
    assert.equal(text, expected);
  });

  test("a stream whose client asked for usage gets every byte", async () => {
    const raw =
      '{"model":"fo/m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hi"}]}';
    m.fakes.openai.script(textReply("Hello there!", { extraFields: EXTRA, usage: USAGE }));
    const { text, id } = await post(raw);
    assert.equal(m.fakes.openai.requests[0].rawBody, upstreamBody(raw, false));
    const expected = sseFrames(m.taps.openai.answers[0].text)
      .map((f) => (frameData(f) === "[DONE]" ? f : `data: ${identity(frameData(f), id)}`))
      .map((f) => `${f}\n\n`)
      .join("");
    assert.equal(text, expected);
    assert.ok(text.includes('"choices":[]'), "the usage chunk reached the client");
  });
});

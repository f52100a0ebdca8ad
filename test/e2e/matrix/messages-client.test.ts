// The 4 × 4 matrix, messages column: the unmodified `@anthropic-ai/sdk` (messages.create and
// messages.stream) against one gateway whose four models are served by fake OpenAI chat, Anthropic,
// Gemini and OpenAI Responses upstreams, each route streamed and not. Every test asserts what the client got AND what the
// upstream received. Plus: the messages relay is byte-exact but for id and model (betas and
// cache_control included), and a translated stream reaches the client while the upstream still sends.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
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
type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, "stream">;

let m: Matrix;
let client: Anthropic;

before(async () => {
  m = await startMatrix();
  client = new Anthropic({ apiKey: PAYG_KEY, baseURL: m.gw.url, maxRetries: 0 });
});
after(() => m?.close());
beforeEach(() => m.reset());

/** The limit every request gives (the protocol requires one), unless a test says otherwise. */
const MAX_TOKENS = 1000;
const THINKING_MAX_TOKENS = 4096;

const TOOLS: Anthropic.Tool[] = [
  {
    name: WEATHER_TOOL.name,
    description: WEATHER_TOOL.description,
    input_schema: WEATHER_TOOL.schema as unknown as Anthropic.Tool.InputSchema,
  },
  {
    name: TIME_TOOL.name,
    description: TIME_TOOL.description,
    input_schema: TIME_TOOL.schema as unknown as Anthropic.Tool.InputSchema,
  },
];

/** thinking {enabled, budget 2048}, as each upstream must receive it (the gateway's documented mapping). */
const REASONING: ReasoningExpectation = {
  openai: { reasoning_effort: "low" },
  anthropic: { thinking: { type: "enabled", budget_tokens: 2048 } },
  gemini: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } },
  "openai-responses": { reasoning: { effort: "low", summary: "auto" } },
};

/** What one call gave the client: the message and, when streamed, every event. */
interface MessagesResult {
  message: Anthropic.Message;
  events: Anthropic.MessageStreamEvent[];
}

async function send(route: Route, params: Params): Promise<MessagesResult> {
  if (!route.stream)
    return { message: await client.messages.create({ ...params, stream: false }), events: [] };
  const stream = client.messages.stream(params);
  const events: Anthropic.MessageStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return { message: await stream.finalMessage(), events };
}

function blocks<T extends Anthropic.ContentBlock["type"]>(
  message: Anthropic.Message,
  type: T,
): Array<Extract<Anthropic.ContentBlock, { type: T }>> {
  return message.content.filter((b): b is Extract<Anthropic.ContentBlock, { type: T }> => b.type === type);
}

function textOf(message: Anthropic.Message): string {
  return blocks(message, "text")
    .map((b) => b.text)
    .join("");
}

function only(fake: Upstream): RecordedRequest {
  assert.equal(m.fakes[fake].requests.length, 1, "one upstream request");
  return m.fakes[fake].requests[0];
}

function toolResult(id: string, result: object): Anthropic.ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, content: [{ type: "text", text: JSON.stringify(result) }] };
}

for (const upstream of UPSTREAMS) {
  for (const stream of [false, true]) {
    const route: Route = { client: "anthropic", upstream, stream };
    const model = MODEL[upstream];
    const fake = () => m.fakes[upstream];

    describe(routeName(route), () => {
      test("multi-turn text with a system prompt", async () => {
        fake().script(textReply(ANSWER));
        const { message, events } = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          system: [{ type: "text", text: SYSTEM }],
          messages: [
            { role: "user", content: [{ type: "text", text: USER_1 }] },
            { role: "assistant", content: [{ type: "text", text: ASSISTANT_1 }] },
            { role: "user", content: [{ type: "text", text: USER_2 }] },
          ],
          temperature: TEMPERATURE,
        });
        assert.equal(textOf(message), ANSWER);
        assert.equal(message.content.length, 1, "one text block, no empty ones");
        assert.equal(message.stop_reason, "end_turn");
        assert.equal(message.stop_sequence, null);
        assert.match(message.id, /^gen-/);
        assert.equal(message.model, model);
        assert.equal(message.role, "assistant");
        if (stream) {
          const pieces = events.filter(
            (e) => e.type === "content_block_delta" && e.delta.type === "text_delta",
          );
          assert.ok(pieces.length >= 2, "text arrives in pieces");
          assert.equal(events[0].type, "message_start");
          assert.equal(events.at(-1)?.type, "message_stop");
        }
        const req = only(upstream);
        checkEnvelope(req, route, MAX_TOKENS);
        checkMultiTurn(req, route);
        checkNothingElse(req);
      });

      test("an image as base64 PNG and as a URL", async () => {
        fake().script(textReply("A transparent pixel and a cat."));
        const { message } = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [
            {
              role: "user",
              content: [
                { type: "text", text: IMAGE_PROMPT },
                { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } },
                { type: "image", source: { type: "url", url: IMAGE_URL } },
              ],
            },
          ],
        });
        assert.equal(textOf(message), "A transparent pixel and a cat.");
        const req = only(upstream);
        checkEnvelope(req, route, MAX_TOKENS);
        checkImages(req, route);
        checkNothingElse(req);
      });

      test("a tool call whose arguments arrive in pieces, then the tool-result turn", async () => {
        fake().script(toolCallReply(upstream), textReply(TOOL_ANSWER));
        const first = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [{ role: "user", content: [{ type: "text", text: TOOL_PROMPT }] }],
          tools: TOOLS,
          tool_choice: { type: "any" },
        });
        assert.equal(first.message.stop_reason, "tool_use");
        const uses = blocks(first.message, "tool_use");
        assert.equal(uses.length, 1);
        assert.equal(uses[0].name, WEATHER_TOOL.name);
        assert.deepEqual(uses[0].input, WEATHER_ARGS);
        checkClientCallId(uses[0].id, callId(upstream, 1));
        if (stream) {
          const pieces = first.events.flatMap((e) =>
            e.type === "content_block_delta" && e.delta.type === "input_json_delta" && e.delta.partial_json
              ? [e.delta.partial_json]
              : [],
          );
          // Gemini sends a call whole; the others stream the arguments text, passed on piece by piece.
          if (upstream === "gemini") assert.equal(pieces.length, 1);
          else assert.ok(pieces.length >= 3, `arguments in ${pieces.length} pieces`);
          assert.deepEqual(JSON.parse(pieces.join("")), WEATHER_ARGS);
        }
        const req1 = only(upstream);
        checkEnvelope(req1, route, MAX_TOKENS);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route, "required");
        checkNothingElse(req1);

        const second = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [
            { role: "user", content: [{ type: "text", text: TOOL_PROMPT }] },
            { role: "assistant", content: first.message.content },
            { role: "user", content: [toolResult(uses[0].id, WEATHER_RESULT)] },
          ],
          tools: TOOLS,
        });
        assert.equal(textOf(second.message), TOOL_ANSWER);
        assert.equal(second.message.stop_reason, "end_turn");
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, MAX_TOKENS);
        checkToolsOffered(req2, route);
        checkToolTurn(
          req2,
          route,
          TOOL_PROMPT,
          [{ id: callId(upstream, 1), name: WEATHER_TOOL.name, args: WEATHER_ARGS }],
          [WEATHER_RESULT],
        );
        // The tool result text the client sent is what a chat upstream's tool message carries.
        if (upstream === "openai") assert.equal(req2.body.messages[2].content, WEATHER_RESULT_TEXT);
        checkNothingElse(req2);
      });

      test("two parallel tool calls, answered together", async () => {
        fake().script(parallelReply(upstream), textReply(TOOL_ANSWER));
        const first = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [{ role: "user", content: [{ type: "text", text: PARALLEL_PROMPT }] }],
          tools: TOOLS,
          tool_choice: { type: "auto" },
        });
        assert.equal(first.message.stop_reason, "tool_use");
        const uses = blocks(first.message, "tool_use");
        assert.deepEqual(
          uses.map((u) => ({ name: u.name, input: u.input })),
          PARALLEL_ARGS.map((input) => ({ name: WEATHER_TOOL.name, input })),
        );
        uses.forEach((u, i) => {
          checkClientCallId(u.id, callId(upstream, i + 1));
        });
        assert.equal(new Set(uses.map((u) => u.id)).size, 2, "distinct call ids");
        const req1 = only(upstream);
        checkEnvelope(req1, route, MAX_TOKENS);
        checkPrompt(req1, route, PARALLEL_PROMPT);
        checkToolsOffered(req1, route, "auto");
        checkNothingElse(req1);

        await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [
            { role: "user", content: [{ type: "text", text: PARALLEL_PROMPT }] },
            { role: "assistant", content: first.message.content },
            { role: "user", content: uses.map((u, i) => toolResult(u.id, PARALLEL_RESULTS[i])) },
          ],
          tools: TOOLS,
        });
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, MAX_TOKENS);
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

      test("structured JSON output (output_config.format)", async () => {
        fake().script(textReply(JSON.stringify(JSON_ANSWER)));
        const { message } = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [{ role: "user", content: [{ type: "text", text: JSON_PROMPT }] }],
          output_config: { format: { type: "json_schema", schema: JSON_SCHEMA } },
        });
        assert.deepEqual(JSON.parse(textOf(message)), JSON_ANSWER);
        assert.equal(message.stop_reason, "end_turn");
        const req = only(upstream);
        checkEnvelope(req, route, MAX_TOKENS);
        checkPrompt(req, route, JSON_PROMPT);
        checkJsonFormat(req, route, {});
        checkNothingElse(req);
      });

      test("a stop sequence ends the turn, reported where the upstream says which", async () => {
        fake().script(textReply("1, 2, 3, ", { finish: "stop_sequence", stopSequence: STOP }));
        const { message } = await send(route, {
          model,
          max_tokens: STOP_MAX_TOKENS,
          messages: [{ role: "user", content: [{ type: "text", text: STOP_PROMPT }] }],
          stop_sequences: [STOP],
        });
        assert.equal(textOf(message), "1, 2, 3, ");
        // Only a messages upstream says a stop sequence matched (and which); chat and Gemini
        // upstreams report a plain stop, which is a natural end of turn here.
        if (upstream === "anthropic") {
          assert.equal(message.stop_reason, "stop_sequence");
          assert.equal(message.stop_sequence, STOP);
        } else {
          assert.equal(message.stop_reason, "end_turn");
          assert.equal(message.stop_sequence, null);
        }
        const req = only(upstream);
        checkEnvelope(req, route, STOP_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkStopSequences(req, route);
        checkNothingElse(req);
      });

      test("the max-tokens limit ends the turn as max_tokens", async () => {
        fake().script(textReply("One two three four five", { finish: "length" }));
        const { message } = await send(route, {
          model,
          max_tokens: LENGTH_MAX_TOKENS,
          messages: [{ role: "user", content: [{ type: "text", text: STOP_PROMPT }] }],
        });
        assert.equal(message.stop_reason, "max_tokens");
        assert.equal(message.stop_sequence, null);
        const req = only(upstream);
        checkEnvelope(req, route, LENGTH_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkNothingElse(req);
      });

      test("thinking signatures survive a second tool-calling turn", async () => {
        fake().script(thinkingReply(upstream), textReply(TOOL_ANSWER));
        const params = {
          model,
          max_tokens: THINKING_MAX_TOKENS,
          tools: TOOLS,
          thinking: { type: "enabled", budget_tokens: 2048 } as const,
        };
        const first = await send(route, {
          ...params,
          messages: [{ role: "user", content: [{ type: "text", text: TOOL_PROMPT }] }],
        });
        const thinking = blocks(first.message, "thinking");
        assert.deepEqual(
          thinking.map((b) => ({ thinking: b.thinking, signature: b.signature })),
          [{ thinking: THINKING_TEXT, signature: THINKING_SIGNATURE }],
        );
        assert.equal(first.message.content[0].type, "thinking", "thinking comes first");
        const uses = blocks(first.message, "tool_use");
        assert.equal(uses.length, 1);
        const req1 = only(upstream);
        checkEnvelope(req1, route, THINKING_MAX_TOKENS);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route);
        checkReasoningSettings(req1, route, REASONING);
        checkNothingElse(req1);

        await send(route, {
          ...params,
          messages: [
            { role: "user", content: [{ type: "text", text: TOOL_PROMPT }] },
            { role: "assistant", content: first.message.content },
            { role: "user", content: [toolResult(uses[0].id, WEATHER_RESULT)] },
          ],
        });
        const req2 = fake().requests[1];
        checkEnvelope(req2, route, THINKING_MAX_TOKENS);
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

      test("usage in messages semantics: input_tokens excludes cache reads and writes", async () => {
        fake().script(textReply("ok", { usage: USAGE }));
        const { message } = await send(route, {
          model,
          max_tokens: MAX_TOKENS,
          messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
        });
        const n = reportedUsage(upstream);
        const usage = message.usage as Anthropic.Usage & Json;
        const writes = n.cacheWrite5m + n.cacheWrite1h;
        assert.equal(usage.input_tokens, n.prompt - n.cacheRead - writes);
        assert.equal(usage.cache_read_input_tokens, n.cacheRead);
        assert.equal(usage.cache_creation_input_tokens, writes);
        assert.equal(usage.output_tokens, n.completion);
        // The retention split travels only in message_start (message_delta has no field for it), so a
        // stream whose upstream reports usage at its end cannot carry it.
        if (!stream || upstream === "anthropic")
          assert.deepEqual(usage.cache_creation, {
            ephemeral_5m_input_tokens: n.cacheWrite5m,
            ephemeral_1h_input_tokens: n.cacheWrite1h,
          });
        if (n.reasoning > 0) assert.equal(usage.output_tokens_details?.thinking_tokens, n.reasoning);
        else assert.ok(!usage.output_tokens_details?.thinking_tokens);
        const req = only(upstream);
        checkEnvelope(req, route, MAX_TOKENS);
        checkPrompt(req, route, "hi");
        checkNothingElse(req);
      });

      if (stream)
        test("multi-byte text split across network reads arrives intact", async () => {
          fake().script(textReply(MULTIBYTE_TEXT, { chunks: 1 }));
          const { message } = await send(route, {
            model,
            max_tokens: MAX_TOKENS,
            messages: [{ role: "user", content: "Echo." }],
          });
          assert.equal(textOf(message), MULTIBYTE_TEXT);
        });
    });
  }
}

describe("a translated stream reaches the client while the upstream is still sending", () => {
  test("messages client ← chat upstream, 8 pieces 150 ms apart", async () => {
    const pieces = 8;
    m.fakes.openai.script(
      textReply("One. Two. Three. Four. Five. Six. Seven. Eight.", { chunks: pieces, chunkDelayMs: 150 }),
    );
    const stream = client.messages.stream({
      model: MODEL.openai,
      max_tokens: MAX_TOKENS,
      messages: [{ role: "user", content: "Count." }],
    });
    const arrivals: number[] = [];
    let text = "";
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        arrivals.push(Date.now());
        text += event.delta.text;
      }
    }
    assert.equal(text, "One. Two. Three. Four. Five. Six. Seven. Eight.");
    assert.equal(arrivals.length, pieces, "each upstream piece is its own delta");
    const upstreamEnded = m.taps.openai.answers[0].endedAt;
    assert.ok(upstreamEnded !== undefined);
    assert.ok(
      upstreamEnded - arrivals[0] >= 450,
      `first delta ${upstreamEnded - arrivals[0]} ms before the end`,
    );
    assert.ok(arrivals[pieces - 1] - arrivals[0] >= 450, "the deltas are spread as the upstream sent them");
  });
});

describe("messages relay (messages client → messages upstream) is byte-exact but for id and model", () => {
  const EXTRA = { x_vendor_trace: { id: "nested-id", model: "nested-model" }, x_flag: [1, 2.5] };
  const BETAS = ["prompt-caching-2024-07-31", "context-management-2025-06-27"];

  /** A body with what the gateway does not translate: cache_control, unknown fields, a signed thinking turn. */
  function rawBody(stream: boolean): string {
    return (
      '{"model":"fa/m","max_tokens":2048,' +
      (stream ? '"stream":true,' : "") +
      '"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral","ttl":"1h"}}],' +
      '"messages":[{"role":"user","content":[{"type":"text","text":"Weather?","cache_control":{"type":"ephemeral"}}]},' +
      '{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"c2lnbmF0dXJl+/=="},' +
      '{"type":"tool_use","id":"toolu_01A","name":"get_weather","input":{"city":"Paris"},"x_block_extra":1}]},' +
      '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"18 \\u00b0C"}]}],' +
      '"thinking":{"type":"enabled","budget_tokens":1024},"context_management":{"edits":[]},' +
      '"x_unknown_field":{"keep":[1,2.50]},"metadata":{"user_id":"u-1"}}'
    );
  }

  async function post(raw: string): Promise<{ text: string; id: string }> {
    const res = await fetch(`${m.gw.url}/v1/messages`, {
      method: "POST",
      headers: {
        "x-api-key": PAYG_KEY,
        "anthropic-version": "2023-06-01",
        "anthropic-beta": BETAS.join(","),
        "content-type": "application/json",
      },
      body: raw,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const id = res.headers.get("x-generation-id") ?? "";
    assert.match(id, /^gen-/);
    return { text: await res.text(), id };
  }

  function checkRequest(raw: string): void {
    const req = m.fakes.anthropic.requests[0];
    // `metadata` is the one member taken out: the API does not support it (docs/translation.md §9).
    const expected = raw
      .replace('"model":"fa/m"', `"model":"${UPSTREAM_MODEL.anthropic}"`)
      .replace(',"metadata":{"user_id":"u-1"}', "");
    assert.equal(req.rawBody, expected);
    const betas = String(req.headers["anthropic-beta"] ?? "")
      .split(",")
      .map((b) => b.trim());
    assert.deepEqual(betas, BETAS, "the client's betas reach the upstream");
  }

  function identity(data: string, id: string): string {
    return replaceFirstString(replaceFirstString(data, "id", id), "model", MODEL.anthropic);
  }

  test("a whole message", async () => {
    const raw = rawBody(false);
    m.fakes.anthropic.script(textReply("Sunny.", { extraFields: EXTRA }));
    const { text, id } = await post(raw);
    checkRequest(raw);
    assert.equal(text, identity(m.taps.anthropic.answers[0].text, id));
    assert.deepEqual(JSON.parse(text).x_vendor_trace, EXTRA.x_vendor_trace, "nested id/model untouched");
  });

  test("a stream: every event as sent, message_start with the generation id and catalog model", async () => {
    const raw = rawBody(true);
    m.fakes.anthropic.script({
      blocks: [
        { type: "thinking", text: "Checking.", signature: "c2lnMg==" },
        { type: "text", text: "Sunny and 18 degrees." },
      ],
      extraFields: EXTRA,
      usage: USAGE,
    });
    const { text, id } = await post(raw);
    checkRequest(raw);
    const expected = sseFrames(m.taps.anthropic.answers[0].text)
      .map((frame) => {
        const data = frameData(frame);
        const edited = frame.startsWith("event: message_start\n") ? identity(data, id) : data;
        return `${frame.split("\n")[0]}\ndata: ${edited}\n\n`;
      })
      .join("");
    assert.equal(text, expected);
    assert.ok(text.includes('"signature":"c2lnMg=="'));
  });
  test("anthropic-beta and its neutral alias together: every beta is checked, and every one reaches the upstream", async () => {
    m.fakes.anthropic.script(textReply("Sunny."));
    const options = { headers: { "anthropic-beta": BETAS[0], "vendora-beta": BETAS[1] } };
    await client.messages.create(
      { model: MODEL.anthropic, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] },
      options,
    );
    const sent = String(m.fakes.anthropic.requests[0].headers["anthropic-beta"] ?? "");
    assert.deepEqual(
      sent.split(",").map((b) => b.trim()),
      BETAS,
    );

    const refused = { headers: { "anthropic-beta": BETAS[0], "vendora-beta": "code-execution-2025-08-25" } };
    await assert.rejects(
      client.messages.create(
        { model: MODEL.anthropic, max_tokens: 64, messages: [{ role: "user", content: "Hi" }] },
        refused,
      ),
      (err: unknown) =>
        err instanceof Anthropic.BadRequestError && /code-execution-2025-08-25/.test(err.message),
    );
    assert.equal(m.fakes.anthropic.requests.length, 1, "nothing refused reaches the upstream");
  });
});

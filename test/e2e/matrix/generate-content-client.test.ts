// The 4 × 4 matrix, content-generation column: the unmodified `@google/genai` SDK (generateContent
// and generateContentStream) against one gateway whose four models are served by fake OpenAI chat,
// Anthropic, Gemini and OpenAI Responses upstreams, each route streamed and not. Every test asserts what the client got
// AND what the upstream received. Plus: the content-generation relay is byte-exact but for
// responseId and modelVersion, and a translated stream reaches the client while the upstream sends.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import {
  type Content,
  FunctionCallingConfigMode,
  type GenerateContentConfig,
  type GenerateContentResponse,
  GoogleGenAI,
  type Part,
  type Schema,
  type Tool,
} from "@google/genai";
import type { RecordedRequest } from "../../fakes/index.ts";
import { PAYG_KEY } from "../../support/gateway.ts";
import {
  ANSWER,
  ASSISTANT_1,
  CALL_SIGNATURE,
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

let m: Matrix;
let ai: GoogleGenAI;

before(async () => {
  m = await startMatrix();
  ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: m.gw.url } });
});
after(() => m?.close());
beforeEach(() => m.reset());

const TOOLS: Tool[] = [
  {
    functionDeclarations: [
      {
        name: WEATHER_TOOL.name,
        description: WEATHER_TOOL.description,
        parameters: WEATHER_TOOL.geminiSchema as unknown as Schema,
      },
      { name: TIME_TOOL.name, description: TIME_TOOL.description, parametersJsonSchema: TIME_TOOL.schema },
    ],
  },
];

const THINKING_CONFIG = { includeThoughts: true, thinkingBudget: 2048 };

/** thinkingBudget 2048 with thoughts shown, as each upstream must receive it (documented mapping). */
const REASONING: ReasoningExpectation = {
  openai: { reasoning_effort: "low" },
  anthropic: { thinking: { type: "enabled", budget_tokens: 2048 } },
  gemini: { thinkingConfig: THINKING_CONFIG },
  "openai-responses": { reasoning: { effort: "low", summary: "auto" } },
};

/** What one call gave the client: the whole response (or every chunk) and the model turn it makes. */
interface GeminiResult {
  /** The whole response, or the last chunk of a stream. */
  last: GenerateContentResponse;
  chunks: GenerateContentResponse[];
  /** Every part of the model turn, in order (a stream's parts gathered from its chunks). */
  parts: Part[];
}

async function generate(
  route: Route,
  contents: Content[],
  config: GenerateContentConfig = {},
): Promise<GeminiResult> {
  const model = MODEL[route.upstream];
  if (!route.stream) {
    const last = await ai.models.generateContent({ model, contents, config });
    return { last, chunks: [last], parts: last.candidates?.[0]?.content?.parts ?? [] };
  }
  const chunks: GenerateContentResponse[] = [];
  for await (const chunk of await ai.models.generateContentStream({ model, contents, config }))
    chunks.push(chunk);
  const last = chunks.at(-1);
  assert.ok(last, "the stream sent chunks");
  return { last, chunks, parts: chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []) };
}

/** The model turn sent back as the SDK gave it (a stream's chunks joined in order). */
function modelTurn(result: GeminiResult): Content {
  return { role: "model", parts: result.parts };
}

function textOf(result: GeminiResult): string {
  return result.parts
    .filter((p) => p.text !== undefined && !p.thought)
    .map((p) => p.text)
    .join("");
}

function finishReason(result: GeminiResult): string | undefined {
  return result.last.candidates?.[0]?.finishReason;
}

function calls(result: GeminiResult): Part[] {
  return result.parts.filter((p) => p.functionCall);
}

function only(fake: Upstream): RecordedRequest {
  assert.equal(m.fakes[fake].requests.length, 1, "one upstream request");
  return m.fakes[fake].requests[0];
}

function checkIdentity(result: GeminiResult, upstream: Upstream): void {
  const id = result.last.responseId ?? "";
  assert.match(id, /^gen-/);
  for (const chunk of result.chunks) {
    assert.equal(chunk.responseId, id, "every chunk carries the generation id");
    assert.equal(chunk.modelVersion, MODEL[upstream]);
  }
  // Only the last chunk says why generation stopped (Gemini clients replay a stream without one).
  result.chunks.slice(0, -1).forEach((chunk) => {
    assert.equal(chunk.candidates?.[0]?.finishReason, undefined);
  });
}

function user(...parts: Part[]): Content {
  return { role: "user", parts };
}

function functionResponse(call: Part, result: object): Part {
  const fc = call.functionCall;
  assert.ok(fc?.name);
  return { functionResponse: { ...(fc.id ? { id: fc.id } : {}), name: fc.name, response: { ...result } } };
}

for (const upstream of UPSTREAMS) {
  for (const stream of [false, true]) {
    const route: Route = { client: "gemini", upstream, stream };
    const fake = () => m.fakes[upstream];

    describe(routeName(route), () => {
      test("multi-turn text with a system prompt", async () => {
        fake().script(textReply(ANSWER));
        const result = await generate(
          route,
          [user({ text: USER_1 }), { role: "model", parts: [{ text: ASSISTANT_1 }] }, user({ text: USER_2 })],
          { systemInstruction: SYSTEM, temperature: TEMPERATURE },
        );
        assert.equal(textOf(result), ANSWER);
        assert.equal(finishReason(result), "STOP");
        checkIdentity(result, upstream);
        if (stream) assert.ok(result.chunks.filter((c) => c.text).length >= 2, "text arrives in pieces");
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkMultiTurn(req, route);
        checkNothingElse(req);
      });

      test("an image as inlineData and as fileData (URL)", async () => {
        fake().script(textReply("A transparent pixel and a cat."));
        const result = await generate(route, [
          user(
            { text: IMAGE_PROMPT },
            { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
            { fileData: { fileUri: IMAGE_URL, mimeType: "image/png" } },
          ),
        ]);
        assert.equal(textOf(result), "A transparent pixel and a cat.");
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkImages(req, route);
        checkNothingElse(req);
      });

      test("a tool call (arguments streamed in pieces upstream), then the tool-result turn", async () => {
        fake().script(toolCallReply(upstream), textReply(TOOL_ANSWER));
        const config: GenerateContentConfig = {
          tools: TOOLS,
          toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
        };
        const first = await generate(route, [user({ text: TOOL_PROMPT })], config);
        // Gemini ends a turn that calls functions with STOP.
        assert.equal(finishReason(first), "STOP");
        const got = calls(first);
        assert.equal(got.length, 1, "the call arrives whole, in one part, however the upstream streamed it");
        assert.equal(got[0].functionCall?.name, WEATHER_TOOL.name);
        assert.deepEqual(got[0].functionCall?.args, WEATHER_ARGS);
        if (upstream !== "gemini") checkClientCallId(got[0].functionCall?.id ?? "", callId(upstream, 1));
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route, "required");
        checkNothingElse(req1);

        const second = await generate(
          route,
          [user({ text: TOOL_PROMPT }), modelTurn(first), user(functionResponse(got[0], WEATHER_RESULT))],
          { tools: TOOLS },
        );
        assert.equal(textOf(second), TOOL_ANSWER);
        assert.equal(finishReason(second), "STOP");
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
        const config: GenerateContentConfig = {
          tools: TOOLS,
          toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } },
        };
        const first = await generate(route, [user({ text: PARALLEL_PROMPT })], config);
        const got = calls(first);
        assert.deepEqual(
          got.map((p) => ({ name: p.functionCall?.name, args: p.functionCall?.args })),
          PARALLEL_ARGS.map((args) => ({ name: WEATHER_TOOL.name, args })),
        );
        if (upstream !== "gemini")
          got.forEach((p, i) => {
            checkClientCallId(p.functionCall?.id ?? "", callId(upstream, i + 1));
          });
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, PARALLEL_PROMPT);
        checkToolsOffered(req1, route, "auto");
        checkNothingElse(req1);

        await generate(
          route,
          [
            user({ text: PARALLEL_PROMPT }),
            modelTurn(first),
            user(...got.map((call, i) => functionResponse(call, PARALLEL_RESULTS[i]))),
          ],
          { tools: TOOLS },
        );
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

      test("structured JSON output (responseMimeType + responseJsonSchema)", async () => {
        fake().script(textReply(JSON.stringify(JSON_ANSWER)));
        const result = await generate(route, [user({ text: JSON_PROMPT })], {
          responseMimeType: "application/json",
          responseJsonSchema: JSON_SCHEMA,
        });
        assert.deepEqual(JSON.parse(textOf(result)), JSON_ANSWER);
        assert.equal(finishReason(result), "STOP");
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkPrompt(req, route, JSON_PROMPT);
        checkJsonFormat(req, route, {});
        checkNothingElse(req);
      });

      test("a stop sequence ends the turn as STOP", async () => {
        fake().script(textReply("1, 2, 3, ", { finish: "stop_sequence", stopSequence: STOP }));
        const result = await generate(route, [user({ text: STOP_PROMPT })], {
          stopSequences: [STOP],
          maxOutputTokens: STOP_MAX_TOKENS,
        });
        assert.equal(textOf(result), "1, 2, 3, ");
        // Gemini has no stop-sequence reason: a matched stop sequence is STOP.
        assert.equal(finishReason(result), "STOP");
        const req = only(upstream);
        checkEnvelope(req, route, STOP_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkStopSequences(req, route);
        checkNothingElse(req);
      });

      test("the max-tokens limit ends the turn as MAX_TOKENS", async () => {
        fake().script(textReply("One two three four five", { finish: "length" }));
        const result = await generate(route, [user({ text: STOP_PROMPT })], {
          maxOutputTokens: LENGTH_MAX_TOKENS,
        });
        assert.equal(finishReason(result), "MAX_TOKENS");
        const req = only(upstream);
        checkEnvelope(req, route, LENGTH_MAX_TOKENS);
        checkPrompt(req, route, STOP_PROMPT);
        checkNothingElse(req);
      });

      test("thought signatures survive a second function-calling turn", async () => {
        fake().script(thinkingReply(upstream), textReply(TOOL_ANSWER));
        const config: GenerateContentConfig = { tools: TOOLS, thinkingConfig: THINKING_CONFIG };
        const first = await generate(route, [user({ text: TOOL_PROMPT })], config);
        const thoughts = first.parts.filter((p) => p.thought);
        assert.equal(thoughts.map((p) => p.text).join(""), THINKING_TEXT);
        assert.deepEqual(
          first.parts.filter((p) => !p.functionCall && p.thoughtSignature).map((p) => p.thoughtSignature),
          [THINKING_SIGNATURE],
        );
        const got = calls(first);
        assert.equal(got.length, 1);
        // Only Gemini signs its calls; nothing is invented for the others.
        assert.equal(got[0].thoughtSignature, upstream === "gemini" ? CALL_SIGNATURE : undefined);
        const req1 = only(upstream);
        checkEnvelope(req1, route, undefined);
        checkPrompt(req1, route, TOOL_PROMPT);
        checkToolsOffered(req1, route);
        checkReasoningSettings(req1, route, REASONING);
        checkNothingElse(req1);

        await generate(
          route,
          [user({ text: TOOL_PROMPT }), modelTurn(first), user(functionResponse(got[0], WEATHER_RESULT))],
          config,
        );
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

      test("usage in Gemini semantics: thoughts outside candidates, cached inside prompt", async () => {
        fake().script(textReply("ok", { usage: USAGE }));
        const result = await generate(route, [user({ text: "hi" })]);
        const n = reportedUsage(upstream);
        const usage = result.last.usageMetadata;
        assert.ok(usage, "usageMetadata on the (last) response");
        assert.equal(usage.promptTokenCount, n.prompt);
        assert.equal(usage.cachedContentTokenCount, n.cacheRead > 0 ? n.cacheRead : undefined);
        assert.equal(usage.candidatesTokenCount, n.completion - n.reasoning);
        assert.equal(usage.thoughtsTokenCount, n.reasoning > 0 ? n.reasoning : undefined);
        assert.equal(usage.totalTokenCount, n.prompt + n.completion);
        if (stream)
          assert.deepEqual(
            result.chunks.map((c) => c.usageMetadata !== undefined),
            result.chunks.map((_, i) => i === result.chunks.length - 1),
            "usageMetadata on the last chunk only",
          );
        const req = only(upstream);
        checkEnvelope(req, route, undefined);
        checkPrompt(req, route, "hi");
        checkNothingElse(req);
      });

      if (stream)
        test("multi-byte text split across network reads arrives intact", async () => {
          fake().script(textReply(MULTIBYTE_TEXT, { chunks: 1 }));
          const result = await generate(route, [user({ text: "Echo." })]);
          assert.equal(textOf(result), MULTIBYTE_TEXT);
        });
    });
  }
}

describe("a translated stream reaches the client while the upstream is still sending", () => {
  test("content-generation client ← messages upstream, 8 pieces 150 ms apart", async () => {
    const pieces = 8;
    m.fakes.anthropic.script(
      textReply("One. Two. Three. Four. Five. Six. Seven. Eight.", { chunks: pieces, chunkDelayMs: 150 }),
    );
    const arrivals: number[] = [];
    let text = "";
    const stream = await ai.models.generateContentStream({
      model: MODEL.anthropic,
      contents: [user({ text: "Count." })],
    });
    for await (const chunk of stream) {
      if (chunk.text) {
        arrivals.push(Date.now());
        text += chunk.text;
      }
    }
    assert.equal(text, "One. Two. Three. Four. Five. Six. Seven. Eight.");
    assert.equal(arrivals.length, pieces, "each upstream piece is its own chunk");
    const upstreamEnded = m.taps.anthropic.answers[0].endedAt;
    assert.ok(upstreamEnded !== undefined);
    assert.ok(
      upstreamEnded - arrivals[0] >= 450,
      `first chunk ${upstreamEnded - arrivals[0]} ms before the end`,
    );
    assert.ok(arrivals[pieces - 1] - arrivals[0] >= 450, "the chunks are spread as the upstream sent them");
  });
});

describe("content-generation relay is byte-exact but for responseId and modelVersion", () => {
  const EXTRA = {
    x_vendor_trace: { responseId: "nested-id", modelVersion: "nested-model" },
    x_flag: [1, 2.5],
  };
  const RAW =
    '{"contents":[{"role":"user","parts":[{"text":"Hi \\u00e9t\\u00e9"}]}],' +
    '"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],' +
    '"generationConfig":{"temperature":0.70,"topK":40},"x_unknown_field":{"keep":[1,2.50]}}';

  async function post(method: string): Promise<{ text: string; id: string }> {
    const res = await fetch(`${m.gw.url}/v1beta/models/${MODEL.gemini}:${method}`, {
      method: "POST",
      headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
      body: RAW,
    });
    assert.equal(res.status, 200, await res.clone().text());
    const id = res.headers.get("x-generation-id") ?? "";
    assert.match(id, /^gen-/);
    return { text: await res.text(), id };
  }

  function identity(data: string, id: string): string {
    return replaceFirstString(replaceFirstString(data, "responseId", id), "modelVersion", MODEL.gemini);
  }

  test("a whole response; the body goes upstream untouched (the model is in the path)", async () => {
    m.fakes.gemini.script(textReply("Hello!", { extraFields: EXTRA, usage: USAGE }));
    const { text, id } = await post("generateContent");
    const req = m.fakes.gemini.requests[0];
    assert.equal(req.pathname, `/v1beta/models/${UPSTREAM_MODEL.gemini}:generateContent`);
    assert.equal(req.rawBody, RAW);
    assert.equal(text, identity(m.taps.gemini.answers[0].text, id));
    assert.deepEqual(JSON.parse(text).x_vendor_trace, EXTRA.x_vendor_trace, "nested names untouched");
  });

  test("a stream: every chunk's bytes as sent, but for responseId and modelVersion", async () => {
    m.fakes.gemini.script({
      blocks: [
        { type: "thinking", text: "Greeting.", signature: "c2lnMw==" },
        { type: "text", text: "Hello there, friend." },
      ],
      extraFields: EXTRA,
      usage: USAGE,
    });
    const { text, id } = await post("streamGenerateContent?alt=sse");
    const req = m.fakes.gemini.requests[0];
    assert.equal(req.path, `/v1beta/models/${UPSTREAM_MODEL.gemini}:streamGenerateContent?alt=sse`);
    assert.equal(req.rawBody, RAW);
    const sent = m.taps.gemini.answers[0].text;
    // Each frame's bytes are kept, and its line ends too (Google's servers end them with CRLF).
    assert.ok(sent.includes("\r\n\r\n"), "the fake frames like Google");
    const expected = sseFrames(sent)
      .map((frame) => `data: ${identity(frameData(frame), id)}\r\n\r\n`)
      .join("");
    assert.equal(text, expected);
    assert.ok(text.includes('"thoughtSignature":"c2lnMw=="'));
  });
});

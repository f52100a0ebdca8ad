// The official @google/genai client against bytes this module writes (and this module against the
// bodies that client sends): proof of real-client compatibility, not just of shapes we believe in.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FunctionCallingConfigMode, GoogleGenAI, Type } from "@google/genai";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { Response } from "../../../src/ir/response.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { blockEvents, encodeContext, startServer, type TestServer } from "./helpers.ts";

const usage = {
  ...emptyUsage(),
  promptTokens: 120,
  cacheReadTokens: 100,
  completionTokens: 50,
  reasoningTokens: 20,
};

/** What the fake upstream answers next. */
let answer: { status: number; contentType: string; body: string } = {
  status: 200,
  contentType: "application/json",
  body: "{}",
};
let server: TestServer;
let ai: GoogleGenAI;

before(async () => {
  server = await startServer((_req, res) => {
    res.writeHead(answer.status, { "content-type": answer.contentType });
    res.end(answer.body);
  });
  ai = new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: server.baseUrl } });
});
after(() => server.close());

function answerJson(body: unknown, status = 200) {
  answer = { status, contentType: "application/json", body: JSON.stringify(body) };
}

function answerStream(events: StreamEvent[], request = {}) {
  const encoder = gemini.streamEncoder(encodeContext(request));
  answer = {
    status: 200,
    contentType: "text/event-stream",
    body: events.map((event) => encoder.encode(event)).join("") + encoder.end(),
  };
}

describe("@google/genai → decodeRequest", () => {
  test("a request built by the SDK decodes field by field", async () => {
    answerJson(
      gemini.encodeResponse({ id: "", model: "", content: [], finishReason: "stop", usage }, encodeContext()),
    );
    await ai.models.generateContent({
      model: "google/gemini-2.5-flash",
      contents: [
        { role: "user", parts: [{ text: "Weather in Paris?" }] },
        {
          role: "model",
          parts: [{ functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "U0lH" }],
        },
        { role: "user", parts: [{ functionResponse: { name: "weather", response: { result: "sunny" } } }] },
      ],
      config: {
        systemInstruction: "Answer in French.",
        temperature: 0.5,
        topP: 0.9,
        maxOutputTokens: 300,
        stopSequences: ["FIN"],
        seed: 7,
        thinkingConfig: { thinkingBudget: 2048, includeThoughts: true },
        responseMimeType: "application/json",
        responseJsonSchema: {
          type: "object",
          properties: { answer: { type: "string" } },
          additionalProperties: false,
        },
        tools: [
          {
            functionDeclarations: [
              {
                name: "weather",
                description: "Current weather",
                parameters: {
                  type: Type.OBJECT,
                  properties: { city: { type: Type.STRING } },
                  required: ["city"],
                },
              },
              {
                name: "time",
                parametersJsonSchema: { type: "object", properties: { tz: { type: "string" } } },
              },
            ],
          },
        ],
        toolConfig: {
          functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ["weather"] },
        },
      },
    });
    assert.match(server.paths.at(-1) ?? "", /^\/v1beta\/models\/google\/gemini-2\.5-flash:generateContent/);
    const request = gemini.decodeRequest(server.bodies.at(-1), {
      headers: {},
      pathModel: "google/gemini-2.5-flash",
      pathStream: false,
    });
    assert.deepEqual(request.system, [{ type: "text", text: "Answer in French." }]);
    assert.equal(request.temperature, 0.5);
    assert.equal(request.topP, 0.9);
    assert.equal(request.maxOutputTokens, 300);
    assert.deepEqual(request.stopSequences, ["FIN"]);
    assert.equal(request.seed, 7);
    assert.deepEqual(request.reasoning, { exclude: false, enabled: true, budgetTokens: 2048 });
    assert.deepEqual(request.responseFormat, {
      type: "json_schema",
      schema: { type: "object", properties: { answer: { type: "string" } }, additionalProperties: false },
    });
    assert.deepEqual(request.toolChoice, { type: "tool", name: "weather" });
    assert.deepEqual(request.tools, [
      {
        name: "weather",
        description: "Current weather",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ]);
    const call = request.messages[1].content[0];
    const result = request.messages[2].content[0];
    assert.ok(call.type === "tool_call" && result.type === "tool_result");
    assert.equal(call.signature, "U0lH");
    assert.equal(result.toolCallId, call.id);
    assert.deepEqual(result.content, [{ type: "text", text: "sunny" }]);
    assert.deepEqual(request.ignored, []);
  });
});

describe("encodeResponse → @google/genai generateContent", () => {
  const response: Response = {
    id: "upstream-id",
    model: "upstream-model",
    content: [
      { type: "thinking", text: "Considering the forecast.", signature: "VEhJTks=" },
      { type: "text", text: "Let me check." },
      {
        type: "tool_call",
        id: "call_1",
        name: "weather",
        arguments: '{"city":"Paris"}',
        signature: "Q0FMTA==",
      },
      { type: "tool_call", id: "call_2", name: "weather", arguments: '{"city":"Rome"}' },
    ],
    finishReason: "tool_calls",
    usage,
  };

  test("text, function calls, usage and ids read back through the SDK", async () => {
    answerJson(gemini.encodeResponse(response, encodeContext({ reasoning: { exclude: false } })));
    const result = await ai.models.generateContent({
      model: "google/gemini-2.5-flash",
      contents: "Weather?",
    });
    assert.equal(result.text, "Let me check.");
    assert.deepEqual(result.functionCalls, [
      { id: "call_1", name: "weather", args: { city: "Paris" } },
      { id: "call_2", name: "weather", args: { city: "Rome" } },
    ]);
    assert.equal(result.responseId, "gen-01TESTID");
    assert.equal(result.modelVersion, "google/gemini-2.5-flash");
    assert.equal(result.candidates?.[0].finishReason, "STOP");
    assert.equal(result.candidates?.[0].index, 0);
    const parts = result.candidates?.[0].content?.parts ?? [];
    assert.deepEqual(parts[0], {
      text: "Considering the forecast.",
      thought: true,
      thoughtSignature: "VEhJTks=",
    });
    assert.equal(parts[2].thoughtSignature, "Q0FMTA==");
    assert.deepEqual(result.usageMetadata, {
      promptTokenCount: 120,
      candidatesTokenCount: 30,
      totalTokenCount: 170,
      cachedContentTokenCount: 100,
      thoughtsTokenCount: 20,
    });
  });

  test("thoughts are hidden unless the client asked for them; the signature still comes back", async () => {
    answerJson(gemini.encodeResponse(response, encodeContext()));
    const result = await ai.models.generateContent({
      model: "google/gemini-2.5-flash",
      contents: "Weather?",
    });
    const parts = result.candidates?.[0].content?.parts ?? [];
    assert.ok(parts.every((part) => part.thought !== true));
    assert.deepEqual(parts[0], { text: "Let me check.", thoughtSignature: "VEhJTks=" });
  });

  test("encodeError reaches the SDK as an ApiError with the status and message", async () => {
    const { status, body } = gemini.encodeError(
      new GatewayError("invalid_request", "generationConfig.topP: must be <= 1"),
    );
    answerJson(body, status);
    await assert.rejects(
      () => ai.models.generateContent({ model: "google/gemini-2.5-flash", contents: "x" }),
      (error: any) => {
        assert.equal(error.name, "ApiError");
        assert.equal(error.status, 400);
        assert.match(error.message, /INVALID_ARGUMENT/);
        assert.match(error.message, /generationConfig\.topP: must be <= 1/);
        return true;
      },
    );
  });
});

describe("streamEncoder → @google/genai generateContentStream", () => {
  const events: StreamEvent[] = [
    { type: "start", id: "up", model: "up" },
    ...blockEvents(
      0,
      { type: "thinking" },
      { type: "thinking", text: "Hmm" },
      { type: "signature", signature: "VEg=" },
    ),
    ...blockEvents(1, { type: "text" }, { type: "text", text: "Checking " }, { type: "text", text: "now." }),
    ...blockEvents(
      2,
      { type: "tool_call", id: "call_9", name: "weather", signature: "Q0FMTA==" },
      { type: "tool_arguments", json: '{"ci' },
      { type: "tool_arguments", json: 'ty":"Oslo"}' },
    ),
    { type: "finish", reason: "tool_calls" },
    { type: "usage", usage },
  ];

  test("deltas arrive as chunks; the last chunk carries finishReason and usage", async () => {
    answerStream(events, { reasoning: { exclude: false } });
    const chunks = [];
    for await (const chunk of await ai.models.generateContentStream({
      model: "google/gemini-2.5-flash",
      contents: "x",
    }))
      chunks.push(chunk);
    assert.deepEqual(
      chunks.map((chunk) => chunk.candidates?.[0].content?.parts),
      [
        [{ text: "Hmm", thought: true }],
        [{ text: "", thought: true, thoughtSignature: "VEg=" }],
        [{ text: "Checking " }],
        [{ text: "now." }],
        [
          {
            functionCall: { id: "call_9", name: "weather", args: { city: "Oslo" } },
            thoughtSignature: "Q0FMTA==",
          },
        ],
        [{ text: "" }],
      ],
    );
    assert.ok(chunks.every((chunk) => chunk.responseId === "gen-01TESTID"));
    assert.ok(chunks.every((chunk) => chunk.modelVersion === "google/gemini-2.5-flash"));
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.candidates?.[0].finishReason === undefined));
    const last = chunks.at(-1);
    assert.equal(last?.candidates?.[0].finishReason, "STOP");
    assert.equal(last?.usageMetadata?.totalTokenCount, 170);
    assert.equal(chunks.map((chunk) => chunk.text ?? "").join(""), "Checking now.");
  });

  test("a chat session records the streamed turn and replays the call's signature next turn", async () => {
    answerStream(events);
    const chat = ai.chats.create({ model: "google/gemini-2.5-flash" });
    for await (const _ of await chat.sendMessageStream({ message: "Weather in Oslo?" })) {
      // drain
    }
    answerStream([
      ...blockEvents(0, { type: "text" }, { type: "text", text: "Sunny." }),
      { type: "finish", reason: "stop" },
    ]);
    for await (const _ of await chat.sendMessageStream({
      message: [{ functionResponse: { id: "call_9", name: "weather", response: { result: "sunny" } } }],
    })) {
      // drain
    }
    const request = gemini.decodeRequest(server.bodies.at(-1), {
      headers: {},
      pathModel: "m",
      pathStream: true,
    });
    const call = request.messages[1].content.find((block) => block.type === "tool_call");
    assert.ok(call?.type === "tool_call");
    assert.equal(call.id, "call_9");
    assert.equal(call.signature, "Q0FMTA==");
    const thinking = request.messages[1].content[0];
    assert.deepEqual(thinking, { type: "thinking", text: "", signature: "VEg=" });
    const result = request.messages[2].content[0];
    assert.ok(result.type === "tool_result");
    assert.equal(result.toolCallId, "call_9");
  });

  test("an error event mid-stream reaches the SDK as an ApiError", async () => {
    answerStream([
      ...blockEvents(0, { type: "text" }, { type: "text", text: "Partial" }),
      { type: "error", error: new GatewayError("overloaded", "upstream overloaded") },
    ]);
    const seen: string[] = [];
    await assert.rejects(
      async () => {
        for await (const chunk of await ai.models.generateContentStream({ model: "m", contents: "x" }))
          seen.push(chunk.text ?? "");
      },
      (error: any) => {
        assert.equal(error.name, "ApiError");
        assert.equal(error.status, 503);
        assert.match(error.message, /UNAVAILABLE/);
        return true;
      },
    );
    assert.deepEqual(seen, ["Partial"]);
  });
});

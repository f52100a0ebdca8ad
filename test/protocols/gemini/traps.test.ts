// One test per known trap (docs/architecture.md §10) that this protocol can fall into, named after it.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "../../../src/ir/collect.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { encodeContext, fixture, parseSse, sseFixture } from "./helpers.ts";

const decodeCtx = { headers: {}, pathModel: "google/gemini-3-pro-preview", pathStream: false };

function relayStream(name: string, request = {}): any[] {
  const decoder = gemini.streamDecoder();
  const events: StreamEvent[] = [
    ...sseFixture(name).flatMap((event) => decoder.decode(event)),
    ...decoder.end(),
  ];
  const encoder = gemini.streamEncoder(encodeContext(request));
  return parseSse(events.map((event) => encoder.encode(event)).join("") + encoder.end());
}

describe("trap: Gemini thoughtSignature on functionCall parts (litellm#16893, bifrost#1437, portkey#1442)", () => {
  test("upstream answer → IR → client answer → client replay → IR → upstream request: the signature is byte-identical", () => {
    const upstream = fixture("function-call-signature.json");
    const original = upstream.candidates[0].content.parts[0];
    const ir = gemini.decodeResponse(upstream);
    const toClient = gemini.encodeResponse(ir, encodeContext()) as any;
    const clientPart = toClient.candidates[0].content.parts[0];
    assert.equal(clientPart.thoughtSignature, original.thoughtSignature);
    assert.deepEqual(clientPart.functionCall.args, original.functionCall.args);

    const replay = {
      contents: [
        { role: "user", parts: [{ text: "Check AA100" }] },
        toClient.candidates[0].content,
        {
          role: "user",
          parts: [
            {
              functionResponse: {
                id: clientPart.functionCall.id,
                name: "check_flight",
                response: { status: "on time" },
              },
            },
          ],
        },
      ],
    };
    const request = gemini.decodeRequest(replay, decodeCtx);
    const upstreamCall = gemini.encodeRequest(request, {
      model: "gemini-3-pro-preview",
      stream: false,
    }) as any;
    const sent = upstreamCall.body.contents[1].parts[0];
    assert.equal(sent.thoughtSignature, original.thoughtSignature);
    assert.deepEqual(sent.functionCall, { ...original.functionCall, id: clientPart.functionCall.id });
    assert.deepEqual(upstreamCall.body.contents[2].parts[0].functionResponse, {
      id: clientPart.functionCall.id,
      name: "check_flight",
      response: { status: "on time" },
    });
  });

  test("streamed: the functionCall chunk the client gets carries the upstream signature exactly", () => {
    const original = sseFixture("stream-function-call.sse").map((event) => JSON.parse(event.data));
    const chunks = relayStream("stream-function-call.sse");
    const calls = chunks
      .flatMap((chunk) => chunk.candidates?.[0]?.content?.parts ?? [])
      .filter((part: any) => part.functionCall);
    assert.equal(calls.length, 2);
    assert.equal(calls[0].thoughtSignature, original[0].candidates[0].content.parts[0].thoughtSignature);
    assert.equal(calls[1].thoughtSignature, undefined);
    assert.deepEqual(calls[0].functionCall.args, { city: "Boston", unit: "celsius" });
  });

  test('a client\'s "skip_thought_signature_validator" goes upstream as it came', () => {
    const request = gemini.decodeRequest(
      {
        contents: [
          { role: "user", parts: [{ text: "go" }] },
          {
            role: "model",
            parts: [
              { functionCall: { name: "f", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
            ],
          },
          { role: "user", parts: [{ functionResponse: { name: "f", response: { result: "ok" } } }] },
        ],
      },
      decodeCtx,
    );
    const sent = (gemini.encodeRequest(request, { model: "gemini-3-pro-preview", stream: true }) as any).body;
    assert.equal(sent.contents[1].parts[0].thoughtSignature, "skip_thought_signature_validator");
  });
});

describe("trap: empty-text thinking blocks that carry a signature are kept (litellm#41361)", () => {
  test("the empty closing part's signature reaches the client stream unchanged", () => {
    const original = sseFixture("stream-text.sse").map((event) => JSON.parse(event.data));
    const signature = original[2].candidates[0].content.parts[0].thoughtSignature;
    const chunks = relayStream("stream-text.sse");
    const last = chunks.at(-1);
    assert.deepEqual(last.candidates[0].content.parts, [{ text: "", thoughtSignature: signature }]);
    assert.equal(last.candidates[0].finishReason, "STOP");
  });

  test("a signature on the answer text (hidden thoughts) comes back on the same text part", () => {
    const upstream = fixture("thinking.json");
    const answer = upstream.candidates[0].content.parts[1];
    const toClient = gemini.encodeResponse(gemini.decodeResponse(upstream), encodeContext()) as any;
    assert.deepEqual(toClient.candidates[0].content.parts, [answer]);
  });

  test("shown thoughts: the thought part and the signed answer part come back as Gemini sent them", () => {
    const upstream = fixture("thinking.json");
    const toClient = gemini.encodeResponse(
      gemini.decodeResponse(upstream),
      encodeContext({ reasoning: { exclude: false } }),
    ) as any;
    assert.deepEqual(toClient.candidates[0].content.parts, upstream.candidates[0].content.parts);
  });
});

describe("trap: Gemini streaming with tools put answer text into reasoning (litellm#16805)", () => {
  test("only thought: true parts become thinking, even beside function calls", () => {
    const decoder = gemini.streamDecoder();
    const chunk = (parts: unknown[], finishReason?: string) => ({
      data: JSON.stringify({
        candidates: [{ content: { role: "model", parts }, ...(finishReason && { finishReason }) }],
      }),
    });
    const events = [
      ...decoder.decode(chunk([{ text: "planning the lookup", thought: true }])),
      ...decoder.decode(chunk([{ text: "I will look that up.", thought: false }])),
      ...decoder.decode(
        chunk([{ functionCall: { name: "search", args: { q: "x" } }, thoughtSignature: "S" }]),
      ),
      ...decoder.decode(chunk([{ text: "Done." }], "STOP")),
    ];
    const response = collectResponse(events);
    assert.deepEqual(
      response.content.map((block) => [block.type, "text" in block ? block.text : ""]),
      [
        ["thinking", "planning the lookup"],
        ["text", "I will look that up."],
        ["tool_call", ""],
        ["text", "Done."],
      ],
    );
  });
});

describe("trap: never emit empty blocks (bifrost#2446, new-api#1854)", () => {
  test("empty text and empty unsigned thought parts produce no IR blocks", () => {
    const response = gemini.decodeResponse({
      candidates: [
        {
          content: {
            role: "model",
            parts: [{ text: "" }, { text: "", thought: true }, { text: "ok" }, { text: "" }],
          },
          finishReason: "STOP",
        },
      ],
    });
    assert.deepEqual(response.content, [{ type: "text", text: "ok" }]);
  });

  test("a tool call without arguments is {} (bifrost#3443)", () => {
    const response = gemini.decodeResponse({
      candidates: [
        { content: { role: "model", parts: [{ functionCall: { name: "now" } }] }, finishReason: "STOP" },
      ],
    });
    assert.equal(response.content[0].type === "tool_call" && response.content[0].arguments, "{}");
  });
});

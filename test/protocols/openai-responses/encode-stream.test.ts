import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { openaiResponses } from "../../../src/protocols/openai-responses/index.ts";
import { responseObject } from "../../../src/protocols/openai-responses/output-items.ts";
import { AWKWARD_PIECES } from "../../support/streams.ts";
import { encodeContext, sseEvents, written } from "./helpers.ts";

const usage = {
  ...emptyUsage(),
  promptTokens: 20,
  cacheReadTokens: 5,
  completionTokens: 9,
  reasoningTokens: 4,
};

function encode(events: StreamEvent[], request = {}): ReturnType<typeof written> {
  const encoder = openaiResponses.streamEncoder(encodeContext(request));
  let text = "";
  for (const event of events) text += encoder.encode(event);
  text += encoder.end();
  return written(text);
}

function types(out: ReturnType<typeof written>): string[] {
  return out.map((e) => e.data.type);
}

describe("the typed event sequence", () => {
  test("text: every event typed on its event line and in its data, sequence numbers from 0", () => {
    const out = encode([
      { type: "start", id: "up", model: "up-model" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Hel" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "lo" } },
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "stop" },
      { type: "usage", usage },
    ]);
    assert.deepEqual(types(out), [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    out.forEach((e, i) => {
      assert.equal(e.event, e.data.type);
      assert.equal(e.data.sequence_number, i);
    });
    const created = out[0].data.response;
    assert.equal(created.id, "gen-01TEST");
    assert.equal(created.model, "openai/gpt-5");
    assert.equal(created.status, "in_progress");
    assert.deepEqual(created.output, []);
    assert.equal(created.usage, null);
    const added = out[2].data;
    assert.deepEqual(added.item, {
      id: "msg_01TEST_0",
      type: "message",
      status: "in_progress",
      role: "assistant",
      content: [],
    });
    assert.deepEqual(out[4].data, {
      type: "response.output_text.delta",
      sequence_number: 4,
      item_id: "msg_01TEST_0",
      output_index: 0,
      content_index: 0,
      delta: "Hel",
      logprobs: [],
    });
    assert.equal(out[6].data.text, "Hello");
    const done = out[8].data.item;
    assert.equal(done.status, "completed");
    assert.deepEqual(done.content, [{ type: "output_text", text: "Hello", annotations: [], logprobs: [] }]);
    const completed = out[9].data.response;
    assert.equal(completed.status, "completed");
    assert.deepEqual(completed.output, [done]);
    // Usage came after the finish: it is still the one the closing event reports.
    assert.deepEqual(completed.usage, {
      input_tokens: 20,
      input_tokens_details: { cached_tokens: 5, cache_write_tokens: 0 },
      output_tokens: 9,
      output_tokens_details: { reasoning_tokens: 4 },
      total_tokens: 29,
    });
  });

  test("thinking with a signature, then a tool call whose arguments arrive in pieces", () => {
    const out = encode([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: "Let me " } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: "check." } },
      { type: "block_delta", index: 0, delta: { type: "signature", signature: "EqQB" } },
      { type: "block_stop", index: 0 },
      {
        type: "block_start",
        index: 1,
        block: { type: "tool_call", id: "call_1", name: "get_weather", signature: "gsig" },
      },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: '{"city":' } },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: '"Paris"}' } },
      { type: "block_stop", index: 1 },
      { type: "usage", usage },
      { type: "finish", reason: "tool_calls" },
    ]);
    assert.deepEqual(types(out), [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.reasoning_summary_part.added",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.delta",
      "response.reasoning_summary_text.done",
      "response.reasoning_summary_part.done",
      "response.output_item.done",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    assert.deepEqual(out[2].data.item, { id: "rs_01TEST_0", type: "reasoning", summary: [] });
    assert.deepEqual(out[3].data, {
      type: "response.reasoning_summary_part.added",
      sequence_number: 3,
      item_id: "rs_01TEST_0",
      output_index: 0,
      summary_index: 0,
      part: { type: "summary_text", text: "" },
    });
    assert.deepEqual(out[8].data.item, {
      id: "rs_01TEST_0",
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Let me check." }],
      encrypted_content: "EqQB",
    });
    const callAdded = out[9].data.item;
    assert.equal(callAdded.type, "function_call");
    assert.equal(callAdded.status, "in_progress");
    assert.equal(callAdded.arguments, "");
    assert.match(callAdded.call_id, /^call_1_tsig_/, "the Gemini signature rides in the call id");
    assert.deepEqual(out[12].data, {
      type: "response.function_call_arguments.done",
      sequence_number: 12,
      item_id: "fc_01TEST_1",
      output_index: 1,
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
    assert.equal(out[13].data.item.status, "completed");
    assert.equal(out[14].data.response.output.length, 2);
  });

  test("a call without arguments ends with {} (a delta and the done event)", () => {
    const out = encode([
      { type: "block_start", index: 0, block: { type: "tool_call", id: "c", name: "now" } },
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "tool_calls" },
    ]);
    const deltas = out.filter((e) => e.data.type === "response.function_call_arguments.delta");
    assert.deepEqual(
      deltas.map((e) => e.data.delta),
      ["{}"],
    );
    assert.equal(out.find((e) => e.data.type === "response.output_item.done")?.data.item.arguments, "{}");
  });

  test("a custom tool's call is a custom_tool_call whose input is the text, not the JSON", () => {
    const request = {
      tools: [{ name: "apply_patch", parameters: { type: "object" }, custom: {} }],
    };
    const out = encode(
      [
        { type: "block_start", index: 0, block: { type: "tool_call", id: "c", name: "apply_patch" } },
        { type: "block_delta", index: 0, delta: { type: "tool_arguments", json: '{"input":"*** Begin' } },
        { type: "block_delta", index: 0, delta: { type: "tool_arguments", json: ' Patch"}' } },
        { type: "block_stop", index: 0 },
        { type: "finish", reason: "tool_calls" },
      ],
      request,
    );
    assert.deepEqual(types(out).slice(2), [
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.completed",
    ]);
    assert.equal(out[2].data.item.type, "custom_tool_call");
    assert.equal(out[4].data.input, "*** Begin Patch");
    assert.equal(out[5].data.item.input, "*** Begin Patch");
  });

  test("consecutive text blocks are parts of one message; a call between them starts a new one", () => {
    const out = encode([
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "A" } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "block_delta", index: 1, delta: { type: "text", text: "B" } },
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "redacted_thinking", data: "opaque" } },
      { type: "block_stop", index: 2 },
      { type: "block_start", index: 3, block: { type: "text" } },
      { type: "block_delta", index: 3, delta: { type: "text", text: "C" } },
      { type: "finish", reason: "stop" },
    ]);
    const output = out.at(-1)?.data.response.output;
    assert.deepEqual(
      output.map((item: any) => [item.type, item.content?.map((p: any) => p.text) ?? item.encrypted_content]),
      [
        ["message", ["A", "B"]],
        ["reasoning", "redacted_thinking:opaque"],
        ["message", ["C"]],
      ],
    );
    assert.deepEqual(
      out
        .filter((e) => e.data.type === "response.content_part.added")
        .map((e) => [e.data.output_index, e.data.content_index]),
      [
        [0, 0],
        [0, 1],
        [2, 0],
      ],
    );
  });

  test("length ends as response.incomplete with its reason", () => {
    const out = encode([
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "One two" } },
      { type: "finish", reason: "length" },
    ]);
    const last = out.at(-1)?.data;
    assert.equal(last?.type, "response.incomplete");
    assert.equal(last?.response.status, "incomplete");
    assert.deepEqual(last?.response.incomplete_details, { reason: "max_output_tokens" });
  });

  test("an upstream failure: response.failed, then an error event the SDK raises; nothing after", () => {
    const encoder = openaiResponses.streamEncoder(encodeContext());
    let text = encoder.encode({ type: "block_start", index: 0, block: { type: "text" } });
    text += encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text: "Part" } });
    text += encoder.encode({ type: "error", error: new GatewayError("overloaded", "Upstream overloaded.") });
    text += encoder.end();
    const out = written(text);
    assert.deepEqual(types(out).slice(-2), ["response.failed", "error"]);
    const failed = out.at(-2)?.data.response;
    assert.equal(failed.status, "failed");
    assert.deepEqual(failed.error, { code: "server_error", message: "Upstream overloaded." });
    const error = out.at(-1)?.data;
    assert.equal(error?.message, "Upstream overloaded.");
    assert.equal(error?.code, "overloaded");
    assert.deepEqual(error?.error, {
      message: "Upstream overloaded.",
      type: "overloaded_error",
      param: null,
      code: "overloaded",
    });
  });

  test("an error before anything else still opens the response first", () => {
    const encoder = openaiResponses.streamEncoder(encodeContext());
    const out = written(
      encoder.encode({ type: "error", error: new GatewayError("rate_limit", "Slow down.") }),
    );
    assert.deepEqual(types(out), ["response.created", "response.in_progress", "response.failed", "error"]);
    assert.equal(out[2].data.response.error.code, "rate_limit_exceeded");
  });
});

describe("events written as text around their JSON", () => {
  test("every event's data is JSON whose text is JSON.stringify's: type, sequence_number, then its fields", () => {
    for (const tail of [
      [
        { type: "finish", reason: "tool_calls" },
        { type: "usage", usage },
      ],
      [{ type: "error", error: new GatewayError("api_error", "upstream broke", { status: 502 }) }],
    ] as StreamEvent[][]) {
      const encoder = openaiResponses.streamEncoder(encodeContext());
      const events: StreamEvent[] = [
        { type: "start" },
        { type: "block_start", index: 0, block: { type: "thinking" } },
        { type: "block_delta", index: 0, delta: { type: "thinking", text: "hmm" } },
        { type: "block_delta", index: 0, delta: { type: "signature", signature: "sig" } },
        { type: "block_stop", index: 0 },
        { type: "block_start", index: 1, block: { type: "text" } },
        { type: "block_delta", index: 1, delta: { type: "text", text: "hi" } },
        { type: "block_stop", index: 1 },
        { type: "block_start", index: 2, block: { type: "tool_call", id: "call_1", name: "f" } },
        { type: "block_stop", index: 2 },
        ...tail,
      ];
      const text = events.map((e) => encoder.encode(e)).join("") + encoder.end();
      sseEvents(text).forEach(({ event, data }, i) => {
        assert.equal(JSON.stringify(JSON.parse(data)), data);
        assert.ok(data.startsWith(`{"type":"${event}","sequence_number":${i},"`), data);
      });
    }
  });

  test("response.created and response.in_progress are the bytes of their objects through JSON.stringify", () => {
    const encoder = openaiResponses.streamEncoder(encodeContext({ temperature: 0.5, maxOutputTokens: 99 }));
    const [created, inProgress] = sseEvents(encoder.encode({ type: "start" }));
    for (const [{ data }, type, sequence_number] of [
      [created, "response.created", 0],
      [inProgress, "response.in_progress", 1],
    ] as const)
      assert.equal(data, JSON.stringify({ type, sequence_number, response: JSON.parse(data).response }));
  });

  test("each response is the bytes of responseObject through JSON.stringify, whatever the request echoes", () => {
    const mark = "\u0000switchyard-response-field:usage";
    const tool = (description: string) => ({
      name: "f",
      description,
      parameters: { type: "object", properties: { [mark]: { type: "string" } } },
    });
    const endings: StreamEvent[][] = [
      [
        { type: "finish", reason: "stop" },
        { type: "usage", usage },
      ],
      [{ type: "finish", reason: "length" }],
      [{ type: "error", error: new GatewayError("rate_limit", "slow down", { status: 429 }) }],
    ];
    for (const tools of [[], [tool("plain")], [tool(mark)]])
      for (const ending of endings) {
        const ctx = encodeContext({ tools, temperature: 0.5, maxOutputTokens: 99 });
        const encoder = openaiResponses.streamEncoder(ctx);
        const events: StreamEvent[] = [
          { type: "start" },
          { type: "block_start", index: 0, block: { type: "text" } },
          { type: "block_delta", index: 0, delta: { type: "text", text: 'say "hi"' } },
          { type: "block_stop", index: 0 },
          ...ending,
        ];
        const text = events.map((e) => encoder.encode(e)).join("") + encoder.end();
        const responses = sseEvents(text).filter(({ event }) => event?.startsWith("response."));
        const withResponse = responses.filter(({ data }) => JSON.parse(data).response);
        assert.equal(withResponse.length, 3);
        for (const { data } of withResponse) {
          const { type, sequence_number, response } = JSON.parse(data);
          const { status, completed_at, output, usage: wireUsage, error, incomplete_details } = response;
          // A completed response says when; any other, null.
          assert.equal(typeof completed_at, status === "completed" ? "number" : "object");
          const fields = { status, completed_at, output, usage: wireUsage, error, incomplete_details };
          assert.equal(
            data,
            JSON.stringify({ type, sequence_number, response: responseObject(ctx, fields) }),
          );
        }
      }
  });

  test("each is the bytes of its object through JSON.stringify, for any piece", () => {
    const pieces = ["Hello", ...AWKWARD_PIECES];
    const events: StreamEvent[] = [
      { type: "block_start", index: 0, block: { type: "thinking" } },
      ...pieces.map(
        (text): StreamEvent => ({ type: "block_delta", index: 0, delta: { type: "thinking", text } }),
      ),
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      ...pieces.map(
        (text): StreamEvent => ({ type: "block_delta", index: 1, delta: { type: "text", text } }),
      ),
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "tool_call", id: "call_1", name: "f" } },
      ...pieces.map(
        (json): StreamEvent => ({ type: "block_delta", index: 2, delta: { type: "tool_arguments", json } }),
      ),
      { type: "block_stop", index: 2 },
    ];
    const encoder = openaiResponses.streamEncoder(encodeContext());
    const text = events.map((e) => encoder.encode(e)).join("") + encoder.end();
    // The objects as event() writes them: type, sequence_number, then the fields in this order.
    const fields: Record<string, string[]> = {
      "response.reasoning_summary_text.delta": ["item_id", "output_index", "summary_index", "delta"],
      "response.output_text.delta": ["item_id", "output_index", "content_index", "delta", "logprobs"],
      "response.function_call_arguments.delta": ["item_id", "output_index", "delta"],
    };
    for (const [type, keys] of Object.entries(fields)) {
      const deltas = sseEvents(text).filter((e) => e.event === type);
      assert.deepEqual(
        deltas.map((e) => JSON.parse(e.data).delta),
        pieces,
        type,
      );
      for (const { data } of deltas) {
        const parsed = JSON.parse(data);
        const object = {
          type,
          sequence_number: parsed.sequence_number,
          ...Object.fromEntries(keys.map((k) => [k, parsed[k]])),
        };
        assert.equal(data, JSON.stringify(object));
      }
    }
  });
});

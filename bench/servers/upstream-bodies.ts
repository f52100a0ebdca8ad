// The fake upstream's answers, in the providers' exact wire formats (shapes as in the public API
// references: OpenAI chat completions and chat.completion.chunk with stream_options.include_usage;
// Anthropic messages and their "Full HTTP stream response" event sequence). Built once per model
// name and reused, so the upstream spends its time on I/O, not on building JSON; only the answer's id
// is written afresh for each answer (withAnswerId), as a provider gives each answer its own.

import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

/** The answer id the cached bodies hold; each answer swaps it for one of its own, of the same length. */
export const CHAT_ID = "chatcmpl-bench0000000000000000000000";
export const MESSAGE_ID = "msg_bench000000000000000000";

let answers = 0;
/**
 * The body (or frame) with its id made this answer's own. A gateway that learned something from one
 * answer's bytes (a relay's shape of a stream's chunks) must learn it again for the next, as it must
 * from a real provider, rather than find it already known.
 */
export function answerIds(): { chat: string; message: string } {
  const n = String(++answers);
  return {
    chat: CHAT_ID.slice(0, CHAT_ID.length - n.length) + n,
    message: MESSAGE_ID.slice(0, MESSAGE_ID.length - n.length) + n,
  };
}

const CREATED = 1735689600;
const PROMPT_TOKENS = 9;

/** The words of a streamed answer: one content chunk each. */
export function words(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? "Hello" : ` word${i}`));
}

const chatUsage = (completion: number) => ({
  prompt_tokens: PROMPT_TOKENS,
  completion_tokens: completion,
  total_tokens: PROMPT_TOKENS + completion,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: {
    reasoning_tokens: 0,
    audio_tokens: 0,
    accepted_prediction_tokens: 0,
    rejected_prediction_tokens: 0,
  },
});

/** A non-streamed `chat.completion`. */
export function chatCompletion(model: string): string {
  return JSON.stringify({
    id: CHAT_ID,
    object: "chat.completion",
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: "Hello! How can I help you today?",
          refusal: null,
          annotations: [],
        },
        logprobs: null,
        finish_reason: "stop",
      },
    ],
    usage: chatUsage(9),
    service_tier: "default",
    system_fingerprint: "fp_bench",
  });
}

/**
 * A `chat.completion.chunk` stream as SSE frames: the role chunk, one chunk per word, the finish
 * chunk, the usage chunk (`choices: []`) when the request asked for it, and `[DONE]`. With usage
 * requested, every other chunk carries `"usage": null`, as OpenAI sends it. Every chunk ends with
 * OpenAI's `obfuscation` padding, of a length of its own (OpenAI sends it unless the request turns
 * it off with `stream_options.include_obfuscation: false`, which neither the gateway nor the proxy
 * does; since 2026-11-27).
 */
export function chatStream(model: string, count: number, includeUsage: boolean): string[] {
  let chunks = 0;
  const chunk = (choices: unknown[], usage?: unknown) =>
    `data: ${JSON.stringify({
      id: CHAT_ID,
      object: "chat.completion.chunk",
      created: CREATED,
      model,
      service_tier: "default",
      system_fingerprint: "fp_bench",
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
      obfuscation: padding(chunks++),
    })}\n\n`;
  const delta = (d: unknown, finish: string | null = null) => ({
    index: 0,
    delta: d,
    logprobs: null,
    finish_reason: finish,
  });
  const frames = [chunk([delta({ role: "assistant", content: "", refusal: null })])];
  for (const w of words(count)) frames.push(chunk([delta({ content: w })]));
  frames.push(chunk([delta({}, "stop")]));
  if (includeUsage) frames.push(chunk([], chatUsage(count)));
  frames.push("data: [DONE]\n\n");
  return frames;
}

/** Padding of 1 to 16 letters, of a length that varies from chunk to chunk (OpenAI's is random). */
function padding(n: number): string {
  return "Qup1BsQ3mF3xKd9Z".slice(0, 1 + ((n * 7) % 16));
}

/** A non-streamed messages-protocol `message`. */
export function messagesMessage(model: string): string {
  return JSON.stringify({
    id: MESSAGE_ID,
    type: "message",
    role: "assistant",
    model,
    content: [{ type: "text", text: "Hello! How can I help you today?" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: PROMPT_TOKENS,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 9,
      service_tier: "standard",
    },
  });
}

/** A messages-protocol stream: message_start, one text block of `count` deltas, message_delta, message_stop. */
export function messagesStream(model: string, count: number): string[] {
  const event = (type: string, data: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  const frames = [
    event("message_start", {
      message: {
        id: MESSAGE_ID,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: PROMPT_TOKENS,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
          service_tier: "standard",
        },
      },
    }),
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
    event("ping", {}),
  ];
  for (const w of words(count))
    frames.push(event("content_block_delta", { index: 0, delta: { type: "text_delta", text: w } }));
  frames.push(
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: { output_tokens: count },
    }),
    event("message_stop", {}),
  );
  return frames;
}

/** The vector length of the bench's embedding answers: text-embedding-3-small's. */
export const EMBEDDING_DIMENSIONS = 1536;

/**
 * An OpenAI `/embeddings` answer (`encoding_format: float`) of `count` vectors, as OpenAI writes
 * float32 values: up to 9 significant digits each.
 */
export function embeddingsList(model: string, count: number): string {
  const vector = (seed: number) =>
    Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => Math.fround(Math.sin(seed * 7919 + i) * 0.05));
  return JSON.stringify({
    object: "list",
    data: Array.from({ length: count }, (_, index) => ({
      object: "embedding",
      index,
      embedding: vector(index),
    })),
    model,
    usage: { prompt_tokens: count * 12, total_tokens: count * 12 },
  });
}

/**
 * Bedrock's InvokeModelWithResponseStream for a Claude model: the messages stream's events, each
 * in an AWS event-stream `chunk` frame whose JSON payload holds the event as base64 `bytes` and a
 * padding string `p` (as Bedrock pads its frames). Encoded once with the AWS SDK's own codec; the
 * message id stays the cached one (it is inside a checksummed frame), which the messages relay does
 * not learn from.
 */
export function bedrockInvokeStream(model: string, count: number): Uint8Array[] {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  return messagesStream(model, count).map((frame, i) => {
    const data = frame.slice(frame.indexOf("data: ") + "data: ".length).trimEnd();
    const payload = {
      bytes: Buffer.from(data).toString("base64"),
      p: "abcdefghijklmnopqrstuvwxyz".slice(0, 1 + (i % 26)),
    };
    return codec.encode({
      headers: {
        ":event-type": { type: "string", value: "chunk" },
        ":content-type": { type: "string", value: "application/json" },
        ":message-type": { type: "string", value: "event" },
      },
      body: fromUtf8(JSON.stringify(payload)),
    });
  });
}

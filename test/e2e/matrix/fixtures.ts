// The conversation every client of the matrix sends, each in its own protocol, and the replies the
// fake upstreams give. The same meaning crosses every route, so one set of upstream expectations
// (upstream-checks.ts) serves all four client files.

import type { Reply, ReplyBlock } from "../../fakes/index.ts";
import type { Upstream } from "./harness.ts";

export const SYSTEM = "You are a terse geography assistant.";
export const USER_1 = "What is the capital of France?";
export const ASSISTANT_1 = "Paris.";
export const USER_2 = "And the capital of Japan?";
export const TEMPERATURE = 0.5;
export const ANSWER = "Tokyo is the capital of Japan.";

/** A 1×1 transparent PNG. */
export const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
export const IMAGE_URL = "https://images.example.com/cat.png";
export const IMAGE_PROMPT = "Describe both images.";

/**
 * ~360 KB of 2-, 3- and 4-byte UTF-8 characters in one stream frame: the upstream's bytes reach the
 * gateway in several network reads, and some reads end inside a character.
 */
export const MULTIBYTE_TEXT = "€é漢😀".repeat(30_000);

// ── Tools ────────────────────────────────────────────────────────────────────────────────────────

export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather for a city.",
  /** JSON Schema (chat `parameters`, messages `input_schema`). */
  schema: {
    type: "object",
    properties: {
      city: { type: "string", description: "City name" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    },
    required: ["city"],
  },
  /** The same schema as a Gemini `Schema` (uppercase types): what Gemini's `parameters` holds. */
  geminiSchema: {
    type: "OBJECT",
    properties: {
      city: { type: "STRING", description: "City name" },
      unit: { type: "STRING", enum: ["celsius", "fahrenheit"] },
    },
    required: ["city"],
  },
} as const;

/** A schema Gemini's `Schema` cannot say (additionalProperties): it goes as `parametersJsonSchema`. */
export const TIME_TOOL = {
  name: "get_time",
  description: "Local time in an IANA time zone.",
  schema: {
    type: "object",
    properties: { zone: { type: "string" } },
    required: ["zone"],
    additionalProperties: false,
  },
} as const;

export const TOOL_PROMPT = "What's the weather in Paris right now?";
export const WEATHER_ARGS = { city: "Paris", unit: "celsius" };
/** The tool's answer, JSON text (Gemini's functionResponse.response is the same object). */
export const WEATHER_RESULT = { temperature: 18, sky: "sunny" };
export const WEATHER_RESULT_TEXT = JSON.stringify(WEATHER_RESULT);
export const TOOL_ANSWER = "It is 18 °C and sunny in Paris.";

export const PARALLEL_PROMPT = "Weather in Paris and in Tokyo?";
export const PARALLEL_ARGS = [{ city: "Paris" }, { city: "Tokyo" }];
export const PARALLEL_RESULTS = [{ temperature: 18 }, { temperature: 24 }];

/** Tool-call ids (Responses: `call_id`) as each upstream issues them; Gemini sends none (the gateway makes one). */
export function callId(upstream: Upstream, n: number): string | undefined {
  if (upstream === "openai") return `call_Mx${n}q8RkTz01`;
  if (upstream === "anthropic") return `toolu_01Mx${n}q8RkTz01`;
  if (upstream === "openai-responses") return `call_Rx${n}q8RkTz01`;
  return undefined;
}

// ── Structured output ────────────────────────────────────────────────────────────────────────────

export const JSON_PROMPT = "Weather in Paris as JSON.";
export const JSON_SCHEMA = {
  type: "object",
  properties: { city: { type: "string" }, temperature: { type: "number" } },
  required: ["city", "temperature"],
  additionalProperties: false,
};
export const JSON_ANSWER = { city: "Paris", temperature: 21.5 };

// ── Stops ────────────────────────────────────────────────────────────────────────────────────────

export const STOP = "END";
export const STOP_PROMPT = "Count to three, then say END.";
export const STOP_MAX_TOKENS = 50;
export const LENGTH_MAX_TOKENS = 5;

// ── Reasoning ────────────────────────────────────────────────────────────────────────────────────

export const THINKING_TEXT = "The user wants the weather; I should call the weather tool for Paris.";
export const THINKING_SIGNATURE = "EqQBCkYIBxgCKkDsig+/thinking==";
/** Gemini's thoughtSignature on its functionCall part. */
export const CALL_SIGNATURE = "CiQB0e2Kb7call+sig/Gemini==";

// ── Usage ────────────────────────────────────────────────────────────────────────────────────────

/** The fake's disjoint buckets (test/fakes/reply.ts). */
export const USAGE = {
  input: 100,
  cacheRead: 50,
  cacheWrite5m: 20,
  cacheWrite1h: 10,
  output: 40,
  reasoning: 30,
};

// ── Replies ──────────────────────────────────────────────────────────────────────────────────────

export function textReply(text: string, extra: Partial<Reply> = {}): Reply {
  return { blocks: [{ type: "text", text }], chunks: 3, ...extra };
}

export function toolCallReply(upstream: Upstream): Reply {
  return {
    blocks: [{ type: "tool_call", id: callId(upstream, 1), name: WEATHER_TOOL.name, args: WEATHER_ARGS }],
    chunks: 4,
  };
}

export function parallelReply(upstream: Upstream): Reply {
  return {
    blocks: PARALLEL_ARGS.map(
      (args, i): ReplyBlock => ({
        type: "tool_call",
        id: callId(upstream, i + 1),
        name: WEATHER_TOOL.name,
        args,
      }),
    ),
    chunks: 3,
  };
}

/** Thinking with a signature, then a call (which Gemini signs too). */
export function thinkingReply(upstream: Upstream): Reply {
  return {
    blocks: [
      { type: "thinking", text: THINKING_TEXT, signature: THINKING_SIGNATURE },
      {
        type: "tool_call",
        id: callId(upstream, 1),
        name: WEATHER_TOOL.name,
        args: { city: "Paris" },
        ...(upstream === "gemini" ? { signature: CALL_SIGNATURE } : {}),
      },
    ],
    chunks: 3,
  };
}

// Valid requests for each inference endpoint, from the smallest to ones that use most of what each
// protocol can say (system prompts, media, tool calls and results, thinking with signatures, answer
// formats, reasoning settings). The fuzz mutates these: a mutation of a rich request reaches deep
// into the decoders, where a mutation of `{}` would stop at the first check.

import { createHmac } from "node:crypto";
import type { Rng } from "./prng.ts";

export type Face = "chat" | "messages" | "gemini" | "responses";

type Json = Record<string, unknown>;

/** A one-pixel PNG. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** The signature the local models give their thinking, so that replayed thinking is accepted. */
function signed(text: string): string {
  return createHmac("sha256", "switchyard-local-thinking").update(text).digest("base64");
}

const PDF = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF").toString("base64");

/** A JSON Schema of the kind real clients send: draft-07, $defs/$ref, anyOf, type arrays, formats. */
export function richSchema(): Json {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: {
      city: { type: "string", description: "City name", minLength: 1 },
      unit: { type: "string", enum: ["c", "f"], default: "c" },
      days: { type: "integer", minimum: 1, maximum: 14 },
      when: { type: ["string", "null"], format: "date-time" },
      tags: { type: "array", items: { type: "string" }, maxItems: 5 },
      place: { $ref: "#/$defs/place" },
      mode: { anyOf: [{ type: "string", const: "fast" }, { type: "number" }] },
    },
    required: ["city"],
    additionalProperties: false,
    $defs: {
      place: {
        type: "object",
        properties: { lat: { type: "number" }, lon: { type: "number" } },
        required: ["lat", "lon"],
      },
    },
  };
}

const SIMPLE_SCHEMA = (): Json => ({
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
});

export function chatRequest(rng: Rng, model: string): Json {
  if (rng.chance(0.35)) return { model, messages: [{ role: "user", content: "Hello" }] };
  const body: Json = {
    model,
    messages: [
      { role: "system", content: "Be brief." },
      { role: "developer", content: [{ type: "text", text: "Answer in English." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this picture, and the weather?" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
        ],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny, 21C" },
      { role: "assistant", content: "It is sunny.", reasoning: "The tool said so." },
      { role: "user", content: "Thanks. And tomorrow?" },
    ],
    max_tokens: 64,
    temperature: 0.7,
    top_p: 0.9,
    stop: ["\n\n"],
    tools: [
      {
        type: "function",
        function: { name: "weather", description: "Weather for a city", parameters: richSchema() },
      },
      { type: "function", function: { name: "noop", parameters: SIMPLE_SCHEMA(), strict: false } },
    ],
    tool_choice: rng.pick(["auto", "none", "required", { type: "function", function: { name: "weather" } }]),
    parallel_tool_calls: true,
    user: "user-1",
    metadata: { session: "s1" },
    seed: 7,
  };
  if (rng.chance(0.5)) body.stream = true;
  if (rng.chance(0.5)) body.stream_options = { include_usage: true };
  if (rng.chance(0.4)) body.reasoning_effort = rng.pick(["low", "medium", "high", "none"]);
  if (rng.chance(0.3))
    body.response_format = {
      type: "json_schema",
      json_schema: { name: "answer", schema: SIMPLE_SCHEMA(), strict: true },
    };
  if (rng.chance(0.2)) body.logprobs = true;
  if (rng.chance(0.2)) body.provider = { routing: { type: "priority", fallback: "true" } };
  return body;
}

export function messagesRequest(rng: Rng, model: string): Json {
  if (rng.chance(0.35)) return { model, max_tokens: 64, messages: [{ role: "user", content: "Hello" }] };
  const body: Json = {
    model,
    max_tokens: 4096,
    system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
    messages: [
      { role: "system", content: "Also be kind." },
      {
        role: "user",
        content: [
          { type: "text", text: "Look at these." },
          { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
          {
            type: "document",
            source: { type: "base64", media_type: "application/pdf", data: PDF },
            title: "doc",
          },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "plain text" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me call the tool.", signature: signed("Let me call the tool.") },
          { type: "text", text: "Calling." },
          { type: "tool_use", id: "toolu_01", name: "weather", input: { city: "Paris" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01", content: "sunny", is_error: false },
          { type: "text", text: "And tomorrow?" },
        ],
      },
    ],
    tools: [
      { name: "weather", description: "Weather for a city", input_schema: richSchema() },
      { type: "web_search_20250305", name: "web_search", max_uses: 1 },
    ],
    tool_choice: rng.pick([{ type: "auto" }, { type: "any" }, { type: "tool", name: "weather" }]),
    temperature: 0.5,
    top_p: 0.9,
    top_k: 40,
    stop_sequences: ["END"],
    metadata: { user_id: "u-1" },
  };
  if (rng.chance(0.5)) body.stream = true;
  if (rng.chance(0.5)) {
    body.thinking = rng.pick([
      { type: "enabled", budget_tokens: 1024 },
      { type: "adaptive" },
      { type: "disabled" },
    ]);
    delete body.temperature;
    delete body.top_k;
  }
  if (rng.chance(0.3)) body.output_config = { effort: rng.pick(["low", "medium", "high"]) };
  if (rng.chance(0.2)) body.context_management = { edits: [{ type: "clear_tool_uses_20250919" }] };
  return body;
}

export function responsesRequest(rng: Rng, model: string): Json {
  if (rng.chance(0.35)) return { model, input: "Hello" };
  const body: Json = {
    model,
    instructions: "Be brief.",
    input: [
      { role: "developer", content: "Answer in English." },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is in this picture, and the weather?" },
          { type: "input_image", image_url: `data:image/png;base64,${PNG}`, detail: "low" },
        ],
      },
      { type: "function_call", call_id: "call_1", name: "weather", arguments: '{"city":"Paris"}' },
      { type: "function_call_output", call_id: "call_1", output: "sunny, 21C" },
      { role: "assistant", content: [{ type: "output_text", text: "It is sunny." }] },
      { role: "user", content: "Thanks. And tomorrow?" },
    ],
    tools: [
      {
        type: "function",
        name: "weather",
        description: "Weather for a city",
        parameters: richSchema(),
        strict: false,
      },
      { type: "custom", name: "patch", description: "Apply a patch" },
      { type: "web_search" },
    ],
    tool_choice: rng.pick(["auto", "none", "required", { type: "function", name: "weather" }]),
    parallel_tool_calls: true,
    max_output_tokens: 256,
    temperature: 0.7,
    top_p: 0.9,
    store: false,
    metadata: { session: "s1" },
    include: ["reasoning.encrypted_content"],
  };
  if (rng.chance(0.5)) body.stream = true;
  if (rng.chance(0.4)) body.reasoning = { effort: rng.pick(["low", "medium", "high"]), summary: "auto" };
  if (rng.chance(0.3))
    body.text = { format: { type: "json_schema", name: "answer", schema: SIMPLE_SCHEMA(), strict: true } };
  return body;
}

/** `reasoning`: the model thinks (a thinkingConfig is refused on one that does not). */
export function geminiRequest(rng: Rng, reasoning: boolean): Json {
  if (rng.chance(0.35)) return { contents: [{ role: "user", parts: [{ text: "Hello" }] }] };
  const body: Json = {
    systemInstruction: { parts: [{ text: "Be brief." }] },
    contents: [
      {
        role: "user",
        parts: [{ text: "What is this?" }, { inlineData: { mimeType: "image/png", data: PNG } }],
      },
      {
        role: "model",
        parts: [
          { text: "I think.", thought: true, thoughtSignature: signed("I think.") },
          { functionCall: { name: "weather", args: { city: "Paris" } }, thoughtSignature: "c2ln" },
        ],
      },
      {
        role: "user",
        parts: [
          { functionResponse: { name: "weather", response: { result: "sunny" } } },
          { text: "And tomorrow?" },
        ],
      },
    ],
    tools: [
      {
        functionDeclarations: [
          {
            name: "weather",
            description: "Weather for a city",
            parameters: {
              type: "OBJECT",
              properties: { city: { type: "STRING" }, days: { type: "INTEGER", nullable: true } },
              required: ["city"],
            },
          },
          { name: "lookup", parametersJsonSchema: richSchema() },
        ],
      },
      { googleSearch: {} },
    ],
    toolConfig: { functionCallingConfig: { mode: rng.pick(["AUTO", "ANY", "NONE", "VALIDATED"]) } },
    generationConfig: {
      temperature: 0.7,
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 256,
      stopSequences: ["END"],
      candidateCount: 1,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      seed: 3,
    },
    safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }],
  };
  const config = body.generationConfig as Json;
  if (reasoning && rng.chance(0.4))
    config.thinkingConfig = rng.pick([
      { thinkingBudget: 1024, includeThoughts: true },
      { thinkingBudget: -1 },
      { thinkingBudget: 0 },
      { thinkingLevel: "LOW" },
    ]);
  if (rng.chance(0.3)) {
    config.responseMimeType = "application/json";
    config.responseSchema = { type: "OBJECT", properties: { a: { type: "STRING" } } };
  }
  return body;
}

/**
 * A valid embedding request of the OpenAI face (`/v1/embeddings`: each input form) or Gemini's
 * (`:embedContent` or `:batchEmbedContents`), with its path. `tokenIds`: the model's upstream takes
 * token-id inputs (a Gemini upstream refuses them).
 */
export function embeddingRequest(
  rng: Rng,
  face: "chat" | "gemini",
  model: string,
  tokenIds: boolean,
): { path: string; body: Json } {
  const texts = ["Hello", "embed this text", "ünïcödé ✓ 漢字", "a longer text about cats and mats"];
  if (face === "chat") {
    const inputs: unknown[] = [rng.pick(texts), texts.slice(0, 1 + rng.int(texts.length))];
    if (tokenIds) inputs.push([1, 2, 3, 100_000], [[1, 2], [3]]);
    const body: Json = { model, input: rng.pick(inputs) };
    if (rng.chance(0.3)) body.dimensions = 1 + rng.int(64);
    if (rng.chance(0.5)) body.encoding_format = rng.pick(["float", "base64"]);
    if (rng.chance(0.2)) body.user = "user-1";
    return { path: "/v1/embeddings", body };
  }
  const one = (text: string): Json => {
    const request: Json = { model: `models/${model}`, content: { parts: [{ text }] } };
    if (rng.chance(0.3)) request.taskType = rng.pick(["RETRIEVAL_QUERY", "RETRIEVAL_DOCUMENT", "CLUSTERING"]);
    return request;
  };
  if (rng.chance(0.4)) {
    const body = one(rng.pick(texts));
    if (rng.chance(0.3)) body.outputDimensionality = 1 + rng.int(64);
    return { path: `/v1beta/models/${model}:embedContent`, body };
  }
  const requests = texts.slice(0, 1 + rng.int(texts.length)).map(one);
  return { path: `/v1beta/models/${model}:batchEmbedContents`, body: { requests } };
}

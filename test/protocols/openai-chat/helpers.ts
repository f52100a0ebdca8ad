// Shared test helpers: fixtures, SSE framing in both directions, a minimal decoded request.

import { readFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import type { Request } from "../../../src/ir/request.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import type { EncodeContext, SseEvent } from "../../../src/protocols/types.ts";

const fixtures = new URL("../../fixtures/openai-chat/", import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, fixtures), "utf8");
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name));
}

/** SSE text → events, framed by the same parser the upstream client uses. */
export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push({ event: e.event, data: e.data }) });
  parser.feed(text);
  return events;
}

/** Runs a whole SSE text through the upstream stream decoder, ending it like the gateway does. */
export function decodeSse(text: string): StreamEvent[] {
  const decoder = openaiChat.streamDecoder();
  const events = sseEvents(text).flatMap((e) => decoder.decode(e));
  return [...events, ...decoder.end()];
}

/** The JSON payloads of the `data:` lines an encoder wrote ("[DONE]" kept as the string). */
export function dataPayloads(text: string): unknown[] {
  return sseEvents(text).map((e) => (e.data === "[DONE]" ? "[DONE]" : JSON.parse(e.data)));
}

export function irRequest(overrides: Partial<Request> = {}): Request {
  return {
    model: "openai/gpt-4.1",
    system: [],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
    ...overrides,
  };
}

export function encodeContext(request: Partial<Request> = {}): EncodeContext {
  return { id: "gen-01TEST", model: "openai/gpt-4.1", created: 1750000000, request: irRequest(request) };
}

// Shared test helpers: fixtures, SSE framing in both directions, a minimal decoded request.

import { readFileSync } from "node:fs";
import { createParser } from "eventsource-parser";
import type { Request } from "../../../src/ir/request.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { openaiResponses } from "../../../src/protocols/openai-responses/index.ts";
import type { EncodeContext, SseEvent } from "../../../src/protocols/types.ts";

const fixtures = new URL("../../fixtures/openai-responses/", import.meta.url);

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
  const decoder = openaiResponses.streamDecoder();
  const events = sseEvents(text).flatMap((e) => decoder.decode(e));
  return [...events, ...decoder.end()];
}

/** What an encoder wrote, event by event: the `event:` name and the parsed data. */
export function written(text: string): Array<{ event?: string; data: Record<string, any> }> {
  return sseEvents(text).map((e) => ({ event: e.event, data: JSON.parse(e.data) }));
}

export function irRequest(overrides: Partial<Request> = {}): Request {
  return {
    model: "openai/gpt-5",
    system: [],
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: true,
    ignored: [],
    ...overrides,
  };
}

export function encodeContext(request: Partial<Request> = {}): EncodeContext {
  return { id: "gen-01TEST", model: "openai/gpt-5", created: 1750000000, request: irRequest(request) };
}

/** The client face's decoder with the headers a client sends. */
export function decode(body: unknown): Request {
  return openaiResponses.decodeRequest(body, { headers: {} });
}

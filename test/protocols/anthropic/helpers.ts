// Shared by the messages-protocol tests: fixtures, SSE parsing, a minimal IR request and context.

import { readFileSync } from "node:fs";
import type { Request } from "../../../src/ir/request.ts";
import type { EncodeContext, SseEvent } from "../../../src/protocols/types.ts";

const FIXTURES = new URL("../../fixtures/anthropic/", import.meta.url);

export function fixtureText(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name));
}

/** SSE text → events with their names, as an upstream client would read them. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const chunk of text.split(/\r?\n\r?\n/)) {
    let name: string | undefined;
    const data: string[] = [];
    for (const line of chunk.split(/\r?\n/)) {
      if (line.startsWith("event:")) name = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    if (data.length > 0)
      events.push(name === undefined ? { data: data.join("\n") } : { event: name, data: data.join("\n") });
  }
  return events;
}

/** Parsed `{event, data}` pairs of an SSE text we wrote. */
export function sseFrames(text: string): Array<{ event: string; data: any }> {
  return parseSse(text).map((e) => ({ event: e.event ?? "", data: JSON.parse(e.data) }));
}

export const VERSION_HEADERS = { "anthropic-version": "2023-06-01" };

export function baseRequest(overrides: Partial<Request> = {}): Request {
  return {
    model: "anthropic/claude-sonnet-4-5",
    system: [],
    messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }],
    tools: [],
    stopSequences: [],
    stream: false,
    streamUsage: false,
    ignored: [],
    ...overrides,
  };
}

export function encodeContext(overrides: Partial<EncodeContext> = {}): EncodeContext {
  return {
    id: "gen-01TEST",
    model: "anthropic/claude-sonnet-4-5",
    created: 1_700_000_000,
    request: baseRequest(),
    ...overrides,
  };
}

// Shared pieces of the routing end-to-end tests: models served by several fake providers, raw chat
// calls whose bodies are checked to be whole, and the generation record read back through the lookup.

import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { FakeUpstream } from "../../fakes/index.ts";
import { fakeProvider as providerFor } from "../../support/config.ts";
import { PAYG_KEY, type RunningGateway } from "../../support/gateway.ts";

export const SHORT_TIMEOUTS = { connect_ms: 500, first_byte_ms: 500, request_ms: 500, idle_ms: 500 };

/** A provider entry for a fake upstream, with the suite's short timeouts unless told otherwise. */
export function fakeProvider(id: string, fake: FakeUpstream, timeouts: object = SHORT_TIMEOUTS) {
  return providerFor(id, fake, timeouts);
}

export { fakeModel as model } from "../../support/config.ts";

/** The requests a fake received for one upstream model name. */
export function requestsFor(fake: FakeUpstream, upstream: string) {
  return fake.requests.filter((r) => r.body?.model === upstream || r.pathname.includes(`/${upstream}:`));
}

export interface ChatResult {
  status: number;
  headers: Headers;
  /** Non-streamed: the parsed body (the test fails if it is not whole JSON). */
  json?: any;
  /** Streamed: the parsed `data:` payloads, `[DONE]` as the string. */
  frames?: any[];
  generationId: string;
}

/** POST /v1/chat/completions with fetch; the body must be whole JSON, or a well-formed SSE stream. */
export async function chat(
  gw: RunningGateway,
  body: Record<string, unknown>,
  opts: { signal?: AbortSignal } = {},
): Promise<ChatResult> {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...body }),
    signal: opts.signal,
  });
  const text = await res.text();
  const generationId = res.headers.get("x-generation-id") ?? "";
  const type = res.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    return { status: res.status, headers: res.headers, frames: parseSse(text), generationId };
  }
  assert.match(type, /^application\/json/, `content-type of ${text}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    assert.fail(`not whole JSON (${res.status}): ${text}`);
  }
  return { status: res.status, headers: res.headers, json, generationId };
}

/** Every `data:` payload of an SSE body; fails on a payload that is not JSON or a stream not ended by [DONE]. */
export function parseSse(text: string): any[] {
  assert.ok(text.endsWith("\n\n"), `stream cut mid-frame: ${JSON.stringify(text.slice(-80))}`);
  const frames: any[] = [];
  for (const block of text.split("\n\n")) {
    for (const line of block.split("\n")) {
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "[DONE]") {
        frames.push(data);
        continue;
      }
      try {
        frames.push(JSON.parse(data));
      } catch {
        assert.fail(`a stream frame is not JSON: ${data}`);
      }
    }
  }
  assert.equal(frames.at(-1), "[DONE]", "the stream ends with [DONE]");
  return frames;
}

/** The text a chat stream carried. */
export function streamedText(frames: any[]): string {
  return frames
    .filter((f) => f !== "[DONE]")
    .map((f) => f.choices?.[0]?.delta?.content ?? "")
    .join("");
}

/** The generation record from the lookup, once the generation has ended. */
export async function record(gw: RunningGateway, id: string): Promise<any> {
  assert.ok(id.startsWith("gen-"), `a generation id, got '${id}'`);
  for (let i = 0; ; i++) {
    const res = await fetch(`${gw.url}/api/v1/management/generation?id=${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    const body: any = await res.json();
    if (res.status === 200 && body.status !== "pending") return body;
    if (i >= 100) assert.fail(`generation ${id} still ${res.status} ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The id of the latest generation of a model, read from the gateway's SQLite file: a client that
 * went away before the answer never saw the x-generation-id header.
 */
export function latestGenerationId(gw: RunningGateway, modelId: string): string | undefined {
  const db = new DatabaseSync(join(gw.dir, "switchyard.db"), { readOnly: true });
  try {
    const row = db
      .prepare("SELECT id FROM generations WHERE model = ? ORDER BY created_at DESC, id DESC LIMIT 1")
      .get(modelId) as { id: string } | undefined;
    return row?.id;
  } finally {
    db.close();
  }
}

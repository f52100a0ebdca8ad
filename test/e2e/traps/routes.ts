// One gateway in front of three fake upstreams, one per wire protocol, for the trap and client tests.
// Each catalog model below is served by exactly one fake, so a test chooses its route by model id:
//
//   fo/gpt       → fake OpenAI chat-completions upstream   (upstream model gpt-5-mini)
//   fa/claude    → fake Anthropic messages upstream        (upstream model claude-sonnet-4-5)
//   fg/flash     → fake Gemini upstream, 2.5 generation    (upstream model gemini-2.5-flash)
//   fg/pro3      → fake Gemini upstream, 3 generation      (upstream model gemini-3-pro-preview)
//   fg/pro25     → fake Gemini upstream, priced in two prompt-size tiers like Gemini 2.5 Pro
//   fd/reasoner  → fake OpenAI-compatible upstream sending `reasoning_content` (DeepSeek-style)
//
// Nothing here imports src/: expectations are computed from the fakes' documented wire semantics.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type FakeUpstream, type RecordedRequest, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

export const UPSTREAM_MODEL = {
  "fo/gpt": "gpt-5-mini",
  "fa/claude": "claude-sonnet-4-5",
  "fg/flash": "gemini-2.5-flash",
  "fg/pro3": "gemini-3-pro-preview",
  "fg/pro25": "gemini-2.5-pro",
  "fd/reasoner": "deepseek-reasoner",
} as const;

export type RouteModel = keyof typeof UPSTREAM_MODEL;

export interface Routes {
  gw: RunningGateway;
  openai: FakeUpstream;
  anthropic: FakeUpstream;
  gemini: FakeUpstream;
  deepseek: FakeUpstream;
  /** Forgets scripted replies and recorded requests on every fake. */
  reset(): void;
  close(): Promise<void>;
}

/** The catalog's output limit for every fake model (what an Anthropic upstream gets by default). */
export const MAX_OUTPUT = 8192;

/** Gemini 2.5 Pro's public prices: one tier up to 200k prompt tokens, another above (USD per M tokens). */
export const TIERED = {
  small: { prompt: 1.25, completion: 10 },
  large: { prompt: 2.5, completion: 15 },
};

const tier = (small: number, large: number) => [
  {
    value: small,
    unit: "perMTokens",
    currency: "USD",
    conditions: { prompt_tokens: { unit: "kTokens", lte: 200 } },
  },
  {
    value: large,
    unit: "perMTokens",
    currency: "USD",
    conditions: { prompt_tokens: { unit: "kTokens", gt: 200 } },
  },
];

const FLAT = {
  prompt: [{ value: 1, unit: "perMTokens", currency: "USD" }],
  completion: [{ value: 2, unit: "perMTokens", currency: "USD" }],
};

function model(id: RouteModel, provider: string, pricings: object = FLAT) {
  return {
    id,
    display_name: id,
    created: "2025-01-01",
    input_modalities: ["text", "image"],
    output_modalities: ["text"],
    reasoning: true,
    context_length: 1_000_000,
    max_output_tokens: MAX_OUTPUT,
    pricings,
    endpoints: [{ provider, model: UPSTREAM_MODEL[id] }],
  };
}

export async function startRoutes(): Promise<Routes> {
  const [openai, anthropic, gemini, deepseek] = await Promise.all([
    startFakeUpstream("openai", { apiKey: "k-openai" }),
    startFakeUpstream("anthropic", { apiKey: "k-anthropic" }),
    startFakeUpstream("gemini", { apiKey: "k-gemini" }),
    startFakeUpstream("openai", { apiKey: "k-deepseek", reasoningField: "reasoning_content" }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-traps-"));
  const config = baseConfig(dir, {
    providers: [
      { id: "fo", protocol: "openai", base_url: openai.url, api_key: "k-openai" },
      { id: "fa", protocol: "anthropic", base_url: anthropic.url, api_key: "k-anthropic" },
      { id: "fg", protocol: "gemini", base_url: gemini.url, api_key: "k-gemini" },
      { id: "fd", protocol: "openai", base_url: deepseek.url, api_key: "k-deepseek" },
    ],
    models: [
      model("fo/gpt", "fo"),
      model("fa/claude", "fa"),
      model("fg/flash", "fg"),
      model("fg/pro3", "fg"),
      model("fg/pro25", "fg", {
        prompt: tier(TIERED.small.prompt, TIERED.large.prompt),
        completion: tier(TIERED.small.completion, TIERED.large.completion),
      }),
      model("fd/reasoner", "fd"),
    ],
  });
  const gw = await startGateway(config, { dir });
  const fakes = [openai, anthropic, gemini, deepseek];
  return {
    gw,
    openai,
    anthropic,
    gemini,
    deepseek,
    reset() {
      for (const fake of fakes) fake.reset();
    },
    async close() {
      await gw.stop();
      await Promise.all(fakes.map((f) => f.close()));
    },
  };
}

/** The only request a fake received since its last reset (fails loudly otherwise). */
export function onlyRequest(fake: FakeUpstream): RecordedRequest {
  if (fake.requests.length !== 1)
    throw new Error(`expected 1 request to the fake ${fake.protocol} upstream, got ${fake.requests.length}`);
  return fake.requests[0];
}

// ── Raw HTTP, for tests that look at bytes the SDKs would hide ─────────────────────────────────────

export type Face = "chat" | "messages" | "gemini";

export function headersFor(face: Face, key = PAYG_KEY): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (face === "chat") headers.authorization = `Bearer ${key}`;
  else if (face === "messages") {
    headers["x-api-key"] = key;
    headers["anthropic-version"] = "2023-06-01";
  } else headers["x-goog-api-key"] = key;
  return headers;
}

export function pathFor(face: Face, model: string, stream: boolean): string {
  if (face === "chat") return "/v1/chat/completions";
  if (face === "messages") return "/v1/messages";
  return `/v1beta/models/${model}:${stream ? "streamGenerateContent?alt=sse" : "generateContent"}`;
}

/** POSTs a body (object or exact text) and returns status, headers and the parsed JSON answer. */
export async function post(
  gw: RunningGateway,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; json: any; text: string }> {
  const res = await fetch(gw.url + path, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export interface SseFrame {
  event?: string;
  data: string;
  /** ms since the request was sent. */
  at: number;
}

/** POSTs and reads the SSE answer frame by frame, noting when each frame arrived. */
export async function postStream(
  gw: RunningGateway,
  path: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Headers; frames: SseFrame[] }> {
  const sent = performance.now();
  const res = await fetch(gw.url + path, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const frames: SseFrame[] = [];
  if (!res.body) return { status: res.status, headers: res.headers, frames };
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    buffer = buffer.replace(/\r\n/g, "\n");
    let cut = buffer.indexOf("\n\n");
    while (cut >= 0) {
      const raw = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const frame: SseFrame = { data: "", at: performance.now() - sent };
      const data: string[] = [];
      for (const line of raw.split("\n")) {
        if (line.startsWith("event:")) frame.event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      frame.data = data.join("\n");
      if (frame.event !== undefined || data.length > 0) frames.push(frame);
      cut = buffer.indexOf("\n\n");
    }
  }
  return { status: res.status, headers: res.headers, frames };
}

/** The JSON of each frame's data (frames whose data is not JSON, like `[DONE]`, are left out). */
export function jsonFrames(frames: SseFrame[]): any[] {
  return frames.flatMap((f) => {
    try {
      return [JSON.parse(f.data)];
    } catch {
      return [];
    }
  });
}

/** Polls the lookup until the generation's record is final; returns it. */
export async function lookupFinal(gw: RunningGateway, id: string, key = PAYG_KEY): Promise<any> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await fetch(`${gw.url}/api/v1/management/generation?id=${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await res.json()) as any;
    if (res.status === 200 && body.status !== "in_progress" && body.status !== "pending") return body;
    if (Date.now() > deadline) throw new Error(`generation ${id} not final: ${JSON.stringify(body)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

// ── Official SDK clients pointed at the gateway ──────────────────────────────────────────────────

export function openaiClient(gw: RunningGateway, key = PAYG_KEY): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
}

export function anthropicClient(gw: RunningGateway, key = PAYG_KEY): Anthropic {
  return new Anthropic({ apiKey: key, baseURL: gw.url, maxRetries: 0 });
}

// The measured scenarios. Each sends one request shape to the gateway and its floor to the bare
// proxy: the same upstream call, made natively. For the relays both bodies are the same but for the
// model name (the catalog id for the gateway, the upstream's name for the proxy). For translation the
// floor is the proxy relaying the upstream's own protocol: what a client speaking that protocol pays.

import { BENCH_KEY, MODELS, UPSTREAM_KEY } from "./gateway.ts";
import type { LoadRequest } from "./load.ts";

export type Storage = "sqlite" | "postgres";

export interface LoadScenario {
  name: string;
  title: string;
  connections: number;
  storage: Storage;
  proxy: LoadRequest;
  gateway: LoadRequest;
  /** How to tell a complete, correct answer from a broken one (checked once before measuring). */
  expect: string;
}

const MESSAGES = [{ role: "user", content: "Hello" }];
const JSON_TYPE = { "content-type": "application/json" };

const chat = (key: string, model: string, streamed: boolean): LoadRequest => ({
  path: "/v1/chat/completions",
  headers: { ...JSON_TYPE, authorization: `Bearer ${key}` },
  body: JSON.stringify({
    model,
    messages: MESSAGES,
    ...(streamed ? { stream: true, stream_options: { include_usage: true } } : {}),
  }),
});

const messages = (key: string, model: string): LoadRequest => ({
  path: "/v1/messages",
  headers: { ...JSON_TYPE, "x-api-key": key, "anthropic-version": "2023-06-01" },
  body: JSON.stringify({ model, max_tokens: 1024, messages: MESSAGES, stream: true }),
});

const contentGeneration = (key: string, model: string): LoadRequest => ({
  path: `/v1beta/models/${model}:streamGenerateContent?alt=sse`,
  headers: { ...JSON_TYPE, "x-goog-api-key": key },
  body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hello" }] }] }),
});

const relay = {
  proxy: chat(UPSTREAM_KEY, MODELS.chat.upstream, false),
  gateway: chat(BENCH_KEY, MODELS.chat.id, false),
  expect: '"finish_reason":"stop"',
};

export const LOAD_SCENARIOS: LoadScenario[] = [
  {
    name: "relay-c50",
    title: "chat relay, non-streamed, c=50 (ledger: SQLite)",
    connections: 50,
    storage: "sqlite",
    ...relay,
  },
  {
    name: "relay-c1",
    title: "chat relay, non-streamed, c=1 (ledger: SQLite)",
    connections: 1,
    storage: "sqlite",
    ...relay,
  },
  {
    name: "stream-c50",
    title: "chat relay, streamed (20 chunks), c=50",
    connections: 50,
    storage: "sqlite",
    proxy: chat(UPSTREAM_KEY, MODELS.chat.upstream, true),
    gateway: chat(BENCH_KEY, MODELS.chat.id, true),
    expect: "data: [DONE]",
  },
  {
    name: "messages-to-chat",
    title: "messages client → chat upstream, streamed, c=50",
    connections: 50,
    storage: "sqlite",
    proxy: chat(UPSTREAM_KEY, MODELS.chat.upstream, true),
    gateway: messages(BENCH_KEY, MODELS.chat.id),
    expect: "event: message_stop",
  },
  {
    name: "gemini-to-messages",
    title: "content-generation client → messages upstream, streamed, c=50",
    connections: 50,
    storage: "sqlite",
    proxy: messages(UPSTREAM_KEY, MODELS.messages.upstream),
    gateway: contentGeneration(BENCH_KEY, MODELS.messages.id),
    expect: '"finishReason"',
  },
  {
    name: "relay-c50-postgres",
    title: "chat relay, non-streamed, c=50 (ledger: PostgreSQL)",
    connections: 50,
    storage: "postgres",
    ...relay,
  },
];

export const IDLE_STREAMS_SCENARIO = "idle-streams";
export const SCENARIO_NAMES = [...LOAD_SCENARIOS.map((s) => s.name), IDLE_STREAMS_SCENARIO];

/** The streaming request whose upstream sends one chunk and then holds the stream open. */
export const heldStream = {
  proxy: chat(UPSTREAM_KEY, MODELS.hold.upstream, true),
  gateway: chat(BENCH_KEY, MODELS.hold.id, true),
};

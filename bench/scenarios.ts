// The measured scenarios. Each sends one request shape to the gateway and its floor to the bare
// proxy: the same upstream call, made natively. For the relays both bodies are the same but for the
// model name (the catalog id for the gateway, the upstream's name for the proxy). For translation the
// floor is the proxy relaying the upstream's own protocol: what a client speaking that protocol pays.

import { BENCH_KEY, MODELS, UPSTREAM_KEY } from "./gateway.ts";
import type { LoadRequest } from "./load.ts";
import { type Peer, peerChat } from "./peer.ts";

export type Storage = "sqlite" | "postgres";

export interface LoadScenario {
  name: string;
  title: string;
  /**
   * Which targets apply: a non-streamed relay, a streamed relay, or a translated stream; an
   * embedding batch (read into the IR and written again) is reported against no target, and so is a
   * relay to a cloud platform (compared with the plain relay of its protocol: formatComparisons).
   */
  kind: "relay" | "stream-relay" | "translated" | "embeddings" | "platform-relay" | "memory";
  /** How the upstream paces a streamed answer (see servers/upstream.ts). */
  pacing?: "turn" | "burst";
  /** `serve --workers N`; the gateway is then not pinned, so the workers can use every core. */
  workers?: number;
  /** Measure this peer gateway instead of Switchyard (its `gateway` request is the peer's). */
  peer?: Peer;
  connections: number;
  storage: Storage;
  proxy: LoadRequest;
  gateway: LoadRequest;
  /** How to tell a complete, correct answer from a broken one (checked once before measuring). */
  expect: string;
  /** Made once the gateway runs, before anything is sent: the request to measure (`gateway` unused). */
  prepare?: (gatewayUrl: string) => Promise<LoadRequest>;
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

const responses = (key: string, model: string): LoadRequest => ({
  path: "/v1/responses",
  headers: { ...JSON_TYPE, authorization: `Bearer ${key}` },
  body: JSON.stringify({ model, input: "Hello", max_output_tokens: 1024, stream: true }),
});

/** A whole Responses turn (stored, OpenAI's default), continuing `previous` when given. */
const responsesTurn = (key: string, model: string, previous?: string): LoadRequest => ({
  path: "/v1/responses",
  headers: { ...JSON_TYPE, authorization: `Bearer ${key}` },
  body: JSON.stringify({
    model,
    input: "Hello",
    max_output_tokens: 1024,
    ...(previous ? { previous_response_id: previous } : {}),
  }),
});

/**
 * A turn that continues a stored response: the response is made first (a three-turn chain, as an
 * agent's run has), then every measured request continues its last turn.
 */
async function continuedTurn(gatewayUrl: string): Promise<LoadRequest> {
  let previous: string | undefined;
  for (let turn = 0; turn < 3; turn++) {
    const req = responsesTurn(BENCH_KEY, MODELS.chat.id, previous);
    const res = await fetch(gatewayUrl + req.path, { method: "POST", headers: req.headers, body: req.body });
    if (res.status !== 200)
      throw new Error(`the chain's turn ${turn} failed: HTTP ${res.status} ${await res.text()}`);
    previous = ((await res.json()) as { id: string }).id;
  }
  return responsesTurn(BENCH_KEY, MODELS.chat.id, previous);
}

/** A 16-text batch to `/v1/embeddings`, as a retrieval pipeline sends its chunks. */
const embeddings = (key: string, model: string): LoadRequest => ({
  path: "/v1/embeddings",
  headers: { ...JSON_TYPE, authorization: `Bearer ${key}` },
  body: JSON.stringify({
    model,
    input: Array.from({ length: 16 }, (_, i) => `Chunk ${i} of a document about the gateway's embeddings.`),
    encoding_format: "float",
  }),
});

const relay = {
  proxy: chat(UPSTREAM_KEY, MODELS.chat.upstream, false),
  gateway: chat(BENCH_KEY, MODELS.chat.id, false),
  expect: '"finish_reason":"stop"',
};

/** Upstream pacing of a streamed answer: one frame per read, or the whole answer in one read. */
type Pacing = "turn" | "burst";
const PACING_TITLE: Record<Pacing, string> = {
  turn: "one frame per upstream write",
  burst: "whole answer in one upstream write",
};
const chatModel = (p: Pacing) => (p === "turn" ? MODELS.chat : MODELS.chatBurst);
const messagesModel = (p: Pacing) => (p === "turn" ? MODELS.messages : MODELS.messagesBurst);
const suffix = (p: Pacing) => (p === "turn" ? "" : "-burst");

/** Every stream scenario, at both pacings. */
function streamScenarios(pacing: Pacing): LoadScenario[] {
  const chatUp = chatModel(pacing);
  const messagesUp = messagesModel(pacing);
  const base = { connections: 50, storage: "sqlite" as const, pacing };
  return [
    {
      ...base,
      name: `stream-c50${suffix(pacing)}`,
      title: `chat relay, streamed (20 chunks, ${PACING_TITLE[pacing]}), c=50`,
      kind: "stream-relay",
      proxy: chat(UPSTREAM_KEY, chatUp.upstream, true),
      gateway: chat(BENCH_KEY, chatUp.id, true),
      expect: "data: [DONE]",
    },
    {
      ...base,
      name: `messages-to-chat${suffix(pacing)}`,
      title: `messages client → chat upstream, streamed (${PACING_TITLE[pacing]}), c=50`,
      kind: "translated",
      proxy: chat(UPSTREAM_KEY, chatUp.upstream, true),
      gateway: messages(BENCH_KEY, chatUp.id),
      expect: "event: message_stop",
    },
    {
      ...base,
      name: `gemini-to-messages${suffix(pacing)}`,
      title: `content-generation client → messages upstream, streamed (${PACING_TITLE[pacing]}), c=50`,
      kind: "translated",
      proxy: messages(UPSTREAM_KEY, messagesUp.upstream),
      gateway: contentGeneration(BENCH_KEY, messagesUp.id),
      expect: '"finishReason"',
    },
    {
      ...base,
      name: `responses-to-messages${suffix(pacing)}`,
      title: `Responses client → messages upstream, streamed (${PACING_TITLE[pacing]}), c=50`,
      kind: "translated",
      proxy: messages(UPSTREAM_KEY, messagesUp.upstream),
      gateway: responses(BENCH_KEY, messagesUp.id),
      expect: "response.completed",
    },
  ];
}

export const LOAD_SCENARIOS: LoadScenario[] = [
  {
    name: "relay-c50",
    title: "chat relay, non-streamed, c=50 (ledger: SQLite)",
    kind: "relay",
    connections: 50,
    storage: "sqlite",
    ...relay,
  },
  {
    name: "relay-c1",
    title: "chat relay, non-streamed, c=1 (ledger: SQLite)",
    kind: "relay",
    connections: 1,
    storage: "sqlite",
    ...relay,
  },
  ...streamScenarios("turn"),
  ...streamScenarios("burst"),
  {
    name: "messages-relay-c50",
    title: "messages relay, streamed (20 chunks, one frame per upstream write), c=50",
    kind: "stream-relay",
    connections: 50,
    storage: "sqlite",
    pacing: "turn",
    proxy: messages(UPSTREAM_KEY, MODELS.messages.upstream),
    gateway: messages(BENCH_KEY, MODELS.messages.id),
    expect: "event: message_stop",
  },
  {
    // The same client request and the same floor as messages-relay-c50: what Bedrock adds is the
    // SigV4 signature of each call and the event-stream frames read back into messages events.
    name: "bedrock-relay-c50",
    title: "messages client → Claude on Bedrock (SigV4, event-stream frames), streamed, c=50",
    kind: "platform-relay",
    connections: 50,
    storage: "sqlite",
    pacing: "turn",
    proxy: messages(UPSTREAM_KEY, MODELS.messages.upstream),
    gateway: messages(BENCH_KEY, MODELS.bedrock.id),
    expect: "event: message_stop",
  },
  {
    name: "embeddings-c50",
    title: "embeddings, a 16-input batch of 1536-dimension vectors, c=50 (ledger: SQLite)",
    kind: "embeddings",
    connections: 50,
    storage: "sqlite",
    proxy: embeddings(UPSTREAM_KEY, MODELS.embed.upstream),
    gateway: embeddings(BENCH_KEY, MODELS.embed.id),
    expect: '"object":"list"',
  },
  // The stored responses' price: a plain stored turn against one that continues a three-turn chain
  // (each read back before the call). Reported side by side, without a target.
  {
    name: "responses-plain-c50",
    title: "Responses client → chat upstream, non-streamed, stored, c=50",
    kind: "memory",
    connections: 50,
    storage: "sqlite",
    proxy: chat(UPSTREAM_KEY, MODELS.chat.upstream, false),
    gateway: responsesTurn(BENCH_KEY, MODELS.chat.id),
    expect: '"status":"completed"',
  },
  {
    name: "responses-continued-c50",
    title: "Responses client → chat upstream, non-streamed, stored, continuing a 3-turn chain, c=50",
    kind: "memory",
    connections: 50,
    storage: "sqlite",
    proxy: chat(UPSTREAM_KEY, MODELS.chat.upstream, false),
    gateway: responsesTurn(BENCH_KEY, MODELS.chat.id),
    prepare: continuedTurn,
    expect: '"status":"completed"',
  },
  {
    name: "relay-c50-postgres",
    title: "chat relay, non-streamed, c=50 (ledger: PostgreSQL)",
    kind: "relay",
    connections: 50,
    storage: "postgres",
    ...relay,
  },
  {
    name: "relay-c50-workers2",
    title: "chat relay, non-streamed, c=50, `serve --workers 2` (ledger: SQLite; not pinned)",
    kind: "relay",
    connections: 50,
    storage: "sqlite",
    workers: 2,
    ...relay,
  },
];

/** The peer's side of the relays, measured against the same proxy (`--peer`). */
export function peerScenarios(peer: Peer, upstreamUrl: string): LoadScenario[] {
  // The peers are measured on the chat relays (peerChat).
  const relayed = LOAD_SCENARIOS.filter(
    (s) => s.name === "relay-c50" || (s.kind === "stream-relay" && s.name.startsWith("stream-c50")),
  );
  return relayed.map((s) => {
    const model = s.kind === "relay" ? MODELS.chat : chatModel(s.pacing ?? "turn");
    return {
      ...s,
      name: `${peer}-${s.name}`,
      title: `${peer}: ${s.title}`,
      peer,
      gateway: peerChat(upstreamUrl, model.upstream, s.kind === "stream-relay"),
    };
  });
}

export const IDLE_STREAMS_SCENARIO = "idle-streams";
export const SCENARIO_NAMES = [...LOAD_SCENARIOS.map((s) => s.name), IDLE_STREAMS_SCENARIO];

/** The streaming request whose upstream sends one chunk and then holds the stream open. */
export const heldStream = {
  proxy: chat(UPSTREAM_KEY, MODELS.hold.upstream, true),
  gateway: chat(BENCH_KEY, MODELS.hold.id, true),
};

// The CPU of a stream's own work, without sockets or the request path: the upstream's 20-chunk
// answer (the bench upstream's bytes), as the gateway handles it once an endpoint answers.
// - translated: read by the SSE reader, decoded to IR stream events by the upstream's protocol and
//   encoded by the client's, as the adapter and the translated route do it
//   (src/providers/http/adapter.ts `stream`, src/gateway/route.ts);
// - relayed: cut into events and passed on or decoded, with the tap reading it for the meter, as
//   the relayed route does it (src/gateway/relay-stream.ts), each stream with an upstream id and a
//   context of its own.
// One line per pair (the translated pairs of bench/scenarios.ts, and the two relays), in µs of CPU
// per stream. SWITCHYARD_RELAY_FAST_PATH=off measures the relays without their fast path
// (src/gateway/relay-fast-path.ts).
//
//   node bench/micro.ts --scenario translated|relayed [--streams 20000] [--reads burst|turn]
//                       [--rounds 3] [--pair NAME] [--print] [--profile]
//
// `burst` has the whole answer in one read (the `-burst` scenarios), `turn` one frame per read.
// `--print` writes the client's bytes of each pair instead of measuring: compare them across a
// change to see that no byte a client receives moved.

import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RelayStream } from "../src/gateway/relay-stream.ts";
import type { StreamEvent } from "../src/ir/stream.ts";
import { protocols } from "../src/protocols/index.ts";
import { relays } from "../src/protocols/relays.ts";
import { SseReader } from "../src/protocols/shared/sse-reader.ts";
import type { EncodeContext, Protocol, ProtocolName } from "../src/protocols/types.ts";
import { summarizeProfile } from "./cpu-profile.ts";
import { formatProfile } from "./profile.ts";
import { answerIds, CHAT_ID, chatStream, MESSAGE_ID, messagesStream } from "./servers/upstream-bodies.ts";

interface Pair {
  name: string;
  client: Protocol;
  upstream: Protocol;
  ctx: EncodeContext;
  frames: string[];
  /** The client speaks the upstream's protocol: the stream is relayed, not translated. */
  relay?: ProtocolName;
}

const PROMPT = "Hello";

function context(client: Protocol, body: unknown, ctx: Partial<Parameters<Protocol["decodeRequest"]>[1]>) {
  const request = client.decodeRequest(body, { headers: { "anthropic-version": "2023-06-01" }, ...ctx });
  return { id: "gen-bench0000000000000000", model: "fake/m-burst", created: 1735689600, request };
}

const PAIRS: Pair[] = [
  {
    name: "messages-to-chat",
    client: protocols.anthropic,
    upstream: protocols["openai-chat"],
    ctx: context(
      protocols.anthropic,
      {
        model: "fake/m-burst",
        max_tokens: 1024,
        messages: [{ role: "user", content: PROMPT }],
        stream: true,
      },
      {},
    ),
    frames: chatStream("m-burst", 20, true),
  },
  {
    name: "gemini-to-messages",
    client: protocols.gemini,
    upstream: protocols.anthropic,
    ctx: context(
      protocols.gemini,
      { contents: [{ role: "user", parts: [{ text: PROMPT }] }] },
      { pathModel: "fakea/ma-burst", pathStream: true },
    ),
    frames: messagesStream("ma-burst", 20),
  },
  {
    name: "responses-to-messages",
    client: protocols["openai-responses"],
    upstream: protocols.anthropic,
    ctx: context(
      protocols["openai-responses"],
      { model: "fakea/ma-burst", input: PROMPT, max_output_tokens: 1024, stream: true },
      {},
    ),
    frames: messagesStream("ma-burst", 20),
  },
];

const RELAYED: Pair[] = [
  {
    name: "chat-relay",
    client: protocols["openai-chat"],
    upstream: protocols["openai-chat"],
    relay: "openai-chat",
    ctx: context(
      protocols["openai-chat"],
      {
        model: "fake/m-burst",
        messages: [{ role: "user", content: PROMPT }],
        stream: true,
        stream_options: { include_usage: true },
      },
      {},
    ),
    frames: chatStream("m-burst", 20, true),
  },
  {
    // The same upstream bytes to a client that did not ask for usage (most clients): the usage
    // chunk withheld and every chunk's `"usage":null` cut (src/protocols/openai-chat/relay.ts).
    name: "chat-relay-unasked",
    client: protocols["openai-chat"],
    upstream: protocols["openai-chat"],
    relay: "openai-chat",
    ctx: context(
      protocols["openai-chat"],
      { model: "fake/m-burst", messages: [{ role: "user", content: PROMPT }], stream: true },
      {},
    ),
    frames: chatStream("m-burst", 20, true),
  },
  {
    name: "messages-relay",
    client: protocols.anthropic,
    upstream: protocols.anthropic,
    relay: "anthropic",
    ctx: context(
      protocols.anthropic,
      {
        model: "fakea/ma-burst",
        max_tokens: 1024,
        messages: [{ role: "user", content: PROMPT }],
        stream: true,
      },
      {},
    ),
    frames: messagesStream("ma-burst", 20),
  },
];

/** One stream, handled as the gateway handles the pair: the client's text. */
function handle(pair: Pair, reads: Buffer[]): string {
  return pair.relay ? relay(pair, pair.relay, reads) : translate(pair, reads);
}

/** One stream, as the relayed route passes it on and taps it, under a context of its own. */
function relay(pair: Pair, name: ProtocolName, reads: Buffer[]): string {
  const ctx: EncodeContext = { ...pair.ctx };
  const stream = new RelayStream(
    relays[name],
    ctx,
    pair.upstream.streamDecoder(),
    pair.client.streamEncoder(ctx),
  );
  let out = "";
  for (const read of reads) for (const piece of stream.read(read)) out += piece.text.toString();
  for (const piece of stream.end()) out += piece.text.toString();
  return out;
}

/** One stream, as the adapter reads it and the translated route encodes it: the client's text. */
function translate(pair: Pair, reads: Buffer[]): string {
  const reader = new SseReader();
  const decoder = pair.upstream.streamDecoder();
  const encoder = pair.client.streamEncoder(pair.ctx);
  let out = "";
  const encodeAll = (events: StreamEvent[]) => {
    for (const event of events) out += encoder.encode(event);
  };
  for (const read of reads) {
    const events: StreamEvent[] = [];
    for (const e of reader.read(read)) for (const event of decoder.decode(e)) events.push(event);
    encodeAll(events);
  }
  for (const e of reader.end()) encodeAll(decoder.decode(e));
  encodeAll(decoder.end());
  return out + encoder.end();
}

/**
 * The stream's reads: a relayed pair's come with upstream ids of their own (a pool of 64 streams,
 * made up front), as a provider's streams do, since a relay learns from each stream's opening.
 */
function readsOf(pair: Pair, pacing: string): Buffer[][] {
  const reads = (frames: string[]) =>
    pacing === "turn" ? frames.map((f) => Buffer.from(f)) : [Buffer.from(frames.join(""))];
  if (!pair.relay) return [reads(pair.frames)];
  return Array.from({ length: 64 }, () => {
    const ids = answerIds();
    return reads(pair.frames.map((f) => f.replaceAll(CHAT_ID, ids.chat).replaceAll(MESSAGE_ID, ids.message)));
  });
}

/** CPU µs per stream over `streams` streams. */
function measure(pair: Pair, pool: Buffer[][], streams: number): number {
  let bytes = 0;
  const before = process.cpuUsage();
  for (let i = 0; i < streams; i++) bytes += handle(pair, pool[i % pool.length]!).length;
  const cpu = process.cpuUsage(before);
  if (bytes === 0) throw new Error(`${pair.name} wrote nothing`);
  return (cpu.user + cpu.system) / streams;
}

/** `kind`: the translated pairs, or the relays. */
export async function streamMicro(
  kind: "translated" | "relayed",
  flag: (name: string, fallback: string) => string,
): Promise<void> {
  const streams = Number(flag("--streams", "20000"));
  const rounds = Number(flag("--rounds", "3"));
  const pacing = flag("--reads", "burst");
  const only = flag("--pair", "");
  const pairs = (kind === "relayed" ? RELAYED : PAIRS).filter((p) => only === "" || p.name === only);
  const pools = new Map(pairs.map((p) => [p, readsOf(p, pacing)]));
  if (process.argv.includes("--print")) {
    for (const pair of pairs) process.stdout.write(`== ${pair.name}\n${handle(pair, pools.get(pair)![0]!)}`);
    return;
  }
  for (const pair of pairs) measure(pair, pools.get(pair)!, Math.min(streams, 5000)); // warm-up
  const session = process.argv.includes("--profile") ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  const figures = new Map<string, number[]>(pairs.map((p) => [p.name, []]));
  // Rounds alternate the pairs, so a drift of the machine's speed touches each alike.
  for (let round = 0; round < rounds; round++)
    for (const pair of pairs) figures.get(pair.name)?.push(measure(pair, pools.get(pair)!, streams));
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    const file = join(tmpdir(), `micro-${kind}-${process.pid}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(formatProfile(summarizeProfile(file)));
  }
  for (const [name, us] of figures) {
    const sorted = [...us].sort((a, b) => a - b);
    console.log(
      `${name} (${pacing}): ${sorted[0].toFixed(1)} µs CPU per stream at best, ` +
        `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} (${rounds} rounds of ${streams})`,
    );
  }
}

// An optional peer measured by the same method (`npm run bench -- --peer portkey`): Portkey's npm
// gateway (@portkey-ai/gateway), installed at a pinned version into a cache directory outside the
// repository and started in its own process, listening on 127.0.0.1 only. It relays chat-completions
// to the same fake upstream, told where by its x-portkey-custom-host header.

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { UPSTREAM_KEY } from "./gateway.ts";
import type { LoadRequest } from "./load.ts";
import { type Server, startServer } from "./processes.ts";

export const PEERS = ["portkey"] as const;
export type Peer = (typeof PEERS)[number];

const PORTKEY_VERSION = "1.15.2";

function cacheDir(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "switchyard-bench", `portkey-${PORTKEY_VERSION}`);
}

function installPortkey(log: (line: string) => void): string {
  const dir = cacheDir();
  const entry = join(dir, "node_modules/@portkey-ai/gateway/build/start-server.js");
  if (existsSync(join(dir, ".installed"))) return entry;
  log(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${dir} …`);
  mkdirSync(dir, { recursive: true });
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefix", dir, `@portkey-ai/gateway@${PORTKEY_VERSION}`],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  writeFileSync(join(dir, ".installed"), `${new Date().toISOString()}\n`);
  return entry;
}

export async function startPeer(peer: Peer, cpus: number[], log: (line: string) => void): Promise<Server> {
  const entry = installPortkey(log);
  return startServer(
    `peer (${peer})`,
    ["--import", join(import.meta.dirname, "servers/loopback-only.ts"), entry, "--port=0", "--headless"],
    { cpus, env: { NODE_ENV: "production" } },
  );
}

/** The chat request as the peer takes it: the upstream's model name, its address in a header. */
export function peerChat(upstreamUrl: string, model: string, streamed: boolean): LoadRequest {
  return {
    path: "/v1/chat/completions",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${UPSTREAM_KEY}`,
      "x-portkey-provider": "openai",
      "x-portkey-custom-host": `${upstreamUrl}/v1`,
    },
    body: JSON.stringify({
      model,
      messages: [{ role: "user", content: "Hello" }],
      ...(streamed ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  };
}

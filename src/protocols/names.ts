// The names each wire protocol goes by, joined in one table (docs/architecture.md §1, "One protocol,
// its names"): the docs' name for its style (`wire`), its module id here (ProtocolName), its name in
// the config file (`providers[].protocol`), the `api` the generation record shows, and the client
// routes that speak it (src/server/paths.ts decides).

import type { ProtocolName } from "./types.ts";

export const PROTOCOL_NAMES = [
  {
    wire: "chat-completions",
    protocol: "openai-chat",
    config: "openai",
    api: "chat.completions",
    routes: "/v1/chat/completions",
  },
  { wire: "messages", protocol: "anthropic", config: "anthropic", api: "messages", routes: "/v1/messages" },
  {
    wire: "content-generation",
    protocol: "gemini",
    config: "gemini",
    api: "generateContent",
    routes: "/v1beta/models/{model}:generateContent",
  },
  {
    wire: "Responses API",
    protocol: "openai-responses",
    config: "openai-responses",
    api: "responses",
    routes: "/v1/responses",
  },
] as const satisfies ReadonlyArray<{
  wire: string;
  protocol: ProtocolName;
  config: string;
  api: string;
  routes: string;
}>;

/**
 * Bedrock's Converse API: a fifth protocol module, upstream only. No client route speaks it and no
 * generation is recorded under it (the `api` is the client's); no `providers[].protocol` names it:
 * the `aws-bedrock` platform speaks it to every model that is not Claude (src/providers/platforms/bedrock.ts).
 */
export const UPSTREAM_ONLY_PROTOCOL = {
  wire: "Converse",
  protocol: "bedrock-converse",
  platform: "aws-bedrock",
} as const;

type Names = (typeof PROTOCOL_NAMES)[number];
/** `providers[].protocol` of an HTTP upstream (the built-in `local` is not a wire protocol). */
export type ConfigProtocolName = Names["config"];
/**
 * The generation record's `api`: the style the client spoke, or `embeddings` for an embedding from
 * either face (src/gateway/embeddings.ts).
 */
export type Api = Names["api"] | "embeddings";

export function apiOf(protocol: ProtocolName): Api {
  return row("protocol", protocol).api;
}

export function protocolOfApi(api: Api): ProtocolName {
  // An embedding's record is read in OpenAI's words (its finish reason is `stop`).
  if (api === "embeddings") return "openai-chat";
  return row("api", api).protocol;
}

export function protocolOfConfig(name: ConfigProtocolName): ProtocolName {
  return row("config", name).protocol;
}

function row<K extends keyof Names>(key: K, value: Names[K]): Names {
  const found = PROTOCOL_NAMES.find((r) => r[key] === value);
  if (!found) throw new Error(`no protocol with ${key} '${value}'`);
  return found;
}

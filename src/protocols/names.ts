// The three names each wire protocol goes by, joined in one table: its module id here (ProtocolName),
// its name in the config file (`providers[].protocol`) and the `api` the generation record shows.

import type { ProtocolName } from "./types.ts";

export const PROTOCOL_NAMES = [
  { protocol: "openai-chat", config: "openai", api: "chat.completions" },
  { protocol: "anthropic", config: "anthropic", api: "messages" },
  { protocol: "gemini", config: "gemini", api: "generateContent" },
  { protocol: "openai-responses", config: "openai-responses", api: "responses" },
] as const satisfies ReadonlyArray<{ protocol: ProtocolName; config: string; api: string }>;

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

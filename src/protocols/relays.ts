import { anthropicRelay } from "./anthropic/relay.ts";
import { geminiRelay } from "./gemini/relay.ts";
import { openaiChatRelay } from "./openai-chat/relay.ts";
import { openaiResponsesRelay } from "./openai-responses/relay.ts";
import type { ProtocolName, Relay } from "./types.ts";

export const relays: Record<ProtocolName, Relay> = {
  "openai-chat": openaiChatRelay,
  anthropic: anthropicRelay,
  gemini: geminiRelay,
  "openai-responses": openaiResponsesRelay,
};

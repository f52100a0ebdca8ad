import { anthropic } from "./anthropic/index.ts";
import { gemini } from "./gemini/index.ts";
import { openaiChat } from "./openai-chat/index.ts";
import { openaiResponses } from "./openai-responses/index.ts";
import type { Protocol, ProtocolName } from "./types.ts";

export const protocols: Record<ProtocolName, Protocol> = {
  "openai-chat": openaiChat,
  anthropic,
  gemini,
  "openai-responses": openaiResponses,
};

// Shared by the Converse tests: a minimal IR request, and frames as the event-stream reader gives them.

import type { StreamEvent } from "../../../src/ir/stream.ts";
import { bedrockConverse } from "../../../src/protocols/bedrock-converse/index.ts";

// The IR request every protocol test starts from (the model it names plays no part in encoding).
export { baseRequest } from "../anthropic/helpers.ts";

export const NOVA = "us.amazon.nova-pro-v1:0";
export const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

/** ConverseStream events (`[eventType, payload]`) through one decoder, then its end. */
export function decodeStream(frames: Array<[string, unknown]>): StreamEvent[] {
  const decoder = bedrockConverse.streamDecoder();
  const events = frames.flatMap(([event, payload]) =>
    decoder.decode({ event, data: JSON.stringify(payload) }),
  );
  return [...events, ...decoder.end()];
}

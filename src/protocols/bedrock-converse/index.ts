// Bedrock's Converse API as an upstream protocol (upstream side only: no client speaks it to the
// gateway). Every Bedrock model that is not Claude is reached through it (Amazon Nova, Meta Llama,
// Mistral, DeepSeek, gpt-oss…); Claude goes through InvokeModel with messages bodies instead.
//
// Interface (`bedrockConverse`):
// - `encodeRequest(request, {model, stream, maxOutputTokens?})` → `{path, body, dropped?}`: path
//   `/model/{modelId}/converse` or `/model/{modelId}/converse-stream` (the model id URL-encoded), to
//   be appended to `https://bedrock-runtime.{region}.amazonaws.com` and sent as JSON.
// - `decodeResponse(json)` → IR response, from a Converse answer.
// - `streamDecoder()`: decodes ConverseStream's frames, each given as the `SseEvent` that
//   src/providers/aws/event-stream.ts `toSseEvent` makes of it (named by its event or exception type).
// - `decodeError(status, json, headers)`: an HTTP error answer (x-amzn-errortype) as a GatewayError.
// - `countTokens`: `encodeCountRequest(request, {model})` → the CountTokens call
//   (`/model/{modelId}/count-tokens`), `decodeCount(json)` → the count.

import type { TokenCounting, UpstreamFace } from "../types.ts";
import { decodeCount, encodeCountRequest } from "./count-tokens.ts";
import { decodeResponse } from "./decode-response.ts";
import { streamDecoder } from "./decode-stream.ts";
import { encodeRequest } from "./encode-request.ts";
import { decodeError } from "./errors.ts";

/** Converse's tool names: `[a-zA-Z0-9_-]+`, at most 64 characters (ToolSpecification.name). */
const TOOL_NAMES = /^[a-zA-Z0-9_-]{1,64}$/;

export interface BedrockConverse extends UpstreamFace {
  name: "bedrock-converse";
  countTokens: Pick<TokenCounting, "encodeCountRequest" | "decodeCount">;
}

export const bedrockConverse: BedrockConverse = {
  name: "bedrock-converse",
  // "A conversation must start with a user message."
  needsTurn: true,
  toolNames: TOOL_NAMES,
  encodeRequest,
  decodeResponse,
  streamDecoder,
  decodeError,
  countTokens: { encodeCountRequest, decodeCount },
};

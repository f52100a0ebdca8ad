// The chat-completions protocol (`POST /v1/chat/completions`), both faces: the client face decodes
// what clients send and encodes answers and streams; the upstream face calls OpenAI-compatible
// providers.

import { OPENAI_FUNCTION_NAMES } from "../shared/openai-function-tool.ts";
import { refusedMember } from "../shared/refused-members.ts";
import type { Protocol } from "../types.ts";
import { decodeRequest } from "./decode-request.ts";
import { decodeResponse } from "./decode-response.ts";
import { streamDecoder } from "./decode-stream.ts";
import { embeddings } from "./embeddings.ts";
import { encodeRequest, MAX_STOP_SEQUENCES } from "./encode-request.ts";
import { encodeResponse } from "./encode-response.ts";
import { streamEncoder } from "./encode-stream.ts";
import { decodeError, encodeError } from "./errors.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { LIMITED_MEMBERS, OPTIONAL_MEMBERS } from "./refused-members.ts";

export const openaiChat: Protocol = {
  name: "openai-chat",
  decodeRequest,
  encodeResponse,
  streamEncoder,
  encodeError,
  finishReasonName: finishReasonToWire,
  promptField: "messages",
  encodeRequest,
  toolNames: OPENAI_FUNCTION_NAMES,
  maxStopSequences: MAX_STOP_SEQUENCES,
  decodeResponse,
  streamDecoder,
  decodeError,
  refusedMember,
  optionalMembers: OPTIONAL_MEMBERS,
  limitedMembers: LIMITED_MEMBERS,
  embeddings,
};

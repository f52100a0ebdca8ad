// The Responses API (`POST /v1/responses`), both faces: the client face decodes what clients send
// (Codex CLI, the Agents SDK, the openai SDK's `responses`) and encodes answers and the typed event
// stream; the upstream face calls providers configured with `protocol: openai-responses`.

import { OPENAI_FUNCTION_NAMES } from "../shared/openai-function-tool.ts";
import { refusedMember } from "../shared/refused-members.ts";
import type { Protocol } from "../types.ts";
import { tokenCounting } from "./count-tokens.ts";
import { decodeRequest } from "./decode-request.ts";
import { decodeResponse } from "./decode-response.ts";
import { streamDecoder } from "./decode-stream.ts";
import { encodeRequest } from "./encode-request.ts";
import { encodeResponse } from "./encode-response.ts";
import { streamEncoder } from "./encode-stream.ts";
import { decodeError, encodeError } from "./errors.ts";
import { finishReasonName } from "./map-finish-reason.ts";
import { OPTIONAL_MEMBERS } from "./refused-members.ts";

export const openaiResponses: Protocol = {
  name: "openai-responses",
  decodeRequest,
  encodeResponse,
  streamEncoder,
  encodeError,
  finishReasonName,
  promptField: "input",
  encodeRequest,
  toolNames: OPENAI_FUNCTION_NAMES,
  lacksStopSequences: true,
  decodeResponse,
  streamDecoder,
  decodeError,
  refusedMember,
  optionalMembers: OPTIONAL_MEMBERS,
  tokenCounting,
};

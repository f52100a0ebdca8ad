// The content-generation (Gemini) wire protocol, both faces. See each file for its mapping.

import type { Protocol } from "../types.ts";
import { checkModel } from "./check-model.ts";
import { tokenCounting } from "./count-tokens.ts";
import { decodeRequest } from "./decode-request.ts";
import { decodeResponse } from "./decode-response.ts";
import { streamDecoder } from "./decode-stream.ts";
import { embeddings } from "./embeddings.ts";
import { encodeRequest, MAX_STOP_SEQUENCES } from "./encode-request.ts";
import { encodeResponse } from "./encode-response.ts";
import { streamEncoder } from "./encode-stream.ts";
import { decodeError, encodeError } from "./errors.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { OPTIONAL_MEMBERS, refusedMember } from "./refused-members.ts";

/** Gemini's function names (dots and colons too, not a digit first): a translated request's others are fitted to them (src/ir/tool-names.ts). */
const TOOL_NAMES = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/;

export const gemini: Protocol = {
  name: "gemini",
  decodeRequest,
  checkModel,
  encodeResponse,
  streamEncoder,
  encodeError,
  finishReasonName: finishReasonToWire,
  promptField: "contents",
  encodeRequest,
  needsTurn: true,
  toolNames: TOOL_NAMES,
  maxStopSequences: MAX_STOP_SEQUENCES,
  decodeResponse,
  streamDecoder,
  decodeError,
  refusedMember,
  optionalMembers: OPTIONAL_MEMBERS,
  tokenCounting,
  embeddings,
};

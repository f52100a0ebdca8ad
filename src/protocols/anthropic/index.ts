// The messages wire protocol (Anthropic's), both faces: POST /v1/messages for clients, and
// POST {base}/v1/messages towards Anthropic-protocol upstreams.

import type { Protocol } from "../types.ts";
import { checkModel } from "./check-model.ts";
import { tokenCounting } from "./count-tokens.ts";
import { decodeRequest } from "./decode-request.ts";
import { decodeResponse } from "./decode-response.ts";
import { streamDecoder } from "./decode-stream.ts";
import { encodeRequest } from "./encode-request.ts";
import { encodeResponse } from "./encode-response.ts";
import { streamEncoder } from "./encode-stream.ts";
import { decodeError, encodeError } from "./errors.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { LIMITED_MEMBERS, OPTIONAL_MEMBERS, refusedMember } from "./refused-members.ts";

/** Anthropic's tool names: a translated request's others are fitted to them (src/ir/tool-names.ts). */
const TOOL_NAMES = /^[a-zA-Z0-9_-]{1,128}$/;

export const anthropic: Protocol = {
  name: "anthropic",
  decodeRequest,
  checkModel,
  encodeResponse,
  streamEncoder,
  encodeError,
  finishReasonName: finishReasonToWire,
  promptField: "messages",
  encodeRequest,
  needsTurn: true,
  toolNames: TOOL_NAMES,
  decodeResponse,
  streamDecoder,
  decodeError,
  refusedMember,
  optionalMembers: OPTIONAL_MEMBERS,
  limitedMembers: LIMITED_MEMBERS,
  tokenCounting,
};

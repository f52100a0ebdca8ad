// Token counting in the Responses API: `POST /v1/responses/input_tokens` takes the input side of a
// `responses.create` body (model, input, instructions, tools, tool_choice, reasoning, text…; the
// model is optional) and answers `{"object":"response.input_tokens","input_tokens":n}`. As an
// upstream, OpenAI's counter refuses parameters outside that list, so only those are sent.

import type { Request } from "../../ir/request.ts";
import { countedFields, countIn } from "../shared/token-count.ts";
import { expectObject } from "../shared/validate.ts";
import type { DecodeContext, TokenCounting } from "../types.ts";
import { decodeRequest } from "./decode-request.ts";
import { encodeRequest } from "./encode-request.ts";

/** The parameters of `responses.inputTokens.count` the gateway sends (it keeps no conversations). */
const COUNTED_PARAMETERS = [
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "reasoning",
  "text",
] as const;

export const tokenCounting: TokenCounting = {
  decodeCountRequest(body: unknown, ctx: DecodeContext): Request {
    const b = expectObject(body, "body");
    const named = b.model !== undefined && b.model !== null;
    // Counted, never streamed; a body without a model is counted for no model in particular.
    const request = decodeRequest({ ...b, model: named ? b.model : "-", stream: false }, ctx);
    if (!named) request.model = "";
    return request;
  },

  encodeCount(inputTokens: number): unknown {
    return { object: "response.input_tokens", input_tokens: inputTokens };
  },

  encodeCountRequest(request: Request, target: { model: string }) {
    const { body } = encodeRequest(request, { model: target.model, stream: false });
    return { path: "/responses/input_tokens", body: countedFields(body, COUNTED_PARAMETERS) };
  },

  decodeCount(body: unknown): number {
    return countIn(body, "input_tokens");
  },
};

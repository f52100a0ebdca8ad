// Token counting in the messages protocol: `POST /v1/messages/count_tokens` takes a messages request
// without `max_tokens` (model, messages, system, tools, tool_choice, thinking) and answers
// `{"input_tokens": n}`; as an upstream, Anthropic's counter takes the same and refuses other fields.

import type { Request } from "../../ir/request.ts";
import { countedFields, countIn } from "../shared/token-count.ts";
import { expectObject } from "../shared/validate.ts";
import type { DecodeContext, TokenCounting } from "../types.ts";
import { decodeRequest } from "./decode-request.ts";
import { encodeRequest } from "./encode-request.ts";

/** What the counter takes of a messages request: the prompt and what shapes it, no output settings. */
const COUNTED_FIELDS = ["model", "messages", "system", "tools", "tool_choice", "thinking"] as const;

export const tokenCounting: TokenCounting = {
  decodeCountRequest(body: unknown, ctx: DecodeContext): Request {
    const b = expectObject(body, "body");
    // The endpoint has no max_tokens: the request is decoded with no output limit to hold a thinking
    // budget under (what is counted is the prompt), and nothing is streamed.
    const request = decodeRequest({ ...b, max_tokens: Number.MAX_SAFE_INTEGER, stream: false }, ctx);
    delete request.maxOutputTokens;
    return request;
  },

  encodeCount(inputTokens: number): unknown {
    return { input_tokens: inputTokens };
  },

  encodeCountRequest(request: Request, target: { model: string }) {
    // No output limit either: a thinking budget is then sent as asked, not clamped under one.
    const unbounded = { ...request, maxOutputTokens: Number.MAX_SAFE_INTEGER };
    const { body } = encodeRequest(unbounded, { model: target.model, stream: false });
    return { path: "/v1/messages/count_tokens", body: countedFields(body, COUNTED_FIELDS) };
  },

  decodeCount(body: unknown): number {
    return countIn(body, "input_tokens");
  },
};

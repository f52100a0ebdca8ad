// Token counting in the content-generation protocol: `models/{m}:countTokens` takes `contents`, or a
// whole `generateContentRequest` (system instruction, tools and settings counted too; the two are
// mutually exclusive), and answers `{"totalTokens": n}`. As an upstream, the gateway sends the whole
// request form, naming the model as `models/{m}`, so that nothing of the prompt goes uncounted.

import { invalid } from "../../ir/errors.ts";
import type { Request } from "../../ir/request.ts";
import { countIn } from "../shared/token-count.ts";
import { expectObject } from "../shared/validate.ts";
import type { DecodeContext, TokenCounting } from "../types.ts";
import { decodeRequest } from "./decode-request.ts";
import { encodeRequest } from "./encode-request.ts";
import { field } from "./read-field.ts";

export const tokenCounting: TokenCounting = {
  decodeCountRequest(body: unknown, ctx: DecodeContext): Request {
    const b = expectObject(body, "body");
    const whole = field(b, "generateContentRequest");
    const contents = field(b, "contents");
    if (whole !== undefined && whole !== null) {
      if (contents !== undefined && contents !== null)
        throw invalid("generateContentRequest", "contents and generateContentRequest are mutually exclusive");
      return decodeRequest(expectObject(whole, "generateContentRequest"), { ...ctx, pathStream: false });
    }
    return decodeRequest({ contents }, { ...ctx, pathStream: false });
  },

  encodeCount(inputTokens: number): unknown {
    return { totalTokens: inputTokens };
  },

  encodeCountRequest(request: Request, target: { model: string }) {
    const { body } = encodeRequest(request, { model: target.model, stream: false });
    return {
      path: `/v1beta/models/${target.model}:countTokens`,
      body: { generateContentRequest: { model: `models/${target.model}`, ...(body as object) } },
    };
  },

  decodeCount(body: unknown): number {
    return countIn(body, "totalTokens");
  },
};

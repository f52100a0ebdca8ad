// Upstream `generateContent` answer → IR response: the same part reading as the stream decoder
// (candidate-reader.ts), collected into a whole response. A body holding `error` is thrown as the
// upstream's error.

import { collectResponse } from "../../ir/collect.ts";
import { GatewayError } from "../../ir/errors.ts";
import type { Response } from "../../ir/response.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import { isObject } from "../shared/validate.ts";
import { CandidateReader } from "./candidate-reader.ts";
import { decodeError } from "./errors.ts";

export function decodeResponse(body: unknown): Response {
  // `streamGenerateContent` without `alt=sse` answers a JSON array of chunks; read it in order.
  const chunks = Array.isArray(body) ? body : [body];
  const reader = new CandidateReader();
  const events: StreamEvent[] = [];
  for (const chunk of chunks) {
    if (!isObject(chunk))
      throw new GatewayError("api_error", "upstream answered with a body that is not an object", {
        status: 502,
      });
    if (isObject(chunk.error)) {
      const code = typeof chunk.error.code === "number" && chunk.error.code >= 400 ? chunk.error.code : 500;
      throw decodeError(code, chunk, {});
    }
    events.push(...reader.read(chunk));
  }
  events.push(...reader.complete());
  return collectResponse(events);
}

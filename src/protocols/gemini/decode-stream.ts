// Upstream `streamGenerateContent?alt=sse` → IR events, chunk by chunk as they arrive (the part
// handling lives in candidate-reader.ts). A chunk holding `error` becomes an IR error event; a stream
// that ends without a finishReason is an error too (it was cut short).

import { GatewayError, upstreamStreamCut } from "../../ir/errors.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import { frameJson } from "../shared/sse.ts";
import { isObject } from "../shared/validate.ts";
import type { SseEvent, StreamDecoder } from "../types.ts";
import { CandidateReader } from "./candidate-reader.ts";
import { decodeError } from "./errors.ts";

class GeminiStreamDecoder implements StreamDecoder {
  private readonly reader = new CandidateReader();
  private failed = false;

  decode(event: SseEvent): StreamEvent[] {
    if (this.failed) return [];
    let chunk = frameJson(event.data);
    if (chunk instanceof GatewayError) return this.fail(chunk);
    if (Array.isArray(chunk)) chunk = chunk[0];
    if (!isObject(chunk)) return [];
    if (isObject(chunk.error)) {
      const code = typeof chunk.error.code === "number" && chunk.error.code >= 400 ? chunk.error.code : 500;
      return this.fail(decodeError(code, chunk, {}));
    }
    return this.reader.read(chunk);
  }

  end(): StreamEvent[] {
    if (this.failed || this.reader.finished) return [];
    return this.fail(upstreamStreamCut("a finishReason"));
  }

  private fail(error: GatewayError): StreamEvent[] {
    this.failed = true;
    return [...this.reader.closeAll(), { type: "error", error }];
  }
}

export function streamDecoder(): StreamDecoder {
  return new GeminiStreamDecoder();
}

// Content-generation client to a content-generation upstream: the model is in the path, so the body
// goes on untouched; answers come back with the generation id and the catalog model.

import { identityEdits, withIdentity } from "../shared/identity.ts";
import { editJson, parseObject } from "../shared/json-edit.ts";
import type { EncodeContext, Relay, RelayMemo, SseEvent } from "../types.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";
import { OutputUnits } from "./output-units.ts";

export const geminiRelay: Relay = {
  request(raw, _request, target) {
    const method = target.stream ? "streamGenerateContent?alt=sse" : "generateContent";
    return { path: `/v1beta/models/${target.model}:${method}`, body: raw };
  },

  response(text, ctx) {
    return editJson(text, identityEdits(ctx, "responseId", "modelVersion"));
  },

  tap(text) {
    const body = parseObject(text);
    const candidate = Array.isArray(body.candidates) ? body.candidates[0] : undefined;
    const parts: unknown[] = candidate?.content?.parts ?? [];
    const calls = parts.some((p) => typeof p === "object" && p !== null && "functionCall" in p);
    const units = new OutputUnits();
    units.read(body);
    return {
      usage: units.apply(usageFromWire(body.usageMetadata)),
      finishReason: finishReasonFromWire(candidate?.finishReason ?? "STOP", calls),
    };
  },

  streamEvent(event: SseEvent, ctx: EncodeContext, memo: RelayMemo) {
    const end = event.crlf ? "\r\n\r\n" : "\n\n";
    return `data: ${withIdentity(event.data, ctx, memo, "responseId", "modelVersion")}${end}`;
  },
};

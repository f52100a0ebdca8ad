// IR → client: a whole `response` object, shaped as the openai SDK types `Response`. Text becomes a
// message item, thinking a reasoning item whose `encrypted_content` carries the signature
// (reasoning-item.ts), tool calls function (or custom) tool calls; usage always has every detail.

import type { Response } from "../../ir/response.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { outputItems, responseObject } from "./output-items.ts";
import type { WireResponse } from "./wire-types.ts";

export function encodeResponse(response: Response, ctx: EncodeContext): WireResponse {
  return responseObject(ctx, {
    ...finishReasonToWire(response.finishReason),
    output: outputItems(response.content, ctx),
    usage: usageToWire(response.usage),
  });
}

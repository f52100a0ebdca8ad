// IR → client: a whole `response` object, shaped as the openai SDK types `Response`. Text becomes a
// message item, thinking a reasoning item whose `encrypted_content` carries the signature
// (reasoning-item.ts), tool calls function (or custom) tool calls; usage always has every detail.

import type { Response } from "../../ir/response.ts";
import { toOpenAILogprobs } from "../shared/openai-logprobs.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { completedAt, outputItems, responseObject } from "./output-items.ts";
import type { WireResponse } from "./wire-types.ts";

export function encodeResponse(response: Response, ctx: EncodeContext): WireResponse {
  const output = outputItems(response.content, ctx);
  if (ctx.request.logprobs && response.logprobs) {
    // The IR has one list for the whole text: it goes on the answer's first text part.
    const text = output.find((item) => item.type === "message")?.content[0];
    text?.logprobs.push(...toOpenAILogprobs(response.logprobs));
  }
  const ending = finishReasonToWire(response.finishReason);
  return responseObject(ctx, {
    ...ending,
    completed_at: completedAt(ending.status),
    output,
    usage: usageToWire(response.usage),
  });
}

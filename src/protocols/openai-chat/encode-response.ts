// IR → client: a whole `chat.completion` object, shaped as the openai SDK types `ChatCompletion`.
// Thinking goes out as `reasoning` (joined text) and `reasoning_details` (with signatures) unless the
// client asked for `reasoning.exclude`; tool-call ids carry a Gemini signature when there is one; a
// call of a tool the request declared custom is a custom call (`{type: "custom", custom: {name, input}}`).

import type { Request } from "../../ir/request.ts";
import type { OutputBlock, Response } from "../../ir/response.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import { customInput, isCustomTool } from "../shared/custom-tools.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { reasoningDetailsFromBlocks } from "./reasoning-details.ts";
import type { ReasoningDetail, WireFinishReason, WireToolCall, WireUsage } from "./wire-types.ts";

export interface ChatCompletionMessage {
  role: "assistant";
  content: string | null;
  refusal: null;
  tool_calls?: WireToolCall[];
  reasoning?: string;
  reasoning_details?: ReasoningDetail[];
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<{
    index: 0;
    message: ChatCompletionMessage;
    logprobs: null;
    finish_reason: WireFinishReason;
  }>;
  usage: WireUsage;
}

export function encodeResponse(response: Response, ctx: EncodeContext): ChatCompletion {
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    choices: [
      {
        index: 0,
        message: encodeMessage(response.content, ctx.request),
        logprobs: null,
        finish_reason: finishReasonToWire(response.finishReason),
      },
    ],
    usage: usageToWire(response.usage),
  };
}

function encodeMessage(blocks: OutputBlock[], request: Request): ChatCompletionMessage {
  const excludeReasoning = request.reasoning?.exclude === true;
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const message: ChatCompletionMessage = { role: "assistant", content: text || null, refusal: null };
  const calls = blocks.flatMap((b) => (b.type === "tool_call" ? [b] : []));
  if (calls.length > 0) {
    message.tool_calls = calls.map((call): WireToolCall => {
      const id = packToolCallId(call.id, call.signature);
      if (isCustomTool(request.tools, call.name))
        return { id, type: "custom", custom: { name: call.name, input: customInput(call.arguments) } };
      // A call without arguments is an empty object, never "" (docs/architecture.md §10: clients JSON.parse
      // it).
      return { id, type: "function", function: { name: call.name, arguments: call.arguments || "{}" } };
    });
  }
  const reasoning = blocks.flatMap((b) =>
    b.type === "thinking" || b.type === "redacted_thinking" ? [b] : [],
  );
  if (reasoning.length > 0 && !excludeReasoning) {
    message.reasoning = reasoning.flatMap((b) => (b.type === "thinking" ? [b.text] : [])).join("");
    message.reasoning_details = reasoningDetailsFromBlocks(reasoning);
  }
  return message;
}

// Why generation stopped, in both directions. The Responses API has no finish reason: a response's
// `status` (completed, incomplete, failed) and `incomplete_details.reason` (max_output_tokens,
// content_filter) say it, and tool calls are items of the output.

import type { FinishReason } from "../../ir/response.ts";
import { isObject } from "../shared/validate.ts";
import type { WireResponse } from "./wire-types.ts";

type Ending = Pick<WireResponse, "status" | "incomplete_details">;

/** IR → the status a Responses client sees. */
export function finishReasonToWire(reason: FinishReason): Ending {
  switch (reason) {
    case "length":
      return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
    case "content_filter":
      return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
    // A refusal is what the model said (its text is in the output); a stop sequence, tool calls, a
    // paused server tool and anything else end the response as completed.
    default:
      return { status: "completed", incomplete_details: null };
  }
}

/**
 * The reason in this protocol's words: the `incomplete_details.reason` of an incomplete response
 * (`max_output_tokens`, `content_filter`), else its `status` (`completed`).
 */
export function finishReasonName(reason: FinishReason): string {
  const ending = finishReasonToWire(reason);
  return ending.incomplete_details?.reason ?? ending.status;
}

/** An upstream response's status → IR. `calledTools`: the output holds a function or custom tool call. */
export function finishReasonFromWire(
  status: unknown,
  incompleteDetails: unknown,
  calledTools: boolean,
): FinishReason {
  if (status === "incomplete") {
    const reason = isObject(incompleteDetails) ? incompleteDetails.reason : undefined;
    if (reason === "max_output_tokens") return "length";
    if (reason === "content_filter") return "content_filter";
    return "other";
  }
  if (status === "failed" || status === "cancelled") return "error";
  return calledTools ? "tool_calls" : "stop";
}

/** Output item types that are calls the client runs (and so end the turn with tool_calls). */
export function isClientToolCall(type: unknown): boolean {
  return type === "function_call" || type === "custom_tool_call";
}

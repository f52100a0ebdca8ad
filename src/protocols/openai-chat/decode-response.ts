// Upstream → IR: a whole chat completion. Reasoning comes as `reasoning_details` (OpenRouter-style,
// with signatures), `reasoning` or `reasoning_content` (DeepSeek-style); tool calls may carry a Gemini
// signature in `extra_content`; a custom tool's call (`type: "custom"`) becomes arguments
// `{"input": …}`; usage keeps the chat semantics the IR shares.

import { GatewayError } from "../../ir/errors.ts";
import type { ThinkingBlock, ToolCallBlock } from "../../ir/request.ts";
import type { OutputBlock, Response } from "../../ir/response.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import { customArguments } from "../shared/custom-tools.ts";
import { isObject } from "../shared/validate.ts";
import { decodeErrorObject } from "./errors.ts";
import { finishReasonFromWire, matchedStop } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";
import { applyCallSignatures, readReasoningDetails } from "./reasoning-details.ts";
import { geminiThoughtSignature } from "./thought-signature.ts";

type Json = Record<string, unknown>;

export function decodeResponse(body: unknown): Response {
  if (!isObject(body)) throw malformed("the body is not a JSON object");
  // Some OpenAI-compatible servers answer 200 with an error object.
  if (isObject(body.error)) throw decodeErrorObject(body.error);
  const choice = Array.isArray(body.choices) ? body.choices.find(isObject) : undefined;
  if (!choice) throw malformed("the completion has no choices");
  const message = isObject(choice.message) ? choice.message : {};
  const calls = Array.isArray(message.tool_calls)
    ? message.tool_calls.filter(isObject).map(toolCallBlock)
    : [];
  const content: OutputBlock[] = [...reasoningBlocks(message, calls)];
  const text = textOf(message.content);
  if (text) content.push({ type: "text", text });
  const refusal = typeof message.refusal === "string" ? message.refusal : "";
  if (refusal) content.push({ type: "text", text: refusal });
  content.push(...calls);
  const response: Response = {
    id: typeof body.id === "string" ? body.id : "",
    model: typeof body.model === "string" ? body.model : "",
    content,
    finishReason: refusal ? "refusal" : finishReasonFromWire(choice.finish_reason, matchedStop(choice)),
    usage: usageFromWire(body.usage),
  };
  if (response.finishReason === "stop_sequence") response.stopSequence = matchedStop(choice);
  return response;
}

/**
 * `reasoning_details` when present (they carry signatures, some of them the calls'), else the plain
 * reasoning text.
 */
function reasoningBlocks(message: Json, calls: ToolCallBlock[]): OutputBlock[] {
  const { blocks, callSignatures } = readReasoningDetails(message.reasoning_details, {
    callIds: new Set(calls.map((c) => c.id)),
  });
  applyCallSignatures(calls, callSignatures);
  if (blocks.length > 0) return blocks;
  const text = [message.reasoning, message.reasoning_content].find((v) => typeof v === "string" && v);
  return typeof text === "string" ? [{ type: "thinking", text } satisfies ThinkingBlock] : [];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  // A few servers answer with an array of text parts.
  if (Array.isArray(content))
    return content.map((p) => (isObject(p) && typeof p.text === "string" ? p.text : "")).join("");
  return "";
}

function toolCallBlock(call: Json): ToolCallBlock {
  const id = typeof call.id === "string" && call.id ? call.id : newToolCallId();
  const custom = customCall(call);
  if (custom) return { type: "tool_call", id, name: custom.name, arguments: customArguments(custom.input) };
  const fn = isObject(call.function) ? call.function : {};
  const block: ToolCallBlock = {
    type: "tool_call",
    id,
    name: typeof fn.name === "string" ? fn.name : "",
    arguments: argumentsText(fn.arguments),
  };
  const signature = geminiThoughtSignature(call);
  if (signature) block.signature = signature;
  return block;
}

/**
 * A custom tool's call, `{type: "custom", custom: {name, input}}` (whole, or a stream's piece: name
 * or input may be missing). Only a `custom` object that carries one of them counts: some
 * OpenAI-compatible servers echo an empty `custom: {}` on function calls.
 */
export function customCall(call: Json): { name: string; input: string } | undefined {
  const custom = call.custom;
  if (!isObject(custom) || (typeof custom.name !== "string" && typeof custom.input !== "string"))
    return undefined;
  return {
    name: typeof custom.name === "string" ? custom.name : "",
    input: typeof custom.input === "string" ? custom.input : "",
  };
}

/** Arguments are JSON text; a few servers send the object itself. */
export function argumentsText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

function malformed(why: string): GatewayError {
  return new GatewayError("api_error", `upstream sent an invalid chat completion: ${why}`, { status: 502 });
}

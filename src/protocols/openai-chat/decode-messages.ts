// Client → IR: the `messages` array. System and developer messages become the IR system text
// wherever they appear; tool messages become tool_result blocks of a user turn (consecutive tool
// messages share one); tool-call ids that come back are unpacked so a Gemini signature that rode
// inside the id is restored on the IR tool call (src/ir/tool-call-id.ts).

import { invalid } from "../../ir/errors.ts";
import type { ContentBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock } from "../../ir/request.ts";
import { unpackToolCallId } from "../../ir/tool-call-id.ts";
import { customArguments } from "../shared/custom-tools.ts";
import { expectArray, expectObject, expectString, isObject, optionalString } from "../shared/validate.ts";
import { decodeContent, decodeTextContent, decodeUserContent } from "./decode-user-content.ts";
import { applyCallSignatures, readReasoningDetails } from "./reasoning-details.ts";
import { geminiThoughtSignature } from "./thought-signature.ts";

export interface Conversation {
  system: TextBlock[];
  messages: Message[];
}

type Json = Record<string, unknown>;

export function decodeMessages(value: unknown): Conversation {
  const list = expectArray(value, "messages");
  if (list.length === 0) throw invalid("messages", "must contain at least one message");
  const conversation: Conversation = { system: [], messages: [] };
  // Tool messages carry only the call id; Gemini upstreams also need the function name.
  const toolNames = new Map<string, string>();
  let previousWasTool = false;
  list.forEach((item, i) => {
    const at = `messages[${i}]`;
    const message = expectObject(item, at);
    const role = message.role;
    if (role === "tool") {
      const result = decodeToolMessage(message, at, toolNames);
      const last = conversation.messages.at(-1);
      if (previousWasTool && last) last.content.push(result);
      else conversation.messages.push({ role: "user", content: [result] });
      previousWasTool = true;
      return;
    }
    previousWasTool = false;
    if (role === "system" || role === "developer") {
      conversation.system.push(...decodeTextContent(message.content, `${at}.content`));
    } else if (role === "user") {
      pushTurn(conversation.messages, "user", decodeUserContent(message.content, `${at}.content`));
    } else if (role === "assistant") {
      pushTurn(conversation.messages, "assistant", decodeAssistantMessage(message, at, toolNames));
    } else if (role === "function") {
      throw invalid(`${at}.role`, "function messages are not supported; use tool messages");
    } else {
      throw invalid(`${at}.role`, "must be one of system, developer, user, assistant, tool");
    }
  });
  return conversation;
}

// A turn with nothing in it (empty string content) is dropped: upstreams reject empty blocks
// (docs/architecture.md §10).
function pushTurn(messages: Message[], role: Message["role"], content: ContentBlock[]): void {
  if (content.length > 0) messages.push({ role, content });
}

function decodeAssistantMessage(message: Json, at: string, toolNames: Map<string, string>): ContentBlock[] {
  if (message.function_call !== undefined && message.function_call !== null)
    throw invalid(`${at}.function_call`, "is not supported; use tool_calls");
  const hasToolCalls = message.tool_calls !== undefined && message.tool_calls !== null;
  if (message.content === undefined && !hasToolCalls)
    throw invalid(`${at}.content`, "is required when tool_calls is absent");
  const calls = hasToolCalls
    ? expectArray(message.tool_calls, `${at}.tool_calls`).map((call, k) =>
        decodeToolCall(call, `${at}.tool_calls[${k}]`),
      )
    : [];
  for (const call of calls) toolNames.set(call.id, call.name);
  // Reasoning first: that is where the next turn needs it (thinking precedes the answer and calls).
  const blocks: ContentBlock[] = decodeReasoning(message, at, calls);
  const text = decodeAssistantContent(message.content, `${at}.content`);
  const refusal = optionalString(message.refusal, `${at}.refusal`);
  if (text.length === 0 && refusal) text.push({ type: "text", text: refusal });
  blocks.push(...text, ...calls);
  return blocks;
}

function decodeReasoning(message: Json, at: string, calls: ToolCallBlock[]): ContentBlock[] {
  const { blocks, callSignatures } = readReasoningDetails(message.reasoning_details, {
    param: `${at}.reasoning_details`,
    callIds: new Set(calls.map((c) => c.id)),
  });
  applyCallSignatures(calls, callSignatures);
  if (blocks.length > 0) return blocks;
  // Plain reasoning text (no signature); DeepSeek-style clients call it `reasoning_content`.
  const name =
    message.reasoning !== undefined && message.reasoning !== null ? "reasoning" : "reasoning_content";
  const text = optionalString(message[name], `${at}.${name}`);
  return text ? [{ type: "thinking", text }] : [];
}

function decodeAssistantContent(content: unknown, param: string): TextBlock[] {
  if (content === undefined || content === null) return [];
  return decodeContent(content, param, "a string, an array of parts or null", (part, at) => {
    let text: string;
    if (part.type === "text") text = expectString(part.text, `${at}.text`);
    else if (part.type === "refusal") text = expectString(part.refusal, `${at}.refusal`);
    else throw invalid(`${at}.type`, "must be 'text' or 'refusal'");
    return text ? { type: "text", text } : undefined;
  });
}

function decodeToolCall(value: unknown, at: string): ToolCallBlock {
  const call = expectObject(value, at);
  if (call.type !== undefined && call.type !== "function" && call.type !== "custom")
    throw invalid(`${at}.type`, "must be 'function' or 'custom'");
  const packedId = expectString(call.id, `${at}.id`);
  if (!packedId) throw invalid(`${at}.id`, "must not be empty");
  const { id, signature } = unpackToolCallId(packedId);
  if (call.type === "custom") {
    // A custom tool's free-text input: in the IR, the arguments of the function it is elsewhere.
    const custom = expectObject(call.custom, `${at}.custom`);
    const name = expectString(custom.name, `${at}.custom.name`);
    const input = expectString(custom.input, `${at}.custom.input`);
    const block: ToolCallBlock = { type: "tool_call", id, name, arguments: customArguments(input) };
    if (signature !== undefined) block.signature = signature;
    return block;
  }
  const fn = expectObject(call.function, `${at}.function`);
  const name = expectString(fn.name, `${at}.function.name`);
  let args: string;
  if (fn.arguments === undefined || fn.arguments === null) args = "";
  else if (typeof fn.arguments === "string") args = fn.arguments;
  // Some clients replay the parsed object; its JSON text is what the model produced.
  else if (isObject(fn.arguments)) args = JSON.stringify(fn.arguments);
  else throw invalid(`${at}.function.arguments`, "must be a string");
  const block: ToolCallBlock = { type: "tool_call", id, name, arguments: args };
  const carried = signature ?? geminiThoughtSignature(call);
  if (carried !== undefined) block.signature = carried;
  return block;
}

function decodeToolMessage(message: Json, at: string, toolNames: Map<string, string>): ToolResultBlock {
  const packedId = expectString(message.tool_call_id, `${at}.tool_call_id`);
  const { id } = unpackToolCallId(packedId);
  const result: ToolResultBlock = {
    type: "tool_result",
    toolCallId: id,
    content: decodeTextContent(message.content, `${at}.content`),
  };
  const name = optionalString(message.name, `${at}.name`) ?? toolNames.get(id);
  if (name) result.name = name;
  return result;
}

// POST /v1/messages body (and headers) → IR request. Headers are checked first; every wrong type or
// out-of-range value is a 400 naming the field.

import { invalid } from "../../ir/errors.ts";
import type { ContentBlock, Message, ReasoningSettings, Request, TextBlock } from "../../ir/request.ts";
import {
  expectArray,
  expectNumber,
  expectObject,
  expectString,
  isObject,
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalString,
  setIfDefined,
} from "../shared/validate.ts";
import { withWebSearch } from "../shared/web-search.ts";
import type { DecodeContext } from "../types.ts";
import { decodeContent, decodeText, referencedToolNames } from "./decode-content.ts";
import { decodeOutputConfig, decodeThinking } from "./decode-thinking.ts";
import { decodeToolChoice, decodeTools, decodeWebSearchTool } from "./decode-tools.ts";
import { checkMessagesHeaders, INTERLEAVED_THINKING_BETA, messagesBetas } from "./headers.ts";

const MAX_MESSAGES = 100_000;

/** Body fields this decoder translates; any other field is accepted, dropped and named in `ignored`. */
const TRANSLATED = new Set([
  "model",
  "max_tokens",
  "messages",
  "system",
  "temperature",
  "top_p",
  "top_k",
  "stop_sequences",
  "stream",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "output_format",
]);

export function decodeRequest(body: unknown, ctx: DecodeContext): Request {
  checkMessagesHeaders(ctx.headers, ctx.anthropicVersions);
  const b = expectObject(body, "body");
  const ignored: string[] = [];

  const model = expectString(b.model, "model");
  if (model.length === 0) throw invalid("model", "must not be empty");
  if (b.max_tokens === undefined || b.max_tokens === null) throw invalid("max_tokens", "is required");
  const maxTokens = expectNumber(b.max_tokens, "max_tokens", { integer: true, min: 1 });

  const system = decodeSystem(b.system);
  const messages = decodeMessages(b.messages, system, ignored);

  const request: Request = {
    model,
    system,
    messages,
    tools: decodeTools(b.tools, ignored, loadedTools(b)),
    ...withWebSearch(decodeWebSearchTool(b.tools)),
    maxOutputTokens: maxTokens,
    stopSequences: decodeStopSequences(b.stop_sequences),
    stream: optionalBoolean(b.stream, "stream") ?? false,
    // Messages streams always carry usage (message_start / message_delta).
    streamUsage: true,
    ignored,
  };
  setIfDefined(request, "temperature", optionalNumber(b.temperature, "temperature", { min: 0, max: 1 }));
  setIfDefined(request, "topP", optionalNumber(b.top_p, "top_p", { min: 0, max: 1 }));
  setIfDefined(request, "topK", optionalNumber(b.top_k, "top_k", { min: 0, integer: true }));

  const { toolChoice, parallelToolCalls } = decodeToolChoice(b.tool_choice);
  if (toolChoice) request.toolChoice = toolChoice;
  if (parallelToolCalls !== undefined) request.parallelToolCalls = parallelToolCalls;

  const interleaved = messagesBetas(ctx.headers).includes(INTERLEAVED_THINKING_BETA);
  const reasoning: ReasoningSettings | undefined = decodeThinking(
    b.thinking,
    maxTokens,
    ignored,
    interleaved,
  );
  const output = decodeOutputConfig(b.output_config, b.output_format, ignored);
  if (output.format) request.responseFormat = output.format;
  if (reasoning || output.effort) {
    request.reasoning = { ...reasoning };
    if (output.effort) request.reasoning.effort = output.effort;
  }

  // `metadata` is unsupported on this face (docs/architecture.md §8): checked, then dropped and named, never
  // forwarded to another protocol (Claude Code's user_id carries account and session ids). A relay to a
  // messages upstream still passes it on byte for byte.
  if (b.metadata !== undefined && b.metadata !== null) {
    const metadata = expectObject(b.metadata, "metadata");
    optionalString(metadata.user_id, "metadata.user_id");
  }
  for (const key of Object.keys(b)) if (!TRANSLATED.has(key)) ignored.push(key);
  return request;
}

/**
 * The deferred tools the model may see (docs/translation.md §2c): those a tool search has loaded,
 * and one `tool_choice` names (the model is made to call it, so it must be offered).
 */
function loadedTools(b: Json): Set<string> {
  const names = referencedToolNames(b.messages);
  const choice = b.tool_choice;
  if (isObject(choice) && choice.type === "tool" && typeof choice.name === "string") names.add(choice.name);
  return names;
}

function decodeSystem(value: unknown): TextBlock[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return value.length > 0 ? [{ type: "text", text: value }] : [];
  return expectArray(value, "system").map((item, i) => {
    const block = expectObject(item, `system[${i}]`);
    if (block.type !== "text") throw invalid(`system[${i}].type`, 'must be "text"');
    return decodeText(block, `system[${i}]`);
  });
}

/**
 * Messages in order; `{"role":"system"}` entries (Claude Code sends them) are appended to the system
 * blocks, and consecutive messages of the same role are merged (docs/architecture.md §8).
 */
function decodeMessages(value: unknown, system: TextBlock[], ignored: string[]): Message[] {
  if (value === undefined || value === null) throw invalid("messages", "is required");
  const items = expectArray(value, "messages");
  if (items.length === 0) throw invalid("messages", "must contain at least one message");
  if (items.length > MAX_MESSAGES) throw invalid("messages", `must contain at most ${MAX_MESSAGES} messages`);
  const messages: Message[] = [];
  items.forEach((item, i) => {
    const param = `messages[${i}]`;
    const message = expectObject(item, param);
    const role = message.role;
    if (role === "system") {
      system.push(...decodeSystemMessage(message, param));
      return;
    }
    if (role !== "user" && role !== "assistant")
      throw invalid(`${param}.role`, 'must be "user" or "assistant"');
    if (message.content === undefined || message.content === null)
      throw invalid(`${param}.content`, "is required");
    const content: ContentBlock[] = decodeContent(message.content, role, `${param}.content`, ignored);
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...content);
    else messages.push({ role, content });
  });
  return messages;
}

function decodeSystemMessage(message: Json, param: string): TextBlock[] {
  const content = message.content;
  if (typeof content === "string") return content.length > 0 ? [{ type: "text", text: content }] : [];
  return expectArray(content, `${param}.content`).map((item, j) => {
    const block = expectObject(item, `${param}.content[${j}]`);
    if (block.type !== "text")
      throw invalid(`${param}.content[${j}].type`, 'must be "text" in a system message');
    return decodeText(block, `${param}.content[${j}]`);
  });
}

function decodeStopSequences(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  return expectArray(value, "stop_sequences").map((s, i) => expectString(s, `stop_sequences[${i}]`));
}

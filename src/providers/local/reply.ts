// The local demo models' answer to a request: deterministic, with real token counts, tool calls when
// tools are offered and chosen, thinking when reasoning is asked of a reasoning model, structured
// output, stop sequences and the output-token limit honoured, and a prompt cache that notices a
// repeated prefix marked with cache_control.

import { invalid } from "../../ir/errors.ts";
import type { ContentBlock, Request, ToolDefinition } from "../../ir/request.ts";
import type { FinishReason, OutputBlock } from "../../ir/response.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import { emptyUsage, type Usage } from "../../ir/usage.ts";
import { PromptCache } from "./prompt-cache.ts";
import { sampleFromSchema } from "./sample-json.ts";
import { signThinking, verifyThinking } from "./signature.ts";
import { tokenCount, truncateToTokens } from "./tokens.ts";

export interface LocalReply {
  blocks: OutputBlock[];
  finishReason: FinishReason;
  stopSequence?: string;
  usage: Usage;
}

/** Tokens an image, audio clip or document counts for (a flat figure, like a low-detail image). */
const MEDIA_TOKENS = 85;
const DEFAULT_MAX_OUTPUT = 4096;

const cache = new PromptCache();

export function localReply(
  request: Request,
  opts: { reasoning: boolean; maxOutputTokens?: number },
): LocalReply {
  checkThinkingSignatures(request);
  const usage = emptyUsage();
  usage.promptTokens = promptTokens(request);
  applyPromptCache(request, usage);

  const blocks: OutputBlock[] = [];
  let budget = request.maxOutputTokens ?? opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT;
  const userText = lastUserText(request);

  if (opts.reasoning && wantsReasoning(request)) {
    const thinking = `The user wrote ${wordCount(userText)} words. ${planFor(request)}`;
    const tokens = tokenCount(thinking);
    usage.reasoningTokens = Math.min(tokens, budget);
    budget -= usage.reasoningTokens;
    if (!request.reasoning?.exclude)
      blocks.push({ type: "thinking", text: thinking, signature: signThinking(thinking) });
  }

  const calls = chooseToolCalls(request, userText);
  if (calls.length > 0) {
    for (const call of calls) blocks.push(call);
    const argTokens = calls.reduce((n, c) => n + tokenCount(c.name) + tokenCount(c.arguments), 0);
    usage.completionTokens = usage.reasoningTokens + argTokens;
    return { blocks, finishReason: "tool_calls", usage };
  }

  let text = answerText(request, userText);
  let finishReason: FinishReason = "stop";
  let stopSequence: string | undefined;
  const stop = earliestStop(text, request.stopSequences);
  if (stop) {
    text = text.slice(0, stop.at);
    finishReason = "stop_sequence";
    stopSequence = stop.sequence;
  }
  if (tokenCount(text) > budget) {
    text = truncateToTokens(text, budget);
    finishReason = "length";
    stopSequence = undefined;
  }
  if (text.length > 0) blocks.push({ type: "text", text });
  usage.completionTokens = usage.reasoningTokens + tokenCount(text);
  return { blocks, finishReason, stopSequence, usage };
}

function wantsReasoning(request: Request): boolean {
  const r = request.reasoning;
  if (!r || r.enabled === false || r.effort === "none") return false;
  return r.enabled === true || r.adaptive === true || r.effort !== undefined || (r.budgetTokens ?? 0) !== 0;
}

function planFor(request: Request): string {
  const last = request.messages.at(-1);
  if (last?.content.some((b) => b.type === "tool_result"))
    return "I have the tool results and will summarise them.";
  if (request.tools.length > 0 && request.toolChoice?.type !== "none")
    return "I will see whether a tool applies.";
  return "I will answer directly.";
}

function answerText(request: Request, userText: string): string {
  const last = request.messages.at(-1);
  const results = last?.content.filter((b) => b.type === "tool_result") ?? [];
  if (results.length > 0) {
    return results
      .map(
        (r) =>
          `Tool ${r.name ?? r.toolCallId} returned: ${r.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join(" ")}`,
      )
      .join("\n");
  }
  const format = request.responseFormat;
  if (format?.type === "json_schema") return JSON.stringify(sampleFromSchema(format.schema, userText));
  if (format?.type === "json_object") return JSON.stringify({ reply: userText });
  const media =
    last?.content.filter((b) => b.type === "image" || b.type === "audio" || b.type === "document") ?? [];
  const seen =
    media.length > 0
      ? ` (with ${media.length} attachment${media.length > 1 ? "s" : ""}: ${media.map((m) => m.type).join(", ")})`
      : "";
  return `You said: ${userText}${seen}`;
}

/**
 * Tools are called when offered and chosen: a named tool_choice calls that tool; `required` calls the
 * tools the user mentions by name, else the first; `auto` calls the tools the user mentions by name.
 * More than one only when parallel calls are allowed. Never on a turn that already carries results.
 */
function chooseToolCalls(request: Request, userText: string): Array<OutputBlock & { type: "tool_call" }> {
  const choice = request.toolChoice ?? { type: "auto" };
  if (request.tools.length === 0 || choice.type === "none") return [];
  if (request.messages.at(-1)?.content.some((b) => b.type === "tool_result")) return [];
  let chosen: ToolDefinition[];
  if (choice.type === "tool") chosen = request.tools.filter((t) => t.name === choice.name).slice(0, 1);
  else {
    const lower = userText.toLowerCase();
    chosen = request.tools.filter((t) => lower.includes(t.name.toLowerCase()));
    if (chosen.length === 0 && choice.type === "required") chosen = request.tools.slice(0, 1);
  }
  if (request.parallelToolCalls === false) chosen = chosen.slice(0, 1);
  return chosen.map((tool) => ({
    type: "tool_call",
    id: newToolCallId("call_"),
    name: tool.name,
    arguments: JSON.stringify(
      sampleFromSchema(tool.parameters, quotedPhrase(request) ?? tool.name, { requiredOnly: true }),
    ),
  }));
}

/**
 * The first quoted phrase of the latest user text that has one. Latest, because agents put their
 * own context (Codex's `<environment_context>`, with quoted attributes) in earlier blocks of the
 * same turn, before what the user typed.
 */
function quotedPhrase(request: Request): string | undefined {
  const last = request.messages.findLast(
    (m) => m.role === "user" && m.content.some((b) => b.type === "text" && b.text.trim()),
  );
  const texts = last?.content.filter((b) => b.type === "text") ?? [];
  for (let i = texts.length - 1; i >= 0; i--) {
    const phrase = /"([^"]+)"/.exec(texts[i].text)?.[1];
    if (phrase !== undefined) return phrase;
  }
  return undefined;
}

function earliestStop(text: string, sequences: string[]): { at: number; sequence: string } | undefined {
  let best: { at: number; sequence: string } | undefined;
  for (const sequence of sequences) {
    const at = sequence ? text.indexOf(sequence) : -1;
    if (at >= 0 && (!best || at < best.at)) best = { at, sequence };
  }
  return best;
}

function lastUserText(request: Request): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i];
    if (m.role !== "user") continue;
    const text = m.content
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join(" ")
      .trim();
    if (text) return text;
  }
  return "";
}

function wordCount(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "tool_call":
      return `${block.name} ${block.arguments}`;
    case "tool_result":
      return block.content.map(blockText).join(" ");
    case "thinking":
      return block.text;
    case "redacted_thinking":
      return "";
    case "document":
      return block.source.kind === "text" ? block.source.text : "";
    default:
      return "";
  }
}

function blockTokens(block: ContentBlock): number {
  if (block.type === "image" || block.type === "audio") return MEDIA_TOKENS;
  if (block.type === "document" && block.source.kind !== "text") return MEDIA_TOKENS;
  return tokenCount(blockText(block));
}

function promptTokens(request: Request): number {
  let n = 0;
  for (const s of request.system) n += tokenCount(s.text);
  for (const m of request.messages) for (const b of m.content) n += blockTokens(b);
  for (const t of request.tools)
    n += tokenCount(`${t.name} ${t.description ?? ""} ${JSON.stringify(t.parameters)}`);
  return n;
}

/** Tokens up to the last cache_control marker form the cacheable prefix (as the messages protocol defines it). */
function applyPromptCache(request: Request, usage: Usage): void {
  const parts: string[] = [];
  let tokens = 0;
  let marked: { key: string; tokens: number; ttl: "5m" | "1h" } | undefined;
  const visit = (text: string, n: number, mark: { ttl?: "5m" | "1h" } | undefined) => {
    parts.push(text);
    tokens += n;
    if (mark) marked = { key: parts.join("\u0000"), tokens, ttl: mark.ttl ?? "5m" };
  };
  for (const t of request.tools)
    visit(
      JSON.stringify(t),
      tokenCount(`${t.name} ${t.description ?? ""} ${JSON.stringify(t.parameters)}`),
      t.cacheControl,
    );
  for (const s of request.system) visit(s.text, tokenCount(s.text), s.cacheControl);
  for (const m of request.messages)
    for (const b of m.content)
      visit(`${m.role}:${blockText(b)}`, blockTokens(b), "cacheControl" in b ? b.cacheControl : undefined);
  if (!marked || marked.tokens === 0) return;
  if (cache.hit(marked.key, marked.ttl)) usage.cacheReadTokens = marked.tokens;
  else if (marked.ttl === "1h") usage.cacheWrite1hTokens = marked.tokens;
  else usage.cacheWrite5mTokens = marked.tokens;
}

/** Thinking replayed on a later turn must carry the signature the local model issued for it. */
function checkThinkingSignatures(request: Request): void {
  request.messages.forEach((m, i) => {
    m.content.forEach((b, j) => {
      if (b.type === "thinking" && b.signature !== undefined && !verifyThinking(b.text, b.signature))
        throw invalid(`messages[${i}].content[${j}].signature`, "invalid signature for this thinking block");
    });
  });
}

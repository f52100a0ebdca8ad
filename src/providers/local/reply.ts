// The local demo models' answer to a request: deterministic, with real token counts, tool calls when
// tools are offered and chosen, thinking when reasoning is asked of a reasoning model, structured
// output, stop sequences and the output-token limit honoured, and a prompt cache that notices a
// repeated prefix marked with cache_control.
//
// It runs on the local models' own thread (worker.ts), like an upstream on its own machine, so
// nothing here can hold the gateway's event loop; it is still kept linear in the request's size, so
// that no request keeps that thread (and the other local requests) busy for long: token counts and
// truncation are bounded (bounded-bpe.ts), a prompt over the model's context window is refused as
// soon as the count passes it, and searching for stop sequences and tool names is one pass over the
// text (src/ir/multi-search.ts).

import { invalid, invalidPrompt, promptTooLong } from "../../ir/errors.ts";
import { earliestOf, firstOccurrences, MAX_PATTERN_CHARS, searchable } from "../../ir/multi-search.ts";
import { prefillText } from "../../ir/prefill.ts";
import type { Request, ToolDefinition } from "../../ir/request.ts";
import type { FinishReason, OutputBlock } from "../../ir/response.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import { emptyUsage, type Usage } from "../../ir/usage.ts";
import type { TokenCounts, Truncated } from "./bounded-bpe.ts";
import { PromptCache } from "./prompt-cache.ts";
import { blockText, isMedia, MEDIA_TOKENS, promptTexts } from "./prompt-texts.ts";
import { sampleFromSchema } from "./sample-json.ts";
import { signThinking, verifyThinking } from "./signature.ts";

export interface LocalReply {
  blocks: OutputBlock[];
  finishReason: FinishReason;
  stopSequence?: string;
  usage: Usage;
}

export interface LocalReplyOptions {
  reasoning: boolean;
  maxOutputTokens?: number;
  /** The model's context window: a longer prompt is refused, as a real model refuses it. */
  contextLength?: number;
}

/** The token counting the reply needs (bounded-bpe.ts, driven on the local models' thread). */
export interface LocalTokens {
  countEach(texts: readonly string[], limit?: number): Promise<TokenCounts>;
  truncate(text: string, max: number): Promise<Truncated>;
}

const DEFAULT_MAX_OUTPUT = 4096;

const cache = new PromptCache();

export async function localReply(
  request: Request,
  opts: LocalReplyOptions,
  tokens: LocalTokens,
): Promise<LocalReply> {
  checkThinkingSignatures(request);
  checkPatternSizes(request);
  const usage = emptyUsage();
  const prompt = await promptTokens(request, tokens, opts.contextLength);
  usage.promptTokens = prompt.total;
  applyPromptCache(request, usage, prompt);

  const blocks: OutputBlock[] = [];
  let budget = request.maxOutputTokens ?? opts.maxOutputTokens ?? DEFAULT_MAX_OUTPUT;
  const userText = lastUserText(request);

  if (opts.reasoning && wantsReasoning(request)) {
    const thinking = `The user wrote ${wordCount(userText)} words. ${planFor(request)}`;
    const { total } = await tokens.countEach([thinking]);
    usage.reasoningTokens = Math.min(total, budget);
    budget -= usage.reasoningTokens;
    if (!request.reasoning?.exclude)
      blocks.push({ type: "thinking", text: thinking, signature: signThinking(thinking) });
  }

  const calls = chooseToolCalls(request, userText);
  if (calls.length > 0) {
    for (const call of calls) blocks.push(call);
    const args = await tokens.countEach(calls.flatMap((c) => [c.name, c.arguments]));
    usage.completionTokens = usage.reasoningTokens + args.total;
    return { blocks, finishReason: "tool_calls", usage };
  }

  let text = continuing(answerText(request, userText), prefillText(request));
  let finishReason: FinishReason = "stop";
  let stopSequence: string | undefined;
  const stop = earliestOf(text, request.stopSequences);
  if (stop) {
    text = text.slice(0, stop.at);
    finishReason = "stop_sequence";
    stopSequence = stop.pattern;
  }
  const fitted = await tokens.truncate(text, budget);
  if (fitted.truncated) {
    text = fitted.text;
    finishReason = "length";
    stopSequence = undefined;
  }
  if (text.length > 0) blocks.push({ type: "text", text });
  usage.completionTokens = usage.reasoningTokens + fitted.tokens;
  return { blocks, finishReason, stopSequence, usage };
}

/**
 * With a prefill, the answer is what follows it: the rest of the model's answer when the prefill is
 * how that answer begins (`You said: ` → the user's words; `{` → the rest of the JSON), else the
 * whole answer after it, as a model carries on from whatever it was handed.
 */
function continuing(answer: string, prefill: string | undefined): string {
  if (prefill === undefined) return answer;
  if (answer.startsWith(prefill)) return answer.slice(prefill.length);
  return /\s$/.test(prefill) ? answer : ` ${answer}`;
}

/**
 * Reasoning asked for: switched on, given an effort or a budget, or asked to be shown (Gemini CLI's
 * `thinkingConfig: { includeThoughts: true }` alone, which a thinking Gemini model answers with its
 * default dynamic thinking).
 */
function wantsReasoning(request: Request): boolean {
  const r = request.reasoning;
  if (!r || r.enabled === false || r.effort === "none") return false;
  return (
    r.enabled === true ||
    r.adaptive === true ||
    r.effort !== undefined ||
    (r.budgetTokens ?? 0) !== 0 ||
    r.exclude === false
  );
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
    const named = firstOccurrences(
      userText.toLowerCase(),
      request.tools.map((t) => t.name.toLowerCase()),
    );
    chosen = request.tools.filter((_, i) => named[i] >= 0);
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

/**
 * Tool names and stop sequences are searched for in the text with one automaton holding a node per
 * character: far more of them than any real client sends is refused rather than built.
 */
function checkPatternSizes(request: Request): void {
  const tooMany = `characters in all when there are more than a few; the local models take at most ${MAX_PATTERN_CHARS}`;
  if (!searchable(request.tools.map((t) => t.name))) throw invalid("tools", `too many tool name ${tooMany}`);
  if (!searchable(request.stopSequences))
    throw invalid("stop_sequences", `too many stop sequence ${tooMany}`);
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

interface PromptCounts {
  total: number;
  system: number[];
  /** By message, by content block. */
  blocks: number[][];
  tools: number[];
}

/**
 * The prompt's tokens, part by part, counted in one trip to the tokenizer. A prompt longer than the
 * context window is refused as soon as the count passes it, so counting costs no more than the window.
 */
async function promptTokens(
  request: Request,
  tokens: LocalTokens,
  contextLength?: number,
): Promise<PromptCounts> {
  const { texts, media } = promptTexts(request);
  const limit = contextLength === undefined ? undefined : Math.max(0, contextLength - media);
  const counted = await tokens.countEach(texts, limit);
  if (counted.overLimit) throw promptTooLong(contextLength);
  let next = 0;
  const take = () => counted.each[next++];
  const system = request.system.map(take);
  // A media block was counted as the empty text; it stands for MEDIA_TOKENS.
  const blocks = request.messages.map((m) => m.content.map((b) => take() + (isMedia(b) ? MEDIA_TOKENS : 0)));
  const tools = request.tools.map(take);
  return { total: counted.total + media, system, blocks, tools };
}

/** Tokens up to the last cache_control marker form the cacheable prefix (as the messages protocol defines it). */
function applyPromptCache(request: Request, usage: Usage, counts: PromptCounts): void {
  const parts: string[] = [];
  let tokens = 0;
  // Only the last marker counts: remember where it was, and join the prefix once at the end (joining
  // at every marker cost the prompt's size times the number of markers).
  let marked: { parts: number; tokens: number; ttl: "5m" | "1h" } | undefined;
  const visit = (text: string, n: number, mark: { ttl?: "5m" | "1h" } | undefined) => {
    parts.push(text);
    tokens += n;
    if (mark) marked = { parts: parts.length, tokens, ttl: mark.ttl ?? "5m" };
  };
  for (const [i, t] of request.tools.entries()) visit(JSON.stringify(t), counts.tools[i], t.cacheControl);
  for (const [i, s] of request.system.entries()) visit(s.text, counts.system[i], s.cacheControl);
  for (const [i, m] of request.messages.entries())
    for (const [j, b] of m.content.entries())
      visit(
        `${m.role}:${blockText(b)}`,
        counts.blocks[i][j],
        "cacheControl" in b ? b.cacheControl : undefined,
      );
  if (!marked || marked.tokens === 0) return;
  const key = parts.slice(0, marked.parts).join("\u0000");
  if (cache.hit(key, marked.ttl)) usage.cacheReadTokens = marked.tokens;
  else if (marked.ttl === "1h") usage.cacheWrite1hTokens = marked.tokens;
  else usage.cacheWrite5mTokens = marked.tokens;
}

/**
 * Thinking replayed on a later turn must carry the signature the local model issued for it. Named by
 * the caller's prompt member: an IR position is not a chat or content-generation client's.
 */
function checkThinkingSignatures(request: Request): void {
  for (const m of request.messages)
    for (const b of m.content)
      if (b.type === "thinking" && b.signature !== undefined && !verifyThinking(b.text, b.signature))
        throw invalidPrompt("invalid signature for a thinking block (not the one issued for its text)");
}

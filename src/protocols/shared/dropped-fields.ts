// What an upstream did not get, for the `x-switchyard-ignored` response header (docs/architecture.md
// §8), and the vocabulary an encoder names what it could not express in (`UpstreamCall.dropped`): one
// for every target, spelled as the field's common wire name so that a client of any protocol can look
// it up in docs/translation.md §9. Each protocol's `dropped-fields.ts` decides which of these names
// its target cannot say, in an `Unsent` of its own that the call carries; the translated call adds
// the call's names to the attempt's.

import type { ContentBlock, Request } from "../../ir/request.ts";
import type { UpstreamCall } from "../types.ts";

/** The vocabulary, in the order names appear in the header. */
export const DROPPED_FIELD_NAMES = [
  "temperature",
  "top_p",
  "top_k",
  "stop",
  "frequency_penalty",
  "presence_penalty",
  "seed",
  "logprobs",
  "user",
  "reasoning",
  "verbosity",
  "response_format.json_schema.description",
  "tools[].strict",
  "parallel_tool_calls",
  "cache_control",
  "citations",
  "image.detail",
  "document.title",
  "document.context",
  "tool_result.is_error",
  "thinking",
  "web_search",
  "web_search.max_uses",
  "web_search.allowed_domains",
  "web_search.blocked_domains",
  "web_search.user_location",
  "web_search.search_context_size",
  "taskType",
  "title",
] as const;

export type DroppedField = (typeof DROPPED_FIELD_NAMES)[number];

/**
 * What one attempt's upstream did not get, for `x-switchyard-ignored`, gathered from whoever left it
 * out: the client face's set-aside fields and what a relay removed (`addPaths`, the client's own
 * paths, in the order met), what an encoder could not express and the members a model refused
 * (`add`, `addFields`: the vocabulary's names, in its order, then any other refused member). One per
 * attempt: the route makes it and reads it once. An encoder gathers its own names in one too.
 */
export class Unsent {
  private readonly paths = new Set<string>();
  private readonly fields = new Set<string>();

  constructor(paths: Iterable<string> = []) {
    this.addPaths(paths);
  }

  addPaths(paths: Iterable<string>): void {
    for (const path of paths) this.paths.add(path);
  }

  /** One of the vocabulary's names, when `when` holds: called in the branch that leaves the field out. */
  add(name: DroppedField, when = true): void {
    if (when) this.fields.add(name);
  }

  addFields(names: Iterable<string>): void {
    for (const name of names) this.fields.add(name);
  }

  /** Every name once: the paths, then the vocabulary's names in its order, then the others. */
  list(): string[] {
    if (this.fields.size === 0) return [...this.paths];
    const known = DROPPED_FIELD_NAMES.filter((name) => this.fields.has(name));
    const others = [...this.fields].filter((name) => !VOCABULARY.has(name));
    return [...new Set([...this.paths, ...known, ...others])];
  }
}

const VOCABULARY: ReadonlySet<string> = new Set(DROPPED_FIELD_NAMES);

/** The call, carrying `dropped` only when something was left out (a lossless call stays as it was). */
export function upstreamCall(path: string, body: unknown, dropped: Unsent): UpstreamCall {
  const names = dropped.list();
  return names.length > 0 ? { path, body, dropped: names } : { path, body };
}

/** Every content block of a request: system text, each message's blocks and the blocks inside tool results. */
export function* requestBlocks(request: Request): Iterable<ContentBlock> {
  yield* request.system;
  for (const message of request.messages)
    for (const block of message.content) {
      yield block;
      if (block.type === "tool_result") yield* block.content;
    }
}

/** Prompt-cache markers anywhere (tools included): only the messages protocol can carry them. */
export function usesCacheControl(request: Request): boolean {
  if (request.tools.some((tool) => tool.cacheControl !== undefined)) return true;
  for (const block of requestBlocks(request))
    if ("cacheControl" in block && block.cacheControl !== undefined) return true;
  return false;
}

/** Citations replayed on text, or asked for on a document (`citations: false` is the default: no loss). */
export function usesCitations(block: ContentBlock): boolean {
  if (block.type === "text") return (block.citations?.length ?? 0) > 0;
  return block.type === "document" && block.citations === true;
}

/** An image detail other than the default (`auto` asks for nothing). */
export function usesImageDetail(block: ContentBlock): boolean {
  return block.type === "image" && block.detail !== undefined && block.detail !== "auto";
}

/**
 * Earlier reasoning whose text the target would not receive: thinking without a signature, which an
 * upstream that needs signed thoughts leaves out. An empty unsigned block carries nothing, so it is
 * not counted.
 */
export function isUnsignedThinking(block: ContentBlock): boolean {
  return block.type === "thinking" && block.signature === undefined && block.text !== "";
}

/** A strict tool schema, which only chat-completions can ask for (`strict: false` is the default). */
export function usesStrictTools(request: Request): boolean {
  return request.tools.some((tool) => tool.strict === true);
}

/** A JSON-schema answer format's description, which only chat-completions can carry. */
export function usesSchemaDescription(request: Request): boolean {
  const format = request.responseFormat;
  return format?.type === "json_schema" && format.description !== undefined;
}

/** The request asks for some reasoning setting (on, off, an effort, a budget or adaptive). */
export function asksForReasoning(request: Request): boolean {
  const r = request.reasoning;
  if (!r) return false;
  return (
    r.enabled !== undefined || r.effort !== undefined || r.budgetTokens !== undefined || r.adaptive === true
  );
}

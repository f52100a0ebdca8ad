// What an upstream did not get, for the `x-switchyard-ignored` response header (docs/architecture.md
// §4), and the vocabulary an encoder names what it could not express in: one for every target,
// spelled as the field's common wire name so that a client of any protocol can look it up in
// docs/translation.md §9. Each upstream encoder adds a name to the attempt's collector (`Unsent`) in
// the branch that leaves the field out; the helpers below are the conditions several encoders share.

import type { ContentBlock, ImageBlock, Request, TextBlock } from "../../ir/request.ts";

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
 * attempt: the route makes it, the translated call hands it to the encoder, and the route reads it once.
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

/** The request settings a target may have no member for, by the names they are left out under. */
const SETTING_NAMES = {
  topK: "top_k",
  frequencyPenalty: "frequency_penalty",
  presencePenalty: "presence_penalty",
  seed: "seed",
  logprobs: "logprobs",
  user: "user",
  verbosity: "verbosity",
  webSearch: "web_search",
} as const satisfies Partial<Record<keyof Request, DroppedField>>;

/**
 * Names those of `settings`, which the target's protocol has no member for, that the request set:
 * called once at an encoder's top, as there is no branch that leaves out what is never written.
 */
export function leaveOutSettings(
  unsent: Unsent,
  request: Request,
  settings: ReadonlyArray<keyof typeof SETTING_NAMES>,
): void {
  for (const setting of settings) unsent.add(SETTING_NAMES[setting], request[setting] !== undefined);
}

/** Every content block of a request: system text, each message's blocks and the blocks inside tool results. */
function* requestBlocks(request: Request): Iterable<ContentBlock> {
  yield* request.system;
  for (const message of request.messages)
    for (const block of message.content) {
      yield block;
      if (block.type === "tool_result") yield* block.content;
    }
}

/**
 * Prompt-cache markers anywhere (tools included): only the messages protocol and Converse carry them,
 * so the other encoders, which never look at them, ask this once at their top.
 */
export function usesCacheControl(request: Request): boolean {
  if (request.tools.some((tool) => tool.cacheControl !== undefined)) return true;
  for (const block of requestBlocks(request))
    if ("cacheControl" in block && block.cacheControl !== undefined) return true;
  return false;
}

/** A text block's text alone, for a target with no place for the citations it replays. */
export function plainText(block: TextBlock, unsent: Unsent): string {
  unsent.add("citations", (block.citations?.length ?? 0) > 0);
  return block.text;
}

/** An image detail other than the default (`auto` asks for nothing). */
export function usesImageDetail(block: ImageBlock): boolean {
  return block.detail !== undefined && block.detail !== "auto";
}

/** One tool call per turn asked for where calls may be made (`false` beside tool choice `none` asks nothing). */
export function asksOneCallPerTurn(request: Request): boolean {
  return (
    request.parallelToolCalls === false && request.tools.length > 0 && request.toolChoice?.type !== "none"
  );
}

/** The request asks for some reasoning setting (on, off, an effort, a budget or adaptive). */
export function asksForReasoning(request: Request): boolean {
  const r = request.reasoning;
  if (!r) return false;
  return (
    r.enabled !== undefined || r.effort !== undefined || r.budgetTokens !== undefined || r.adaptive === true
  );
}

// OpenAI-compatible vendors whose chat requests differ from OpenAI's. OpenAI and most compatible
// vendors accept or ignore a member they have no use for; Mistral answers any member outside its own
// list with a 422 ("extra_forbidden"), and any tool call id but nine letters and digits with a 400;
// Groq documents a few members it answers with a 400; DeepSeek's thinking mode answers a tool-calling
// turn whose reasoning is not sent back as `reasoning_content` with a 400; OpenAI's reasoning models
// answer sampling members away from their defaults with a 400. A request for such an
// upstream carries what the vendor takes, under the vendor's names, and what was left out is named in
// `x-switchyard-ignored` (docs/translation.md §9, "Chat upstreams that differ from OpenAI"). `stream_options`
// and the output limit's name have their own provider settings (stream_usage, max_tokens_field) and
// are handled where they are set.

import { createHash } from "node:crypto";
import type { DroppedField } from "../shared/dropped-fields.ts";
import { editJson, editJsonArrayItems, topLevelMembers } from "../shared/json-edit.ts";

/** A vendor's rules: `providers[].request_fields` (docs/configuration.md). */
export type RequestFields = "mistral" | "groq" | "deepseek" | "openai";

interface Rules {
  /** Whether the vendor takes a top-level member (by its own name). */
  takes(member: string): boolean;
  /** OpenAI's name → the vendor's, for a member it takes under another name. */
  renamed: ReadonlyMap<string, string>;
  /**
   * Whether a message of this role may carry this member (vendors check inside messages too);
   * undefined for a role the vendor does not know, which is left for it to refuse.
   */
  messageTakes(role: string, member: string): boolean | undefined;
  /** OpenAI's roles the vendor knows by another name. */
  roles: ReadonlyMap<string, string>;
  /**
   * A tool call's id as the vendor takes it, when it takes only some (the same id in, the same id out,
   * so that a call and its result still pair up).
   */
  toolCallId?: (id: string) => string;
  /**
   * The vendor reads an assistant turn's reasoning back only as `reasoning_content` text (DeepSeek's
   * thinking mode requires it after tool calls), not as `reasoning_details`.
   */
  reasoningContent?: boolean;
  /**
   * A reasoning model takes the sampling members only at their defaults while it reasons (OpenAI: "Only
   * the default (1) value is supported", or "not supported with this model"; its gpt-5.1 and later take
   * them at effort `none`).
   */
  reasoningSampling?: boolean;
  /** A relayed body needs fitting too (its members or messages); not when only translating differs. */
  relayed: boolean;
  /** Messages are looked at (their members, roles, ids or reasoning differ from OpenAI's). */
  fitsMessages: boolean;
}

// Mistral's chat completion request (its API reference; its SDKs' ChatCompletionRequest, 2026).
const MISTRAL_MEMBERS = new Set([
  "model",
  "messages",
  "temperature",
  "top_p",
  "max_tokens",
  "stream",
  "stop",
  "random_seed",
  "metadata",
  "response_format",
  "tools",
  "tool_choice",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "prediction",
  "parallel_tool_calls",
  "reasoning_effort",
  "prompt_mode",
  "guardrails",
  "prompt_cache_key",
  "safe_prompt",
]);

// (Maps, not objects: a role or member a client names, `constructor` say, must not find a prototype's.)
const MISTRAL_MESSAGE_MEMBERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["system", new Set(["role", "content"])],
  ["user", new Set(["role", "content"])],
  ["assistant", new Set(["role", "content", "tool_calls", "prefix"])],
  ["tool", new Set(["role", "content", "tool_call_id", "name"])],
]);

/** OpenAI's own members and messages, all of them taken: what a vendor differing elsewhere starts from. */
const OPENAI_MEMBERS = {
  takes: () => true,
  renamed: new Map<string, string>(),
  messageTakes: () => true,
  roles: new Map<string, string>(),
};

// Groq's OpenAI compatibility page: these "will result in a 400 error if they are supplied".
const GROQ_REFUSES = new Set(["logprobs", "top_logprobs", "logit_bias"]);

const RULES: Record<RequestFields, Rules> = {
  mistral: {
    takes: (member) => MISTRAL_MEMBERS.has(member),
    renamed: new Map([["seed", "random_seed"]]),
    messageTakes: (role, member) => MISTRAL_MESSAGE_MEMBERS.get(role)?.has(member),
    // OpenAI's newer name for the system role.
    roles: new Map([["developer", "system"]]),
    toolCallId: nineAlphanumerics,
    relayed: true,
    fitsMessages: true,
  },
  groq: {
    ...OPENAI_MEMBERS,
    takes: (member) => !GROQ_REFUSES.has(member),
    messageTakes: (_role, member) => member !== "name",
    relayed: true,
    fitsMessages: true,
  },
  deepseek: {
    ...OPENAI_MEMBERS,
    reasoningContent: true,
    // A chat client's own turns are relayed as it wrote them, reasoning_content included.
    relayed: false,
    fitsMessages: true,
  },
  openai: {
    ...OPENAI_MEMBERS,
    reasoningSampling: true,
    // A chat client speaks OpenAI's own rules to OpenAI.
    relayed: false,
    fitsMessages: false,
  },
};

/** The sampling members a reasoning model takes only at these values, and their dropped-field names. */
const SAMPLING_DEFAULTS: ReadonlyArray<[member: string, value: unknown, name: DroppedField]> = [
  ["temperature", 1, "temperature"],
  ["top_p", 1, "top_p"],
  ["presence_penalty", 0, "presence_penalty"],
  ["frequency_penalty", 0, "frequency_penalty"],
  ["logprobs", false, "logprobs"],
  ["top_logprobs", undefined, "logprobs"],
];

const NINE_ALPHANUMERICS = /^[a-zA-Z0-9]{9}$/;
const ALPHANUMERICS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Mistral takes a tool call's id only as nine letters and digits ("Tool call id was … but must be
 * a-z, A-Z, 0-9, with a length of 9", a 400), and a conversation begun with another provider has
 * ids of its own (`call_…`, `toolu_…`). Any other id is replaced by nine characters of its SHA-256:
 * the same for a call and its result, unlikely to meet another id of the conversation (62⁹ values).
 */
function nineAlphanumerics(id: string): string {
  if (NINE_ALPHANUMERICS.test(id)) return id;
  const digest = createHash("sha256").update(id).digest();
  let out = "";
  for (let i = 0; i < 9; i++) out += ALPHANUMERICS[digest[i]! % ALPHANUMERICS.length];
  return out;
}

/** How a member the encoder writes is named in `x-switchyard-ignored` when the vendor refuses it. */
const DROPPED_AS: ReadonlyMap<string, DroppedField> = new Map([
  ["logprobs", "logprobs"],
  ["top_logprobs", "logprobs"],
  ["user", "user"],
  ["verbosity", "verbosity"],
  ["web_search_options", "web_search"],
  ["seed", "seed"],
]);

/** How a message member the encoder writes is named when the vendor refuses it. */
const MESSAGE_MEMBER_DROPPED_AS: ReadonlyMap<string, DroppedField> = new Map([
  ["reasoning_details", "thinking"],
]);

type Json = Record<string, unknown>;

/**
 * A translated request's body fitted to the vendor, in place: members renamed, refused ones removed,
 * its messages' too. Returns the names of what was removed, in the vocabulary of
 * `x-switchyard-ignored` (shared/dropped-fields.ts).
 */
export function fitBody(body: Json, fields: RequestFields, reasoningModel = false): DroppedField[] {
  const rules = RULES[fields];
  const dropped: DroppedField[] = [];
  if (rules.reasoningSampling && reasoningModel && body.reasoning_effort !== "none")
    for (const [member, value, name] of SAMPLING_DEFAULTS) {
      if (body[member] === undefined || body[member] === value) continue;
      delete body[member];
      dropped.push(name);
    }
  for (const key of Object.keys(body)) {
    const name = rules.renamed.get(key);
    if (name === undefined && rules.takes(key)) continue;
    if (name !== undefined) body[name] = body[key];
    else {
      const as = DROPPED_AS.get(key);
      if (as) dropped.push(as);
    }
    delete body[key];
  }
  if (!rules.fitsMessages) return dropped;
  for (const message of body.messages as Json[]) {
    const role = rules.roles.get(message.role as string);
    if (role) message.role = role;
    if (rules.toolCallId) fitToolCallIds(message, rules.toolCallId);
    if (rules.reasoningContent) reasoningAsContent(message);
    for (const key of Object.keys(message)) {
      if (rules.messageTakes(message.role as string, key) !== false) continue;
      const as = MESSAGE_MEMBER_DROPPED_AS.get(key);
      if (as) dropped.push(as);
      delete message[key];
    }
  }
  return dropped;
}

/**
 * An assistant turn's reasoning as `reasoning_content`: the text of its `reasoning_details` items
 * joined (signatures and encrypted items mean nothing to this vendor and are left out).
 */
function reasoningAsContent(message: Json): void {
  const details = message.reasoning_details;
  if (!Array.isArray(details)) return;
  delete message.reasoning_details;
  const text = details.flatMap((d: Json) => (typeof d?.text === "string" ? [d.text] : [])).join("");
  if (text) message.reasoning_content = text;
}

/** A translated message's tool call ids (its calls', or the result's) as the vendor takes them. */
function fitToolCallIds(message: Json, fit: (id: string) => string): void {
  if (typeof message.tool_call_id === "string") message.tool_call_id = fit(message.tool_call_id);
  if (!Array.isArray(message.tool_calls)) return;
  for (const call of message.tool_calls as Json[]) if (typeof call.id === "string") call.id = fit(call.id);
}

/** Whether a relayed body is fitted to these rules at all (refusedMembers, fitRelayedMessage). */
export function fitsRelayed(fields: RequestFields | undefined): fields is RequestFields {
  return fields !== undefined && RULES[fields].relayed;
}

/**
 * A relayed body's top-level members (`keys`, as the client sent them) the vendor refuses: removed
 * from the body and named, as sent, in `x-switchyard-ignored`. (A relay renames nothing: the chat
 * face sets `seed` aside before the relay sees it.)
 */
export function refusedMembers(keys: string[], fields: RequestFields): string[] {
  const { takes } = RULES[fields];
  return keys.filter((key) => !takes(key));
}

/**
 * A relayed message (its JSON text, `messages[index]`) fitted to the vendor: its role renamed, the
 * members the vendor refuses for that role removed and pushed onto `refused` as
 * `messages[index].member`. A message of a role the vendor does not know is left for it to refuse.
 */
export function fitRelayedMessage(
  message: string,
  index: number,
  fields: RequestFields,
  refused: string[],
): string {
  if (!message.startsWith("{")) return message;
  const rules = RULES[fields];
  const members = topLevelMembers(message);
  const role = members.get("role");
  const sentRole = role ? JSON.parse(message.slice(role.valueStart, role.end)) : undefined;
  if (typeof sentRole !== "string") return message;
  const renamed = rules.roles.get(sentRole);
  const remove = [...members.keys()].filter((key) => rules.messageTakes(renamed ?? sentRole, key) === false);
  const set: Record<string, string> = renamed ? { role: JSON.stringify(renamed) } : {};
  const fit = rules.toolCallId;
  const resultOf = members.get("tool_call_id");
  if (fit && resultOf) {
    const id = JSON.parse(message.slice(resultOf.valueStart, resultOf.end));
    if (typeof id === "string" && fit(id) !== id) set.tool_call_id = JSON.stringify(fit(id));
  }
  for (const key of remove) refused.push(`messages[${index}].${key}`);
  const edited =
    remove.length > 0 || Object.keys(set).length > 0 ? editJson(message, { set, remove }) : message;
  return fit && members.has("tool_calls") ? withToolCallIds(edited, fit) : edited;
}

/** A relayed assistant message with each of its calls' ids as the vendor takes them. */
function withToolCallIds(message: string, fit: (id: string) => string): string {
  return editJsonArrayItems(message, "tool_calls", (call) => {
    const at = call.startsWith("{") ? topLevelMembers(call).get("id") : undefined;
    const id = at ? JSON.parse(call.slice(at.valueStart, at.end)) : undefined;
    return typeof id === "string" && fit(id) !== id
      ? editJson(call, { set: { id: JSON.stringify(fit(id)) } })
      : call;
  });
}

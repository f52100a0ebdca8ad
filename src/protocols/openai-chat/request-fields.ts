// OpenAI-compatible vendors that refuse request members they do not know. Mistral's API answers any
// member outside its own list with a 422 ("extra_forbidden"), where OpenAI ignores or accepts them; so
// a request for such an upstream carries only members of the vendor's list, under the vendor's names,
// and what was left out is named in `x-switchyard-ignored` (docs/translation.md §4b).
// `stream_options` and the output limit's name have their own provider settings (stream_usage,
// max_tokens_field) and are handled where they are set.

import type { DroppedField } from "../shared/dropped-fields.ts";
import { editJson, topLevelMembers } from "../shared/json-edit.ts";

/** A vendor's rules: `providers[].request_fields` (docs/configuration.md). */
export type RequestFields = "mistral";

interface Rules {
  /** Top-level members the vendor takes, by its names. */
  accepted: ReadonlySet<string>;
  /** OpenAI's name → the vendor's, for a member it takes under another name. */
  renamed: Readonly<Record<string, string>>;
  /** The members a message of each role may have (the vendor refuses others inside messages too). */
  messageMembers: Readonly<Record<string, ReadonlySet<string>>>;
  /** OpenAI's roles the vendor knows by another name. */
  roles: Readonly<Record<string, string>>;
}

const RULES: Record<RequestFields, Rules> = {
  // Mistral's chat completion request (its API reference and SDKs' ChatCompletionRequest, 2026).
  mistral: {
    accepted: new Set([
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
    ]),
    renamed: { seed: "random_seed" },
    messageMembers: {
      system: new Set(["role", "content"]),
      user: new Set(["role", "content"]),
      assistant: new Set(["role", "content", "tool_calls", "prefix"]),
      tool: new Set(["role", "content", "tool_call_id", "name"]),
    },
    // OpenAI's newer name for the system role.
    roles: { developer: "system" },
  },
};

/** How a member the encoder writes is named in `x-switchyard-ignored` when the vendor refuses it. */
const DROPPED_AS: Readonly<Record<string, DroppedField>> = {
  logprobs: "logprobs",
  top_logprobs: "logprobs",
  user: "user",
  verbosity: "verbosity",
  web_search_options: "web_search",
  seed: "seed",
};

/** How a message member the encoder writes is named when the vendor refuses it. */
const MESSAGE_MEMBER_DROPPED_AS: Readonly<Record<string, DroppedField>> = {
  reasoning_details: "thinking",
};

type Json = Record<string, unknown>;

/**
 * A translated request's body fitted to the vendor, in place: members renamed, refused ones removed,
 * its messages' too. Returns the names of what was removed, in the dropped-fields vocabulary.
 */
export function fitBody(body: Json, fields: RequestFields): DroppedField[] {
  const rules = RULES[fields];
  const dropped: DroppedField[] = [];
  for (const key of Object.keys(body)) {
    if (rules.accepted.has(key)) continue;
    const name = rules.renamed[key];
    if (name !== undefined) body[name] = body[key];
    else if (DROPPED_AS[key]) dropped.push(DROPPED_AS[key]);
    delete body[key];
  }
  for (const message of body.messages as Json[]) {
    const role = rules.roles[message.role as string];
    if (role) message.role = role;
    const members = rules.messageMembers[message.role as string];
    if (!members) continue;
    for (const key of Object.keys(message)) {
      if (members.has(key)) continue;
      if (MESSAGE_MEMBER_DROPPED_AS[key]) dropped.push(MESSAGE_MEMBER_DROPPED_AS[key]);
      delete message[key];
    }
  }
  return dropped;
}

/**
 * A relayed body's top-level members (`keys`, as the client sent them) the vendor refuses: removed
 * from the body and named, as sent, in `x-switchyard-ignored`. (A relay renames nothing: the chat
 * face sets `seed` aside before the relay sees it.)
 */
export function refusedMembers(keys: string[], fields: RequestFields): string[] {
  const { accepted } = RULES[fields];
  return keys.filter((key) => !accepted.has(key));
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
  const renamed = rules.roles[sentRole];
  const allowed = rules.messageMembers[renamed ?? sentRole];
  if (!allowed) return message;
  const remove = [...members.keys()].filter((key) => !allowed.has(key));
  for (const key of remove) refused.push(`messages[${index}].${key}`);
  return editJson(message, { set: renamed ? { role: JSON.stringify(renamed) } : {}, remove });
}

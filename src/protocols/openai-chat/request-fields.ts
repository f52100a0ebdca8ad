// OpenAI-compatible vendors that refuse request members they do not know. Mistral's API answers any
// member outside its own list with a 422 ("extra_forbidden"), where OpenAI ignores or accepts them; so
// a request for such an upstream carries only members of the vendor's list, under the vendor's names,
// and what was left out is named in `x-switchyard-ignored` (docs/translation.md §4b).
// `stream_options` and the output limit's name have their own provider settings (stream_usage,
// max_tokens_field) and are handled where they are set.

import type { DroppedField } from "../shared/dropped-fields.ts";

/** A vendor's rules: `providers[].request_fields` (docs/configuration.md). */
export type RequestFields = "mistral";

interface Rules {
  /** Top-level members the vendor takes, by its names. */
  accepted: ReadonlySet<string>;
  /** OpenAI's name → the vendor's, for a member it takes under another name. */
  renamed: Readonly<Record<string, string>>;
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

/**
 * A translated request's body fitted to the vendor, in place: members renamed, refused ones removed.
 * Returns the names of what was removed, in the dropped-fields vocabulary.
 */
export function fitBody(body: Record<string, unknown>, fields: RequestFields): DroppedField[] {
  const rules = RULES[fields];
  const dropped: DroppedField[] = [];
  for (const key of Object.keys(body)) {
    if (rules.accepted.has(key)) continue;
    const name = rules.renamed[key];
    if (name !== undefined) body[name] = body[key];
    else {
      const as = DROPPED_AS[key];
      if (as) dropped.push(as);
    }
    delete body[key];
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

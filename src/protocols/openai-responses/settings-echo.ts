// The request settings a Responses answer repeats that the IR has no place for (OpenAI's response
// object echoes them: `instructions`, `metadata`, `service_tier`, `prompt_cache_key`,
// `safety_identifier`, `max_tool_calls`, `top_logprobs`, `user`, `reasoning` as asked). They are read
// from the client's body before it is decoded, so a translated answer says what the client sent.

import { isObject } from "../shared/validate.ts";

/** The echoed settings, as they go into the response object. */
export interface SettingsEcho {
  instructions: unknown;
  metadata: Record<string, unknown>;
  service_tier: string;
  prompt_cache_key: string | null;
  safety_identifier: string | null;
  max_tool_calls: number | null;
  top_logprobs: number;
  user: string | null;
  reasoning: { effort: string | null; summary: string | null } | undefined;
}

/** The settings a Responses body asks for, each as OpenAI echoes it when absent (null, 0, "default"). */
export function settingsEcho(body: unknown): SettingsEcho {
  const b = isObject(body) ? body : {};
  return {
    instructions: typeof b.instructions === "string" || Array.isArray(b.instructions) ? b.instructions : null,
    metadata: isObject(b.metadata) ? b.metadata : {},
    // The tier that served the answer: a gateway has one, whatever was asked ("auto" included).
    service_tier: "default",
    prompt_cache_key: stringOrNull(b.prompt_cache_key),
    safety_identifier: stringOrNull(b.safety_identifier),
    max_tool_calls: integerOrNull(b.max_tool_calls),
    top_logprobs: integerOrNull(b.top_logprobs) ?? 0,
    user: stringOrNull(b.user),
    reasoning: reasoningAsked(b.reasoning),
  };
}

/** `reasoning` as the client wrote it (`generate_summary` is the older name of `summary`). */
function reasoningAsked(value: unknown): SettingsEcho["reasoning"] {
  if (!isObject(value)) return undefined;
  return {
    effort: stringOrNull(value.effort),
    summary: stringOrNull(value.summary) ?? stringOrNull(value.generate_summary),
  };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function integerOrNull(value: unknown): number | null {
  return Number.isInteger(value) ? (value as number) : null;
}

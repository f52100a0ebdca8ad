// The members a fake's model refuses (FakeOptions.modelRefuses): the first one the body holds.
// An entry is a member's dotted path (`stop`, `reasoning.effort`), refused whatever its value, or a
// path and a value (`reasoning_effort=minimal`), refused at that value alone.

type Json = Record<string, unknown>;

export interface FakeRefusal {
  member: string;
  /** Set when only this value is refused (the entry named one). */
  value?: string;
}

/** The first of the model's refused members that the body holds (at the refused value, if one). */
export function refusedMember(
  body: Json,
  refuses: Record<string, string[]> | undefined,
): FakeRefusal | undefined {
  const model = body.model;
  if (typeof model !== "string" || !refuses || !Object.hasOwn(refuses, model)) return undefined;
  for (const entry of refuses[model]!) {
    const [member, value] = entry.split("=") as [string, string | undefined];
    const held = valueAt(body, member.split("."));
    if (held === undefined) continue;
    if (value === undefined) return { member };
    if (String(held) === value) return { member, value };
  }
  return undefined;
}

function valueAt(value: unknown, keys: string[]): unknown {
  let at = value;
  for (const key of keys) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return undefined;
    at = (at as Json)[key];
  }
  return at;
}

/** OpenAI's answer to a member the model does not take, or to the value alone. */
export function openaiRefusal({ member, value }: FakeRefusal): Json {
  const error =
    value === undefined
      ? {
          message: `Unsupported parameter: '${member}' is not supported with this model.`,
          code: "unsupported_parameter",
        }
      : {
          message: `Unsupported value: '${member}' does not support '${value}' with this model.`,
          code: "unsupported_value",
        };
  return {
    error: { message: error.message, type: "invalid_request_error", param: member, code: error.code },
  };
}

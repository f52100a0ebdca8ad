// Request members a model refuses. OpenAI-compatible upstreams answer a member one model does not
// take (while another of theirs does) with a 400 that names it, and the same request without it
// would be answered: a reasoning model's `temperature`, a model without reasoning's
// `reasoning_effort`, a codex model's `stop`. The translated call leaves such a member out and asks
// again (src/providers/translated/refusals.ts); this file reads OpenAI's and xAI's refusals (Gemini's and
// Claude's: refused-members.ts in their protocols' folders, as is each protocol's list of the members
// it may go without) and edits the body.
// docs/translation.md §9, "Members a model refuses".

import type { OptionalMember } from "../types.ts";
import type { DroppedField } from "./dropped-fields.ts";
import { isObject, type Json } from "./validate.ts";

/** What a model refused: members whatever their value, or only the values the request sent. */
export interface Refusal {
  /**
   * Dotted paths (`temperature`, `reasoning.effort`): one, or each a refusal may mean (Gemini's
   * "Penalty is not enabled" names neither penalty); those the request holds are left out.
   */
  members: readonly string[];
  /** Only the value sent was refused (`reasoning_effort: "minimal"`, `temperature: 0`): others may go. */
  valueOnly: boolean;
  /** Refused only beside this member (Anthropic: `top_p` beside `temperature`); alone it goes. */
  alongside?: string;
  /**
   * The value was over the model's limit, which the refusal names (an output limit): the member goes
   * lowered to it instead of being left out (UpstreamFace.limitedMembers).
   */
  limit?: number;
}

/**
 * The body member an OpenAI-compatible upstream refused for this model, or undefined when the answer
 * is not such a refusal:
 * - OpenAI: HTTP 400 `{"error": {"message": "Unsupported parameter: 'stop' is not supported with
 *   this model.", "param": "stop", "code": "unsupported_parameter"}}`, or, for the value alone,
 *   `Unsupported value: 'temperature' does not support 0 with this model. …` with code
 *   `unsupported_value`;
 * - xAI: HTTP 400 `{"code": "invalid-argument", "error": "Model grok-… does not support parameter
 *   presencePenalty."}` (earlier `"Argument not supported on this model: presencePenalty"`), the
 *   member named in camel case.
 */
export function refusedMember(status: number, body: unknown): Refusal | undefined {
  if (status !== 400 || !isObject(body)) return undefined;
  const detail = body.error;
  if (isObject(detail)) return openaiRefusal(detail);
  if (typeof detail === "string") return xaiRefusal(detail);
  return undefined;
}

/** OpenAI's codes and message openings, and whether each refuses the value alone. */
const OPENAI_CODES = new Map([
  ["unsupported_parameter", false],
  ["unsupported_value", true],
]);
const OPENAI_MESSAGE = /^Unsupported (parameter|value)\b/;
/** A member path as OpenAI names one: `temperature`, `reasoning.effort`. */
const MEMBER_PATH = /^[a-z_]+(\.[a-z_]+)*$/;

/** OpenAI's refusal of an output limit over the model's: `max_tokens is too large: 32000. This model supports at most 16384 completion tokens, whereas you provided 32000.` */
const OPENAI_OVER_LIMIT =
  /^(max_tokens|max_completion_tokens) is too large: \d+\. This model supports at most (\d+) completion tokens/;

function openaiRefusal(detail: Json): Refusal | undefined {
  const { param, code, message } = detail;
  const overLimit = typeof message === "string" ? OPENAI_OVER_LIMIT.exec(message) : null;
  if (overLimit) return { members: [overLimit[1]!], valueOnly: false, limit: Number(overLimit[2]) };
  if (typeof param !== "string" || !MEMBER_PATH.test(param)) return undefined;
  const byCode = typeof code === "string" ? OPENAI_CODES.get(code) : undefined;
  if (byCode !== undefined) return { members: [param], valueOnly: byCode };
  const byMessage = typeof message === "string" ? OPENAI_MESSAGE.exec(message) : null;
  return byMessage ? { members: [param], valueOnly: byMessage[1] === "value" } : undefined;
}

const XAI_MESSAGE =
  /(?:does not support parameter|Argument not supported(?: on this model)?:) ?([A-Za-z]+)\b/;

function xaiRefusal(message: string): Refusal | undefined {
  const named = XAI_MESSAGE.exec(message)?.[1];
  if (named === undefined) return undefined;
  const member = named.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return { members: [member], valueOnly: false };
}

/** Whether the body holds the member at this dotted path (its own members only, at every step). */
export function hasMember(body: Json, path: string): boolean {
  return objectsOn(body, path) !== undefined;
}

/** The value of the member at this dotted path, or undefined when the body does not hold it. */
export function memberValue(body: Json, path: string): unknown {
  const objects = objectsOn(body, path);
  return objects ? objects.at(-1)![path.slice(path.lastIndexOf(".") + 1)] : undefined;
}

/** Sets the member at this dotted path, where the body holds it already. */
export function setMember(body: Json, path: string, value: unknown): void {
  const objects = objectsOn(body, path);
  if (objects) objects.at(-1)![path.slice(path.lastIndexOf(".") + 1)] = value;
}

/** Removes the member at this dotted path, and an object it leaves empty. */
export function removeMember(body: Json, path: string): void {
  const objects = objectsOn(body, path);
  if (!objects) return;
  const keys = path.split(".");
  delete objects.at(-1)![keys.at(-1)!];
  for (let i = objects.length - 1; i > 0 && Object.keys(objects[i]!).length === 0; i--)
    delete objects[i - 1]![keys[i - 1]!];
}

/** The body and each object on the path down to the member's holder; undefined when it is not there. */
function objectsOn(body: Json, path: string): Json[] | undefined {
  const keys = path.split(".");
  const objects: Json[] = [body];
  for (const [i, key] of keys.entries()) {
    const holder = objects.at(-1)!;
    if (!Object.hasOwn(holder, key)) return undefined;
    if (i === keys.length - 1) return objects;
    const next = holder[key];
    if (!isObject(next)) return undefined;
    objects.push(next);
  }
  return undefined;
}

/** Optional members (UpstreamFace.optionalMembers) named in `x-switchyard-ignored` as themselves. */
export function namedAsThemselves(...names: DroppedField[]): Array<[string, OptionalMember]> {
  return names.map((name) => [name, { name }]);
}

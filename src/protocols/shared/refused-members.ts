// Request members a model refuses. OpenAI-compatible upstreams answer a member one model does not
// take (while another of theirs does) with a 400 that names it, and the same request without it
// would be answered: a reasoning model's `temperature`, a model without reasoning's
// `reasoning_effort`, a codex model's `stop`. The HTTP adapter leaves such a member out and asks
// again (src/providers/http/refusals.ts); this file reads the refusal and edits the body.
// docs/translation.md §9, "Members a model refuses".

import { isObject, type Json } from "./validate.ts";

/**
 * The body member an OpenAI-compatible upstream refused for this model, as a dotted path
 * (`temperature`, `reasoning.effort`), or undefined when the answer is not such a refusal:
 * - OpenAI: HTTP 400 `{"error": {"message": "Unsupported parameter: 'stop' is not supported with
 *   this model.", "param": "stop", "code": "unsupported_parameter"}}` (or `Unsupported value: …`,
 *   code `unsupported_value`, for a value other than the member's default);
 * - xAI: HTTP 400 `{"code": "invalid-argument", "error": "Model grok-… does not support parameter
 *   presencePenalty."}` (earlier `"Argument not supported on this model: presencePenalty"`), the
 *   member named in camel case.
 */
export function refusedMember(status: number, body: unknown): string | undefined {
  if (status !== 400 || !isObject(body)) return undefined;
  const detail = body.error;
  if (isObject(detail)) return openaiRefusal(detail);
  if (typeof detail === "string") return xaiRefusal(detail);
  return undefined;
}

const OPENAI_CODES = new Set(["unsupported_parameter", "unsupported_value"]);
const OPENAI_MESSAGE = /^Unsupported (parameter|value)\b/;
/** A member path as OpenAI names one: `temperature`, `reasoning.effort`. */
const MEMBER_PATH = /^[a-z_]+(\.[a-z_]+)*$/;

function openaiRefusal(detail: Json): string | undefined {
  const { param, code, message } = detail;
  if (typeof param !== "string" || !MEMBER_PATH.test(param)) return undefined;
  const refusal =
    (typeof code === "string" && OPENAI_CODES.has(code)) ||
    (typeof message === "string" && OPENAI_MESSAGE.test(message));
  return refusal ? param : undefined;
}

const XAI_MESSAGE =
  /(?:does not support parameter|Argument not supported(?: on this model)?:) ?([A-Za-z]+)\b/;

function xaiRefusal(message: string): string | undefined {
  const named = XAI_MESSAGE.exec(message)?.[1];
  return named?.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** Whether the body holds the member at this dotted path (its own members only, at every step). */
export function hasMember(body: Json, path: string): boolean {
  return objectsOn(body, path) !== undefined;
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

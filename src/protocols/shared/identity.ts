// The members a relay sets on every answer and stream event: the generation id and the catalog model.

import type { EncodeContext } from "../types.ts";
import type { JsonEdits } from "./json-edit.ts";

/**
 * `{ set: { [idKey]: id, [modelKey]: model } }` as JSON text, made once per generation and model
 * and kept on the context (a stream sets them on every event; a fallback model changes the model
 * once, before any event).
 */
export function identityEdits(ctx: EncodeContext, idKey: string, modelKey: string): JsonEdits {
  const cached = ctx.identityEdits;
  if (cached && cached.model === ctx.model) return cached.edits;
  const edits = { set: { [idKey]: JSON.stringify(ctx.id), [modelKey]: JSON.stringify(ctx.model) } };
  ctx.identityEdits = { model: ctx.model, edits };
  return edits;
}

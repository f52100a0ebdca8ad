// The members a relay sets on every answer and stream event: the generation id and the catalog model.

import type { EncodeContext } from "../types.ts";
import type { JsonEdits } from "./json-edit.ts";

const edits = new WeakMap<EncodeContext, Map<string, JsonEdits>>();

/**
 * `{ set: { [idKey]: id, [modelKey]: model } }` as JSON text, made once per generation and model
 * (a stream sets them on every event; a fallback model changes the model once, before any event).
 */
export function identityEdits(ctx: EncodeContext, idKey: string, modelKey: string): JsonEdits {
  let byModel = edits.get(ctx);
  if (!byModel) {
    byModel = new Map();
    edits.set(ctx, byModel);
  }
  let edit = byModel.get(ctx.model);
  if (!edit) {
    edit = { set: { [idKey]: JSON.stringify(ctx.id), [modelKey]: JSON.stringify(ctx.model) } };
    byModel.set(ctx.model, edit);
  }
  return edit;
}

// The members a relay sets on every answer and stream event: the generation id and the catalog model.

import type { EncodeContext, RelayMemo } from "../types.ts";
import { type JsonEdits, type OpeningMemo, setMembers } from "./json-edit.ts";

/** `{ set: { [idKey]: id, [modelKey]: model } }` as JSON text. */
export function identityEdits(ctx: EncodeContext, idKey: string, modelKey: string): JsonEdits {
  const set: Record<string, string> = {};
  set[idKey] = JSON.stringify(ctx.id);
  set[modelKey] = JSON.stringify(ctx.model);
  return { set };
}

/** A stream event with the generation's id and model set (its opening reused from the last event). */
export function withIdentity(
  text: string,
  ctx: EncodeContext,
  memo: RelayMemo,
  idKey: string,
  modelKey: string,
): string {
  const identity = identityOf(ctx, memo, idKey, modelKey);
  return setMembers(text, identity.edits.set ?? {}, identity.memo);
}

/**
 * The opening of the stream's last decoded event (`prefix`, its framing before the JSON, included)
 * as the bytes an event passed on undecoded must begin with, and what replaces them, both spelled
 * one character per byte (Relay.passBytes). Undefined before the first event has been decoded, or
 * for an opening that is not plain ASCII (its bytes' latin1 view would spell it differently).
 */
export function identityOpening(
  ctx: EncodeContext,
  memo: RelayMemo,
  idKey: string,
  modelKey: string,
  prefix: string,
): { text: string; edited: string } | undefined {
  const identity = identityOf(ctx, memo, idKey, modelKey);
  const { opening, edited } = identity.memo;
  if (opening === undefined || edited === undefined) return undefined;
  if (identity.bytes?.opening !== opening)
    identity.bytes = {
      opening,
      ascii: PRINTABLE_ASCII.test(opening)
        ? { text: prefix + opening, edited: Buffer.from(prefix + edited).toString("latin1") }
        : undefined,
    };
  return identity.bytes.ascii;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The stream's identity edits, made once per model (a fallback model changes it, before any event). */
function identityOf(
  ctx: EncodeContext,
  memo: RelayMemo,
  idKey: string,
  modelKey: string,
): NonNullable<RelayMemo["identity"]> {
  const kept = memo.identity;
  if (kept && kept.model === ctx.model) return kept;
  const identity = { model: ctx.model, edits: identityEdits(ctx, idKey, modelKey), memo: {} as OpeningMemo };
  memo.identity = identity;
  return identity;
}

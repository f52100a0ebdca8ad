// Members a model refused. A translated call whose model refuses one of its members (the upstream's
// 400 names it: refused-members.ts in src/protocols/shared, gemini and anthropic) is made again
// without it, and the member is named in `x-switchyard-ignored`, as when the upstream's protocol
// cannot say it at all; an output limit over the model's is lowered to the one named instead. The
// refusal is remembered for the model (the member, only the value refused, only beside another
// member, or the limit), so that its later calls are fitted at once instead of paying the refused
// round trip, for an hour: a provider that starts to take the member again gets it within the hour,
// at the cost of one refused call. A relayed call goes as the client wrote it: the refusal is then
// the client's to read.
// docs/translation.md §9, "Members a model refuses".

import { Unsent } from "../../protocols/shared/dropped-fields.ts";
import {
  hasMember,
  memberValue,
  type Refusal,
  removeMember,
  setMember,
} from "../../protocols/shared/refused-members.ts";
import { isObject, type Json } from "../../protocols/shared/validate.ts";
import type { LimitedMember, OptionalMember } from "../../protocols/types.ts";

/** Calls made again for one request at most: each costs a round trip to the upstream. */
export const MAX_REFITS = 4;
/** Models remembered per provider; past it, the memory starts afresh (clients name the models). */
const MAX_MODELS = 1000;
/** Values of one member a model refused, remembered apart; past it, the member is refused whole. */
const MAX_VALUES = 32;
/** How long what a model refused is remembered, from its first refusal, ms. */
export const REMEMBERED_MS = 60 * 60 * 1000;

/**
 * What one model refused: members whatever their value, values (as JSON text) of others, members
 * refused only beside another (member → the other), and limits (member → the model's limit).
 */
interface Refused {
  /** When the first of these refusals was learned (epoch ms): all are forgotten together. */
  learnedAt: number;
  members: Set<string>;
  values: Map<string, Set<string>>;
  alongside: Map<string, string>;
  limits: Map<string, number>;
}

/** One member of a refusal, as it was left out of the call (or lowered). */
export interface LeftOut {
  member: string;
  /** Its value in the refused call. */
  value: unknown;
  valueOnly: boolean;
  alongside?: string;
  /** It was lowered to this limit, not left out. */
  limit?: number;
}

/** What each model of one provider refused. */
export class ModelRefusals {
  private readonly byModel = new Map<string, Refused>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  of(model: string): Refused | undefined {
    const refused = this.byModel.get(model);
    if (!refused || this.now() - refused.learnedAt < REMEMBERED_MS) return refused;
    this.byModel.delete(model);
    return undefined;
  }

  learn(model: string, { member, value, valueOnly, alongside, limit }: LeftOut): void {
    let refused = this.of(model);
    if (!refused) {
      if (this.byModel.size >= MAX_MODELS) this.byModel.clear();
      refused = {
        learnedAt: this.now(),
        members: new Set(),
        values: new Map(),
        alongside: new Map(),
        limits: new Map(),
      };
      this.byModel.set(model, refused);
    }
    if (limit !== undefined) {
      refused.limits.set(member, Math.min(limit, refused.limits.get(member) ?? limit));
      return;
    }
    if (alongside !== undefined) {
      refused.alongside.set(member, alongside);
      return;
    }
    const values = refused.values.get(member) ?? new Set<string>();
    if (!valueOnly || values.size >= MAX_VALUES) {
      refused.members.add(member);
      refused.values.delete(member);
      return;
    }
    values.add(JSON.stringify(value));
    refused.values.set(member, values);
  }
}

const NO_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map();
const NO_LIMITED: ReadonlyMap<string, LimitedMember> = new Map();

/** A translated call's body, with the members its model refuses left out. */
export class FittedBody {
  readonly body: unknown;
  private readonly optional: ReadonlyMap<string, OptionalMember>;
  private readonly limited: ReadonlyMap<string, LimitedMember>;
  /** The attempt's collector: a member left out is named there. */
  private readonly unsent: Unsent;
  /** The gateway can cut the answer at the request's stop sequences itself (src/ir/stop-sequences.ts). */
  private readonly stopsEmulable: boolean;
  /** `stop` was left out, and the gateway cuts the answer at the stop sequences instead. */
  stopLeftOut = false;

  constructor(
    body: unknown,
    members: { optional?: ReadonlyMap<string, OptionalMember>; limited?: ReadonlyMap<string, LimitedMember> },
    stopsEmulable: boolean,
    unsent: Unsent = new Unsent(),
  ) {
    this.body = body;
    this.unsent = unsent;
    this.optional = members.optional ?? NO_MEMBERS;
    this.limited = members.limited ?? NO_LIMITED;
    this.stopsEmulable = stopsEmulable;
  }

  /**
   * Leaves out what the model refused before: its refused members, members at refused values, and
   * members beside the one they were refused beside.
   */
  leaveOutRefused(refused: Refused | undefined): void {
    const body = this.body;
    if (!refused || !isObject(body)) return;
    for (const member of refused.members) this.leaveOut(member);
    for (const [member, values] of refused.values)
      if (values.has(JSON.stringify(memberValue(body, member)))) this.leaveOut(member);
    for (const [member, other] of refused.alongside) if (hasMember(body, other)) this.leaveOut(member);
    for (const [member, limit] of refused.limits) this.lower(member, limit);
  }

  /**
   * Leaves out the refused members the call holds, or lowers one over the model's limit to it: each
   * as it was left out or lowered, to be remembered.
   */
  leaveOutRefusal({ members, valueOnly, alongside, limit }: Refusal): LeftOut[] {
    const leftOut: LeftOut[] = [];
    for (const member of members) {
      const value = isObject(this.body) ? memberValue(this.body, member) : undefined;
      const fitted = limit === undefined ? this.leaveOut(member) : this.lower(member, limit);
      if (fitted) leftOut.push({ member, value, valueOnly, alongside, limit });
    }
    return leftOut;
  }

  /**
   * Lowers a limited member's value to the model's limit, and the member that must stay below it
   * (an output limit is not a field left out: nothing is named); false when there is nothing to lower.
   */
  private lower(member: string, limit: number): boolean {
    const limited = this.limited.get(member);
    const body = this.body;
    if (!limited || !isObject(body) || !Number.isInteger(limit) || limit < 1) return false;
    const value = memberValue(body, member);
    if (typeof value !== "number" || value <= limit) return false;
    setMember(body, member, limit);
    const below = limited.below === undefined ? undefined : memberValue(body, limited.below);
    if (limited.below !== undefined && typeof below === "number" && below >= limit)
      setMember(body, limited.below, limit - 1);
    return true;
  }

  /** Leaves the member out; false when the request cannot go without it, or does not hold it. */
  leaveOut(member: string): boolean {
    const optional = this.optional.get(member);
    if (!optional || !isObject(this.body) || !hasMember(this.body, member)) return false;
    const body: Json = this.body;
    removeMember(body, member);
    for (const other of optional.with ?? []) removeMember(body, other);
    if (member === "stop" && this.stopsEmulable) this.stopLeftOut = true;
    else this.unsent.addFields([optional.name]);
    return true;
  }
}

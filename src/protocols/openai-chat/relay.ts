// Chat-completions client to a chat-completions upstream: bytes relayed with targeted edits.

import { prefillText } from "../../ir/prefill.ts";
import { identityEdits, identityOpening, withIdentity } from "../shared/identity.ts";
import {
  appendJsonArrayItem,
  editJson,
  editJsonArrayItems,
  editJsonMember,
  parseObject,
  topLevelMembers,
  valueEnd,
} from "../shared/json-edit.ts";
import { CONTINUE_INSTRUCTION } from "../shared/prefill.ts";
import { measuredText, objectDataLine } from "../shared/sse.ts";
import { closingQuote, latin1Copy, startsAt } from "../shared/text.ts";
import type { EncodeContext, PassedBytes, RawSseEvent, Relay, RelayMemo, SseEvent } from "../types.ts";
import { TEXT_DELTA } from "./decode-stream.ts";
import { outputLimitField, reasoningEffort } from "./encode-request.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";
import { imagesFrom } from "./output-images.ts";
import type { ChatQuirks } from "./quirks.ts";
import { fitRelayedMessage, fitsRelayed, type RequestFields, refusedMembers } from "./request-fields.ts";

/** Request members only the gateway understands; an upstream would reject them. */
const GATEWAY_ONLY = ["provider", "model_routing_config", "usage", "reasoning"];

/** Where OpenAI-compatible upstreams put reasoning in a message or a delta (removed on `exclude`). */
const REASONING_MEMBERS = ["reasoning", "reasoning_content", "reasoning_details"];

const NO_FINGERPRINT = { system_fingerprint: "null" };

export const openaiChatRelay: Relay<ChatQuirks> = {
  request(raw, request, target, unsent) {
    const set: Record<string, string> = { model: JSON.stringify(target.model) };
    const remove = [...GATEWAY_ONLY, ...request.ignored];
    unsent.addPaths(request.ignored);
    const quirks = target.quirks ?? {};
    // The gateway always asks for streamed usage; the client sees it only if it asked (streamEvent).
    // An upstream that reports it unasked refuses the field, the client's own included.
    if (target.stream && quirks.streamUsageUnasked) remove.push("stream_options");
    else if (target.stream) set.stream_options = '{"include_usage":true}';
    // `reasoning: {enabled, effort, max_tokens}` is the gateway's field; the chat protocol's own is
    // `reasoning_effort`, mapped exactly as a translated request maps it (docs/translation.md §4).
    // `exclude` is honoured on the way back (response, streamEvent).
    const effort = reasoningEffort(request.reasoning);
    if (effort) set.reasoning_effort = JSON.stringify(effort);
    // OpenAI's reasoning models refuse the deprecated `max_tokens`; `max_completion_tokens` means the
    // same to every model (the limit, reasoning included).
    if (request.maxOutputTokens !== undefined) {
      const field = outputLimitField(quirks);
      set[field] = JSON.stringify(request.maxOutputTokens);
      remove.push(field === "max_tokens" ? "max_completion_tokens" : "max_tokens");
    }
    // An upstream that refuses some of OpenAI's members: the client's are fitted to it (request-fields.ts).
    const fields = quirks.requestFields;
    const refused = fitsRelayed(fields) ? refusedOfBody(raw, set, remove, fields) : undefined;
    if (refused) remove.push(...refused);
    let body = withoutAssistantAudio(editJson(raw, { set, remove }), request.ignored);
    if (refused && fields)
      body = editJsonArrayItems(body, "messages", (m, i) => fitRelayedMessage(m, i, fields, refused));
    // A trailing assistant message (a prefill) is answered afresh by OpenAI: ask for its continuation.
    if (prefillText(request) !== undefined)
      body = appendJsonArrayItem(
        body,
        "messages",
        JSON.stringify({ role: "user", content: CONTINUE_INSTRUCTION }),
      );
    // Named once the messages are fitted: fitting one adds the members it left out of it.
    if (refused) unsent.addPaths(refused);
    return { path: "/chat/completions", body };
  },

  response(text, ctx) {
    // `system_fingerprint` as OpenAI's answers have it, null when the upstream gave none (clients
    // such as OpenRouter's SDK require the member); the upstream's own is kept.
    const edited = editJson(text, { ...identityEdits(ctx, "id", "model"), fill: NO_FINGERPRINT });
    return excludesReasoning(ctx) ? withoutReasoning(edited, "message") : edited;
  },

  tap(text) {
    const body = parseObject(text);
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
    const usage = usageFromWire(body.usage);
    const images = imagesFrom(choice?.message?.images).length;
    if (images > 0) usage.imageOutputs = images;
    return { usage, finishReason: finishReasonFromWire(choice?.finish_reason) };
  },

  streamEvent(event: SseEvent, ctx: EncodeContext, memo: RelayMemo) {
    const end = event.crlf ? "\r\n\r\n" : "\n\n";
    const asked = ctx.request.streamUsage;
    if (event.data === "[DONE]") return `${heldUsageChunk(ctx, memo, end)}data: [DONE]${end}`;
    if (!asked && isUsageOnlyChunk(event.data)) return "";
    let data = withIdentity(event.data, ctx, memo, "id", "model");
    data = asked ? withUsageHeld(data, memo) : withoutUsage(data);
    if (excludesReasoning(ctx) && mayHoldReasoning(data)) data = withoutReasoning(data, "delta");
    return `data: ${data}${end}`;
  },

  // A stream ended after its finish without `[DONE]`: the count held back still goes last.
  streamEnd: (ctx, memo) => heldUsageChunk(ctx, memo, "\n\n"),

  // A chunk that opens like the last decoded one (same id, model, created), one data line shaped as
  // an object: its identity edit is a swap of that opening, so its bytes go on. It is decoded for the
  // meter too unless it has the shape of the stream's earlier text chunks (or of the last stream's,
  // under this stream's opening), or, before the stream has such a shape, holds nothing the meter
  // counts (contentOnly). The usage chunk the client did not ask for takes the decoding path, which
  // withholds it; so does every chunk when reasoning is removed. When the client did not ask for
  // usage, a chunk's `usage` member is cut from the bytes: the `"usage":null` the gateway's own
  // request for usage brought, or a count an upstream writes unasked (Mistral), which the tap reads.
  passBytes(event, ctx, memo) {
    // Most of a stream: a text chunk of the shape learned, under the identity it was learned with.
    const learned = memo.learned as ContentShape | undefined;
    if (learned?.holds(ctx, memo)) {
      const close = learned.textEnd(event);
      if (close >= 0) {
        learned.measure(event, close, memo);
        return learned.passedAt(close, ctx);
      }
    }
    // A count held back (withUsageHeld) is written before the end mark, decoded.
    if (isDoneLine(event)) return memo.held === undefined ? DONE_PASSED : undefined;
    if (excludesReasoning(ctx)) return undefined;
    const opening = identityOpening(ctx, memo, "id", "model", DATA);
    if (!opening) return undefined;
    // (A shape's bytes begin with the opening it was learned under.)
    const shape = learned?.opening === opening.text ? learned : undefined;
    if (!startsAt(event.view, opening.text, event.from) || !objectDataLine(event, event.from))
      return undefined;
    const opened = { replace: opening.text.length, by: opening.edited };
    const passed = ctx.request.streamUsage ? opened : withoutUsageBytes(event, opened);
    if (!passed) return undefined;
    if (!shape) {
      const known = ContentShape.ofLastStream(event, memo, opening.text, opened);
      if (known) {
        memo.learned = known;
        known.measure(event, known.textEnd(event), memo);
        return passed;
      }
      if (contentOnly(event)) {
        const first = ContentShape.of(event, memo, opening.text, opened);
        if (first) {
          memo.learned = first;
          memo.shared.learned = first.withoutOpening();
          first.measure(event, first.textEnd(event), memo);
        }
        return passed;
      }
    }
    const data = event.utf8(event.from + DATA.length, event.end);
    // A usage chunk the client did not ask for is withheld; a count on a chunk with choices, when it
    // did, is moved to the stream's end (streamEvent); the upstream's own usage chunk ends the holding.
    if (!ctx.request.streamUsage) {
      if (isUsageOnlyChunk(data)) return undefined;
    } else if (countsUsage(event)) {
      if (!isUsageOnlyChunk(data)) return undefined;
      memo.held = undefined;
    }
    return { ...passed, tap: { data } };
  },
};

/**
 * The client's members an upstream that refuses unknown ones would refuse, beyond those the relay
 * sets or removes anyway.
 */
function refusedOfBody(
  raw: string,
  set: Record<string, string>,
  remove: string[],
  fields: RequestFields,
): string[] {
  const kept = [...topLevelMembers(raw).keys()].filter(
    (key) => !Object.hasOwn(set, key) && !remove.includes(key),
  );
  return refusedMembers(kept, fields);
}

/**
 * A chunk still under way (`finish_reason` null) that holds
 * nothing the meter counts: usage (OpenAI sends `"usage":null` on every chunk when usage is asked
 * for), an error, generated images. A quoted member name cannot occur inside a string (its quotes
 * would be escaped), so a match is a member. Any other spelling (spaces after a colon, say) is
 * decoded.
 */
function contentOnly(event: RawSseEvent): boolean {
  if (event.find('"finish_reason":null') < 0 || event.find('"error"') >= 0 || event.find('"images"') >= 0)
    return false;
  const usage = event.find('"usage"');
  return usage < 0 || startsAt(event.view, '"usage":null', usage);
}

/**
 * OpenAI writes `"usage":null` on every chunk once usage is asked for, and the gateway always asks
 * (request); the real API writes no `usage` member at all when the client did not ask (its count
 * comes only in the extra last chunk of a client that asked), and some clients (OpenRouter's SDK)
 * refuse the null. An upstream that counts unasked (Mistral on its last chunk, others on every
 * chunk) is cut the same way: the meter reads the count from the upstream's bytes, not the client's.
 * Spelled with the comma before it, the member is cut as it stands; spelled otherwise (first member,
 * spaces), the chunk is decoded (streamEvent removes it).
 */
const NULL_USAGE = ',"usage":null';
const USAGE_MEMBER = ',"usage":';

/** The passed bytes with their `,"usage":…` left out; undefined when it must be decoded instead. */
function withoutUsageBytes(event: RawSseEvent, passed: PassedBytes): PassedBytes | undefined {
  const at = event.find('"usage"');
  if (at < 0) return passed;
  const { view } = event;
  const from = at - 1;
  if (from < event.from + (passed.replace ?? 0) || !startsAt(view, USAGE_MEMBER, from)) return undefined;
  // Most chunks: the null the gateway's asking brought, cut without reading a value.
  const end = startsAt(view, NULL_USAGE, from)
    ? from + NULL_USAGE.length
    : valueEnd(view, from + USAGE_MEMBER.length);
  if (end < 0 || end > event.end) return undefined;
  return { ...passed, without: { from, end } };
}

/** The chunk without its `usage` member (the client did not ask for usage). */
function withoutUsage(data: string): string {
  const at = data.indexOf('"usage"');
  if (at < 0) return data;
  // Cut as the fast path cuts it (withoutUsageBytes), without reading the chunk's members.
  if (startsAt(data, NULL_USAGE, at - 1))
    return data.slice(0, at - 1) + data.slice(at - 1 + NULL_USAGE.length);
  return editJson(data, { remove: ["usage"] });
}

/** A chunk's `usage` is a count, not null (OpenAI's null on every chunk of a client that asked). */
function countsUsage(event: RawSseEvent): boolean {
  const at = event.find('"usage"');
  return at >= 0 && !startsAt(event.view, '"usage":null', at);
}

/**
 * A client that asked for usage gets it as OpenAI writes it: `"usage":null` on every chunk with
 * choices and the count on a last chunk of its own (`choices: []`), which some clients rely on
 * (LangChain adds up the usage of every chunk). An upstream that writes its count on a chunk with
 * choices (Mistral on its last, others on every one) has it held back, the latest count only, and
 * written in such a chunk before the end mark (heldUsageChunk).
 */
function withUsageHeld(data: string, memo: RelayMemo): string {
  const at = data.indexOf('"usage"');
  if (at < 0 || startsAt(data, '"usage":null', at)) return data;
  if (isUsageOnlyChunk(data)) {
    memo.held = undefined; // the upstream's own last chunk of usage: nothing to move there
    return data;
  }
  const usage = topLevelMembers(data, ["usage"]).get("usage");
  if (!usage) return data;
  const count = data.slice(usage.valueStart, usage.end);
  if (count === "null") return data;
  memo.held = count;
  return editJson(data, { set: { usage: "null" } });
}

/** The usage chunk for the count held back (withUsageHeld), or nothing when none is held. */
function heldUsageChunk(ctx: EncodeContext, memo: RelayMemo, end: string): string {
  const count = memo.held as string | undefined;
  if (count === undefined) return "";
  memo.held = undefined;
  const identity = `"id":${JSON.stringify(ctx.id)},"object":"chat.completion.chunk","created":${ctx.created}`;
  return `data: {${identity},"model":${JSON.stringify(ctx.model)},"choices":[],"usage":${count}}${end}`;
}

const DONE_LINE = "data: [DONE]";
/** The end mark goes on as it came; the tap is told of it as it would be had it been decoded. */
const DONE_PASSED: PassedBytes = { tap: { data: "[DONE]" } };

function isDoneLine({ view, from, end }: RawSseEvent): boolean {
  return end - from === DONE_LINE.length && startsAt(view, DONE_LINE, from);
}

const DATA = "data: ";

/**
 * A content shape without its stream's opening: the prefix's rest, and the tail (ContentShape). The
 * last one learned is kept for the next stream (RelayMemo.shared), which tries it first
 * (ContentShape.ofLastStream), since an upstream writes every stream's text chunks alike.
 */
interface ShapeAfterOpening {
  middle: string;
  tail: string;
  afterPadding: string | undefined;
}

/**
 * OpenAI pads every streamed chunk with a string of random length (`stream_options.include_obfuscation`,
 * on unless turned off): a shape holds it as a slot, like the text, or no two chunks would fit it.
 */
const PADDING = '"obfuscation":"';

/**
 * A text chunk as everything but its text: the bytes before the content string (opening included)
 * and after it. A chunk with the same bytes around a string free of quotes and line ends holds what
 * the chunk it was learned from held, so it is content only; checking that takes two comparisons
 * and two short searches instead of a search per member name. (Not a RegExp: every stream has an id
 * of its own, so each would compile one.)
 */
class ContentShape {
  /** The identity opening the shape was learned under (a new one means another shape). */
  readonly opening: string;
  /** What a chunk of this shape is written as: its opening swapped for the edited one. */
  readonly passed: PassedBytes;
  /** `data: {…"delta":{"content":"` */
  private readonly prefix: string;
  /** `"},"logprobs":null,"finish_reason":null}]…}`, or up to the padding's opening quote when padded */
  private readonly tail: string;
  /** A padded chunk's bytes after its padding, from the padding's closing quote: `"}` */
  private readonly afterPadding: string | undefined;
  /** Where the tail's `,"usage":null` begins in it, or -1: cut from the bytes when the client did not ask. */
  private readonly nullUsage: number;
  /** The identity edits (identity.ts) in force when it was learned, and their memo's opening then. */
  private readonly identity: RelayMemo["identity"];
  private readonly memoOpening: string | undefined;

  private constructor(
    memo: RelayMemo,
    opening: string,
    passed: PassedBytes,
    prefix: string,
    tail: string,
    afterPadding: string | undefined,
  ) {
    this.opening = opening;
    this.passed = passed;
    this.prefix = prefix;
    this.tail = tail;
    this.afterPadding = afterPadding;
    this.nullUsage = tail.indexOf(NULL_USAGE);
    this.identity = memo.identity;
    this.memoOpening = memo.identity?.memo.opening;
  }

  /** The shape of a content-only chunk whose delta is its text alone; undefined for any other. */
  static of(
    event: RawSseEvent,
    memo: RelayMemo,
    opening: string,
    passed: PassedBytes,
  ): ContentShape | undefined {
    const { view, from, end } = event;
    const key = event.find(TEXT_DELTA);
    if (key < 0) return undefined;
    const start = key + TEXT_DELTA.length;
    const close = closingQuote(view, start);
    if (close >= end) return undefined;
    const prefix = latin1Copy(view.slice(from, start));
    // A null usage is cut only where it stands in the tail, before any padding (passedAt).
    if (prefix.includes('"usage"')) return undefined;
    // (A member name: its quotes would be escaped inside a string.)
    const padding = view.slice(close, end).indexOf(PADDING);
    if (padding < 0)
      return new ContentShape(memo, opening, passed, prefix, latin1Copy(view.slice(close, end)), undefined);
    const paddingStart = close + padding + PADDING.length;
    const paddingEnd = closingQuote(view, paddingStart);
    if (paddingEnd >= end) return undefined;
    const tail = latin1Copy(view.slice(close, paddingStart));
    const afterPadding = latin1Copy(view.slice(paddingEnd, end));
    if (afterPadding.includes('"usage"')) return undefined;
    return new ContentShape(memo, opening, passed, prefix, tail, afterPadding);
  }

  /**
   * The last stream's shape under this stream's opening, when this chunk fits it: its bytes are then
   * those of a content-only chunk but for the text, as if learned here (without searching it).
   */
  static ofLastStream(
    event: RawSseEvent,
    memo: RelayMemo,
    opening: string,
    passed: PassedBytes,
  ): ContentShape | undefined {
    const last = memo.shared.learned as ShapeAfterOpening | undefined;
    if (!last) return undefined;
    const shape = new ContentShape(
      memo,
      opening,
      passed,
      opening + last.middle,
      last.tail,
      last.afterPadding,
    );
    return shape.fits(event) ? shape : undefined;
  }

  /** The shape after the opening: what another stream of the same upstream may share. */
  withoutOpening(): ShapeAfterOpening {
    const middle = latin1Copy(this.prefix.slice(this.opening.length));
    return { middle, tail: this.tail, afterPadding: this.afterPadding };
  }

  /**
   * Whether the identity opening is still the one the shape was learned under: the same edits (the
   * model unchanged) and the same opening remembered (a decoded event may have changed it).
   */
  holds(ctx: EncodeContext, memo: RelayMemo): boolean {
    const identity = memo.identity;
    return (
      identity === this.identity &&
      identity?.model === ctx.model &&
      identity.memo.opening === this.memoOpening
    );
  }

  /** Counts the text of a chunk of this shape (its bytes, escapes as written) for RelayMemo.measured. */
  measure(event: RawSseEvent, close: number, memo: RelayMemo): void {
    measuredText(memo, close - event.from - this.prefix.length);
  }

  /** What a chunk of this shape whose text closes at `close` is written as. */
  passedAt(close: number, ctx: EncodeContext): PassedBytes {
    if (ctx.request.streamUsage || this.nullUsage < 0) return this.passed;
    const from = close + this.nullUsage;
    return { ...this.passed, without: { from, end: from + NULL_USAGE.length } };
  }

  fits(event: RawSseEvent): boolean {
    return this.textEnd(event) >= 0;
  }

  /** Where a chunk of this shape closes its text (the quote), or -1 when the chunk is not of it. */
  textEnd({ view, from, end }: RawSseEvent): number {
    const start = from + this.prefix.length;
    // The text's first quote is its closing one, not escaped, and no line ends before the event's end;
    // a padding after it is held to the same rule.
    const close = view.indexOf('"', start);
    const padded = this.afterPadding !== undefined;
    const last = padded ? view.indexOf('"', close + this.tail.length) : close;
    const rest = this.afterPadding ?? this.tail;
    const fits =
      last + rest.length === end &&
      view.charCodeAt(close - 1) !== BACKSLASH &&
      (!padded || view.charCodeAt(last - 1) !== BACKSLASH) &&
      view.indexOf("\n", start) === end &&
      startsAt(view, this.prefix, from) &&
      startsAt(view, this.tail, close) &&
      (!padded || startsAt(view, rest, last));
    return fits ? close : -1;
  }
}

const BACKSLASH = 0x5c;

/** Removes `audio` from the messages the client face named (`messages[i].audio`, decode-request.ts). */
function withoutAssistantAudio(body: string, ignored: string[]): string {
  const named = new Set<number>();
  for (const name of ignored) {
    const match = /^messages\[(\d+)\]\.audio$/.exec(name);
    if (match) named.add(Number(match[1]));
  }
  if (named.size === 0) return body;
  return editJsonArrayItems(body, "messages", (message, i) =>
    named.has(i) ? editJson(message, { remove: ["audio"] }) : message,
  );
}

function excludesReasoning(ctx: EncodeContext): boolean {
  return ctx.request.reasoning?.exclude === true;
}

/** A cheap test before the edit: most chunks of a long answer carry only content. */
function mayHoldReasoning(data: string): boolean {
  return data.includes('"reasoning') || data.includes("\\u");
}

/** The answer with each choice's `message` (or stream `delta`) stripped of its reasoning. */
function withoutReasoning(text: string, holder: "message" | "delta"): string {
  return editJsonArrayItems(text, "choices", (choice) =>
    choice.startsWith("{") ? editJsonMember(choice, holder, { remove: REASONING_MEMBERS }) : choice,
  );
}

/** The chunk that carries only usage (`choices: []`), sent because the gateway asked for it. */
function isUsageOnlyChunk(data: string): boolean {
  return data.includes('"choices":[]') || /"choices"\s*:\s*\[\s*\]/.test(data);
}

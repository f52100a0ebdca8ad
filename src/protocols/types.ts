// What every wire-protocol module offers. A module is used both ways: as the client face it decodes
// requests and encodes responses and streams; as an upstream it encodes requests and decodes
// responses and streams. Protocols never import one another; they meet only in the IR.

import type { EmbeddingInput, EmbeddingRequest, EmbeddingResponse } from "../ir/embeddings.ts";
import type { GatewayError } from "../ir/errors.ts";
import type { Request } from "../ir/request.ts";
import type { FinishReason, Response } from "../ir/response.ts";
import type { StreamEvent } from "../ir/stream.ts";
import type { Usage } from "../ir/usage.ts";
import type { SettingsEcho } from "./openai-responses/settings-echo.ts";
import type { DroppedField, Unsent } from "./shared/dropped-fields.ts";
import type { JsonEdits, OpeningMemo } from "./shared/json-edit.ts";
import type { Refusal } from "./shared/refused-members.ts";

export type ProtocolName = "openai-chat" | "anthropic" | "gemini" | "openai-responses";

/** A request's headers as node:http gives them (named so as not to shadow the global `Headers`). */
export type IncomingHeaders = Record<string, string | string[] | undefined>;

export interface DecodeContext {
  headers: IncomingHeaders;
  /** content-generation: the model named in the path (`google/gemini-2.5-pro`, `gemini-2.5-pro`). */
  pathModel?: string;
  /** content-generation: true for `:streamGenerateContent`. */
  pathStream?: boolean;
  /**
   * messages: `anthropic-version` values served besides 2023-06-01, with its semantics (the
   * operator's `clients.anthropic_versions`).
   */
  anthropicVersions?: ReadonlySet<string>;
}

export interface EncodeContext {
  /** The generation id: the response `id` / `responseId`. */
  id: string;
  /** The catalog model id the client asked for. */
  model: string;
  /** Unix seconds of the request's arrival (chat `created`). */
  created: number;
  /** The decoded client request (for `streamUsage`, reasoning exclusion, tool names…). */
  request: Request;
  /** The Responses API's memory: whether the answer is stored, and the response or conversation it continues. */
  memory?: {
    store: boolean;
    previousResponseId?: string;
    conversationId?: string;
    truncation: "auto" | "disabled";
    background?: boolean;
    /** The settings the answer repeats that the IR has no place for (openai-responses/settings-echo.ts). */
    settings?: SettingsEcho;
  };
}

/**
 * What a relay remembers while it edits one relayed stream: made for each stream by the relayed
 * route (src/gateway/relay-fast-path.ts), never shared between streams, so no relay keeps state of
 * its own. `shared` alone is common to every stream of the relay in this process: what one stream
 * learned that the next may try first (the chat relay's text chunk shape).
 */
export interface RelayMemo {
  /**
   * The id/model edits, made once per model (a fallback model changes it once, before any event),
   * and the opening of the stream's last decoded event with them applied (shared/identity.ts).
   */
  identity?: {
    model: string;
    edits: JsonEdits;
    memo: OpeningMemo;
    /** The memo's opening as bytes (identity.ts identityOpening), for the opening it was made from. */
    bytes?: { opening: string; ascii: { text: string; edited: string } | undefined };
  };
  /** What the relay learned of this stream's events (Relay.passBytes). */
  learned?: unknown;
  /** What the relay learned of the last stream, for the next to try (Relay.passBytes). */
  readonly shared: { learned?: unknown };
  /**
   * The text of content events passed undecoded, where the relay measured it (chat's text chunks, messages' content deltas):
   * its bytes, in how many events. Read only when a stream is cut before its usage
   * (src/gateway/relay-stream.ts `undecodedOutputTokens`).
   */
  measured?: { bytes: number; events: number };
  /** What the relay holds back to write later in the stream (chat: a count moved to its last chunk). */
  held?: unknown;
}

/** One SSE event as read from an upstream stream. */
export interface SseEvent {
  event?: string;
  data: string;
  /** The upstream ends its lines with CRLF (Google does): a relay frames the event the same way. */
  crlf?: boolean;
}

/** A relayed stream's event as the upstream's bytes (src/gateway/relay-stream.ts). */
export interface RawSseEvent {
  /** The network read's bytes as a one-byte (latin1) string: an index into it is a byte offset. */
  readonly view: string;
  /** Where the event begins in `view`. */
  readonly from: number;
  /** Where its last line ends: the first of the two line feeds that end the event. */
  readonly end: number;
  /** Where `text` (plain ASCII) first occurs within the event, or -1. */
  find(text: string): number;
  /** The bytes from `from` to `to` (offsets into `view`) decoded as UTF-8. */
  utf8(from: number, to: number): string;
}

/** What a relay writes for an event it passes on as bytes (Relay.passBytes). */
export interface PassedBytes {
  /**
   * The event's first `replace` bytes are written as `by` (the identity opening), given as its
   * bytes' one-byte (latin1) spelling, like the view it replaces part of; none if absent.
   */
  replace?: number;
  by?: string;
  /**
   * Bytes of the event left out, as view positions [from, end) after the replaced opening: a member
   * the client must not see (chat's `"usage":null` when it did not ask for usage).
   */
  without?: { from: number; end: number };
  /** The event carries what the meter reads (usage, a finish): it is decoded for the tap too. */
  tap?: SseEvent;
}

export interface StreamEncoder {
  /** The SSE text to write for this event (may be empty). */
  encode(event: StreamEvent): string;
  /** The SSE text that closes the stream (chat `data: [DONE]`). */
  end(): string;
  /**
   * A relay wrote these bytes to the client, the upstream's own events (spelled one character per
   * byte): what this encoder writes next must continue them, as a stream that fails is ended
   * through the encoder (src/gateway/relay-stream.ts). Only an encoder whose events carry state
   * across the stream needs it: the Responses API's opening and sequence numbers.
   */
  follow?(written: string): void;
}

export interface StreamDecoder {
  decode(event: SseEvent): StreamEvent[];
  /** Called when the upstream stream ends; returns what was pending (or an error event if cut short). */
  end(): StreamEvent[];
}

export interface UpstreamCall {
  /** Path appended to the provider's base URL (with query, e.g. `?alt=sse`). */
  path: string;
  body: unknown;
}

/** What a face's model checks read of the catalog model a request resolved to. */
export interface ModelTraits {
  /** `<provider>/<model_name>`. */
  id: string;
  reasoning: boolean;
  /** Tokens of prompt and output together the model takes. */
  contextLength?: number;
  /** The upstream names it is served under. */
  endpoints: ReadonlyArray<{ model: string }>;
}

export interface ClientFace {
  decodeRequest(body: unknown, ctx: DecodeContext): Request;
  /**
   * Checks that need the model the request resolved to (a setting that model cannot take): throws
   * a 400 naming the field as the client wrote it. Called once the model is known, before any call.
   */
  checkModel?(request: Request, model: ModelTraits): void;
  encodeResponse(response: Response, ctx: EncodeContext): unknown;
  streamEncoder(ctx: EncodeContext): StreamEncoder;
  encodeError(error: GatewayError): { status: number; body: unknown };
  /** Why a generation stopped, in the words this protocol's answers use (the generation lookup's). */
  finishReasonName(reason: FinishReason): string;
  /** The request member holding the prompt: what an error about the whole prompt names (ir/errors.ts, PROMPT). */
  promptField: string;
}

export interface UpstreamFace {
  /**
   * The protocol takes no request without a conversation turn: a system prompt alone is refused
   * (messages: "at least one message is required"; content-generation: "contents is not specified").
   * A translated request without one is a 400 before any call (src/providers/translated/call.ts).
   */
  needsTurn?: true;
  /**
   * The protocol has no stop sequences: the translated call cuts the answer at them itself
   * (src/ir/stop-sequences.ts) when there are few enough to search for (`canEmulateStops`).
   */
  lacksStopSequences?: true;
  /**
   * The tool names the protocol takes: a translated request's others are fitted to it, and the
   * answer's calls named back (src/ir/tool-names.ts).
   */
  toolNames?: RegExp;
  /**
   * The most stop sequences the protocol takes: past it the encoder sends none, and the translated call
   * cuts at all of them (`cutsStopsItself`, src/ir/stop-sequences.ts).
   */
  maxStopSequences?: number;
  /**
   * The call for a request. What the protocol cannot express is left out and named in `unsent`, the
   * attempt's collector, in the vocabulary of docs/translation.md §9 (`top_k`, `cache_control`…), by
   * the branch that leaves it out; a caller that wants the body alone (token counting) passes none.
   */
  encodeRequest(request: Request, target: UpstreamTarget, unsent?: Unsent): UpstreamCall;
  decodeResponse(body: unknown): Response;
  streamDecoder(): StreamDecoder;
  /** An upstream error answer in this protocol, as a GatewayError keeping the upstream status. */
  decodeError(status: number, body: unknown, headers: IncomingHeaders): GatewayError;
  /**
   * The member of this protocol's request body an upstream's error answer says the model refuses
   * (whatever its value, or the value sent), if it is such an answer
   * (src/protocols/shared/refused-members.ts).
   */
  refusedMember?(status: number, body: unknown): Refusal | undefined;
  /**
   * The members a model may refuse that a translated request can go without: the translated call
   * leaves one so refused out and asks again (src/providers/translated/refusals.ts).
   */
  optionalMembers?: ReadonlyMap<string, OptionalMember>;
  /**
   * The members (an output limit) that go lowered to the model's limit when the upstream refuses
   * them as over it and names the limit (src/providers/translated/refusals.ts).
   */
  limitedMembers?: ReadonlyMap<string, LimitedMember>;
}

/** A member whose value may go lowered to a limit the upstream names (UpstreamFace.limitedMembers). */
export interface LimitedMember {
  /** A member that must then stay below it (Anthropic's `thinking.budget_tokens` below `max_tokens`). */
  below?: string;
}

/** A request member a model may refuse, which the request can go without (UpstreamFace.optionalMembers). */
export interface OptionalMember {
  /** How it is named in `x-switchyard-ignored` once left out. */
  name: DroppedField;
  /** Members left out with it: they mean nothing without it (`top_logprobs` without `logprobs`). */
  with?: readonly string[];
}

/**
 * Token counting as this protocol's API offers it (`POST /v1/messages/count_tokens`,
 * `models/{m}:countTokens`, `POST /v1/responses/input_tokens`): the client face's endpoint, and the
 * upstream's own counter. A protocol without one (chat-completions) leaves it out.
 */
export interface TokenCounting {
  /**
   * Client face: the counting endpoint's body → the IR request it counts the prompt of. The model is
   * "" when the body names none (the Responses API's is optional).
   */
  decodeCountRequest(body: unknown, ctx: DecodeContext): Request;
  /** Client face: the endpoint's answer. */
  encodeCount(inputTokens: number): unknown;
  /** Upstream face: the call to the upstream's counter for this request (path and body). */
  encodeCountRequest(request: Request, target: { model: string }): { path: string; body: unknown };
  /** Upstream face: the count in the counter's answer; throws when the answer holds none. */
  decodeCount(body: unknown): number;
}

/**
 * Embeddings as this protocol's API offers them (OpenAI `POST /embeddings`, Gemini `:embedContent`
 * and `:batchEmbedContents`): the client face's endpoints, and the upstream's (src/gateway/embeddings.ts).
 */
export interface Embeddings {
  /** Client face: an embedding body → IR. `single`: Gemini's `:embedContent`, one input. */
  decodeEmbedRequest(body: unknown, ctx: DecodeContext & { single?: boolean }): EmbeddingRequest;
  /** Client face: the answer, naming `model` (the catalog model that answered) and the prompt's tokens. */
  encodeEmbedResponse(
    response: { vectors: number[][]; promptTokens: number },
    request: EmbeddingRequest,
    model: string,
  ): unknown;
  /** Upstream face: the most inputs one call takes (OpenAI 2048, Gemini 100); more are split. */
  batchLimit: number;
  /** Upstream face: token-id inputs are taken (OpenAI's are); else they are a 400 naming the input field. */
  takesTokenIds: boolean;
  /**
   * Upstream face: one call for a batch of the request's inputs (at most `batchLimit`); what it
   * cannot say (`taskType`, `title`, `user`) is named in `unsent`, as `encodeRequest` does.
   */
  encodeEmbedRequest(
    request: EmbeddingRequest,
    inputs: readonly EmbeddingInput[],
    target: { model: string },
    unsent?: Unsent,
  ): UpstreamCall;
  /** Upstream face: the vectors of one call's answer, in the order of its inputs. */
  decodeEmbedResponse(body: unknown): EmbeddingResponse;
  /**
   * Same protocol in and out, in one call: the client's bytes go upstream and the upstream's come
   * back with targeted edits (src/gateway/embeddings.ts), as a generation's relay does.
   */
  relay?: EmbeddingRelay;
}

/** The upstream face of an embedding API alone: a cloud's own embedding call has no client face (src/providers/platforms/embeddings.ts). */
export type UpstreamEmbeddings = Pick<
  Embeddings,
  "batchLimit" | "takesTokenIds" | "encodeEmbedRequest" | "decodeEmbedResponse"
>;

export interface EmbeddingRelay {
  /** The client's body for the upstream: its model name, members the upstream must not see removed. */
  request(raw: string, request: EmbeddingRequest, target: { model: string }): { path: string; body: string };
  /**
   * The upstream's answer for the client: the catalog model named. `text` spells the answer's bytes
   * one per character (latin1), never decoded; so does what it returns.
   */
  response(text: string, model: string): string;
  /** The prompt tokens the answer (latin1, as above) reports, if it does; a SyntaxError when it is not a JSON object. */
  promptTokens(text: string): number | undefined;
}

/** The upstream face of a token counter: the call to make, the count in its answer. */
export type UpstreamCounting = Pick<TokenCounting, "encodeCountRequest" | "decodeCount">;

export interface Protocol extends ClientFace, UpstreamFace {
  name: ProtocolName;
  tokenCounting?: TokenCounting;
  embeddings?: Embeddings;
}

/**
 * What an upstream call is encoded for: the model as the upstream names it, and what the catalog and
 * the provider say of it.
 */
export interface UpstreamTarget<Quirks = unknown> {
  model: string;
  stream: boolean;
  /** The catalog's output limit (a protocol that requires a limit uses it when the client gave none). */
  maxOutputTokens?: number;
  /** The catalog says the model reasons (OpenAI's o-series and gpt-5, say). */
  reasoningModel?: boolean;
  /**
   * The gateway keeps the answer for a later turn to send back (the Responses API's memory: stored,
   * or appended to a conversation; docs/responses.md §3): a relay asks its upstream for what that
   * turn will need (a Responses upstream: reasoning's `encrypted_content`).
   */
  kept?: boolean;
  /**
   * What this provider does otherwise than its protocol's reference API, as the protocol module
   * types it (chat-completions: `ChatQuirks`, openai-chat/quirks.ts); absent for none.
   */
  quirks?: Quirks;
}

/**
 * Same protocol in and out: the client's bytes go upstream with targeted edits only, and the
 * upstream's bytes come back the same way; nothing the gateway does not know is lost (docs/translation.md).
 */
export interface Relay<Quirks = unknown> {
  /**
   * The upstream call: the client's body with only the model (and gateway-only fields) changed.
   * What it removes of the client's body is named in `unsent` as the client's paths: the fields the
   * client face set aside (`Request.ignored`) for chat, a few the spec refuses for messages, the
   * members this provider refuses (its quirks); nothing for a relay that forwards every byte.
   */
  request(
    raw: string,
    request: Request,
    target: UpstreamTarget<Quirks>,
    unsent: Unsent,
  ): { path: string; body: string };
  /** Client headers the upstream needs as well (the messages protocol's betas). */
  headers?(clientHeaders: IncomingHeaders): Record<string, string>;
  /** A whole response body with the id and model replaced. */
  response(text: string, ctx: EncodeContext): string;
  /** One upstream SSE event, framed again with targeted edits; "" withholds it. */
  streamEvent(event: SseEvent, ctx: EncodeContext, memo: RelayMemo): string;
  /**
   * What the relay still holds for the client (RelayMemo.held) when the upstream's stream ended whole
   * without the event it would have gone before (chat's `[DONE]`); "" or undefined for nothing.
   */
  streamEnd?(ctx: EncodeContext, memo: RelayMemo): string;
  /**
   * A stream event whose edit is at most a swap of its opening, as a single data line shaped as a
   * JSON object: it goes on as the upstream's bytes, the opening swapped. One that carries only
   * generated content (a piece of text or of tool arguments) is not decoded: the meter needs it only
   * as a sign that tokens flow. One that carries what the meter reads (usage, a finish) is decoded
   * for the tap too (`tap`). Undefined, the default whenever in doubt, has it decoded and framed
   * again by `streamEvent` (docs/architecture.md §4).
   */
  passBytes?(event: RawSseEvent, ctx: EncodeContext, memo: RelayMemo): PassedBytes | undefined;
  /**
   * What the meter needs of a whole relayed answer (usage, finish reason), read without decoding the
   * whole body. Throws SyntaxError when the body is not a JSON object.
   */
  tap(text: string): { usage: Usage; finishReason: FinishReason };
}

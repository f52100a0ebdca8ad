// The Responses API's memory (docs/responses.md): what a stored response keeps, how a continuation
// (`previous_response_id`, `conversation`, `item_reference`) becomes the whole input before the
// request is decoded, and how an answer is stored before it is released (background runs:
// background.ts; conversations: conversations.ts). Working on the request body, ahead of any
// protocol choice, makes a continuation reach every upstream the same way: a translated one gets the
// whole conversation in its own shape, a relayed Responses upstream the whole input (never our id).

import { GatewayError, invalid } from "../ir/errors.ts";
import type { Request } from "../ir/request.ts";
import { storableText } from "../ledger/columns.ts";
import { ContentSeal, newSealKey } from "../ledger/content-seal.ts";
import type { ConversationStore } from "../ledger/conversations-types.ts";
import { type ResponseStore, RUNNING_STATUSES, type StoredResponseRow } from "../ledger/responses-types.ts";
import { responseObject } from "../protocols/openai-responses/output-items.ts";
import { type SettingsEcho, settingsEcho } from "../protocols/openai-responses/settings-echo.ts";
import { isObject } from "../protocols/shared/validate.ts";
import type { EncodeContext } from "../protocols/types.ts";
import { BackgroundRuns } from "./background.ts";
import { CompactionResponder, expandCompaction } from "./compaction.ts";
import { Conversations, conversationNotFound, storedItem } from "./conversations.ts";
import type { WarningLogger } from "./logger.ts";
import { countPromptTokens } from "./prompt-tokens.ts";
import type { HeaderMap, Responder } from "./responder.ts";
import type { Piece, WholeAnswer } from "./route.ts";
import { utf8Of } from "./run-events.ts";
import { responseNotFound } from "./stored-responses.ts";

type Json = Record<string, unknown>;

/** What a stored response keeps: this turn's own input items (with ids) and the response object. */
export interface StoredContent {
  input: Json[];
  response: Json;
  /** A background run streamed: its events are kept for a resume (run-events.ts). */
  events?: true;
}

/** One request's part in the memory, found before it is decoded. */
export interface Turn {
  /** `store` (default true, as OpenAI's). */
  store: boolean;
  previousResponseId?: string;
  /** The conversation it continues and is appended to (`conversation`). */
  conversationId?: string;
  /** This turn's own input as items, ids not yet given. */
  input: Json[];
  /** It continues a response or conversation, or refers to stored items: `resolve` reads them. */
  refers: boolean;
  /** `background: true`: answered at once, run detached (src/gateway/background.ts). */
  background: boolean;
  /** `stream: true`. */
  stream: boolean;
  /** `truncation: "auto"`: the oldest items go when the prompt is longer than the context window. */
  truncate: boolean;
  /** The body to decode and send: the stored chain and referenced items put in; undefined when unchanged. */
  rewritten?: Json;
  /** The settings the response object repeats as the client sent them. */
  settings: SettingsEcho;
}

/** The longest chain followed: deeper than any real conversation, short of a loop's cost. */
const MAX_CHAIN = 10_000;
/** The name of the deployment's secret that seals compaction items when no key is configured. */
const COMPACTION_SECRET = "compaction";
const TERMINAL_EVENTS = ["response.completed", "response.incomplete", "response.failed"];

export class ResponseMemory {
  readonly store: ResponseStore;
  readonly conversations: Conversations;
  readonly background: BackgroundRuns;
  private readonly seal: ContentSeal;
  private readonly log: WarningLogger;
  /** The seal of compaction items, once the store has given the secret (compactionSeal). */
  private compactionSealing: Promise<ContentSeal> | undefined;

  constructor(
    stores: { responses: ResponseStore; conversations: ConversationStore; owner: string },
    seal: ContentSeal,
    log: WarningLogger,
  ) {
    this.store = stores.responses;
    this.conversations = new Conversations(stores.conversations, seal);
    this.background = new BackgroundRuns(this, stores.owner, { store: this.store, seal, log });
    this.seal = seal;
    this.log = log;
  }

  /**
   * A Responses request's body → its turn, without a look at the store. A body the decoder will
   * refuse anyway (not an object, `input` of a wrong type) is left to it.
   */
  turnOf(body: unknown): Turn | undefined {
    if (!isObject(body)) return undefined;
    const turn: Turn = {
      store: body.store !== false,
      truncate: body.truncation === "auto",
      background: body.background === true,
      stream: body.stream === true,
      input: inputItems(body.input) ?? [],
      refers: false,
      settings: settingsEcho(body),
    };
    const previous = body.previous_response_id;
    if (previous !== undefined && previous !== null && typeof previous !== "string")
      throw invalid("previous_response_id", "must be a string");
    if (previous) turn.previousResponseId = storableText("previous_response_id", previous);
    const conversation = conversationIdOf(body.conversation);
    if (conversation && previous)
      throw invalid("conversation", "cannot be used together with previous_response_id");
    if (conversation) {
      turn.conversationId = storableText("conversation", conversation);
      // The turn's items will be rows of the conversation, looked up by their ids.
      turn.input.forEach((item, i) => {
        if (typeof item.id === "string") storableText(`input[${i}].id`, item.id);
      });
    }
    turn.refers =
      !!turn.previousResponseId ||
      !!turn.conversationId ||
      turn.input.some((item) => item.type === "item_reference" || item.type === "compaction");
    // `background` is this gateway's to serve: an upstream, relayed to, would answer it queued.
    if (turn.background && !turn.refers) turn.rewritten = withoutMemoryFields(body);
    return turn;
  }

  /**
   * `POST /v1/responses/compact`: the responder that answers the summarising generation's result
   * as the compacted window: the turn's input once its chain is put in, then the compaction item.
   */
  async compactionResponder(out: Responder, accountId: string, turn: Turn): Promise<Responder> {
    const window = () =>
      Array.isArray(turn.rewritten?.input) ? (turn.rewritten.input as Json[]) : turn.input;
    return new CompactionResponder(out, await this.compactionSeal(), accountId, window);
  }

  /**
   * What seals compaction items: storage.encryption_key, else the deployment's own secret, made
   * once and kept in the store, so that every process sharing it seals and opens alike. An item is
   * sealed either way: one a client made or altered is never expanded into the conversation.
   */
  private compactionSeal(): Promise<ContentSeal> {
    if (this.seal.sealing) return Promise.resolve(this.seal);
    this.compactionSealing ??= this.store.secret(COMPACTION_SECRET, newSealKey()).then(
      (key) => new ContentSeal([key]),
      (err: unknown) => {
        // Asked again next time: the store may be back.
        this.compactionSealing = undefined;
        throw err;
      },
    );
    return this.compactionSealing;
  }

  /** A turn that refers to stored state: the chain or conversation and referenced items put in (`rewritten`). */
  async resolve(turn: Turn, body: Json, accountId: string): Promise<void> {
    turn.input = (await this.resolveReferences(turn.input, accountId)) ?? turn.input;
    const history = await this.history(turn, accountId);
    turn.rewritten = { ...withoutMemoryFields(body), input: [...history, ...turn.input] };
  }

  /** What comes before the turn's input: the chain it continues, or its conversation's items. */
  private async history(turn: Turn, accountId: string): Promise<Json[]> {
    if (turn.previousResponseId) return this.chain(turn.previousResponseId, accountId);
    if (!turn.conversationId) return [];
    const items = await this.conversations.items(turn.conversationId, accountId).catch((err: unknown) => {
      if (err instanceof GatewayError && err.kind === "not_found")
        throw conversationNotFound(turn.conversationId!, "conversation");
      throw err;
    });
    return items.map(replayable);
  }

  /**
   * `truncation: "auto"`: while the prompt is longer than the context window (counted as the local
   * models count, src/gateway/prompt-tokens.ts), the oldest input items are dropped, in proportion
   * to the excess so that a long chain takes a round or two, then any item that would open the
   * conversation without its turn (a tool output, reasoning, an answer) up to the next user message.
   * The last item always stays: a prompt still too long is the usual 400. Undefined when nothing went.
   */
  async fit(
    body: unknown,
    contextLength: number,
    request: Request,
    decode: (body: Json) => Request,
  ): Promise<{ body: Json; request: Request } | undefined> {
    if (!isObject(body) || !Array.isArray(body.input)) return undefined;
    let items: unknown[] = body.input;
    let fitted: { body: Json; request: Request } | undefined;
    for (let count = await countPromptTokens(request); count > contextLength && items.length > 1; ) {
      items = withoutOldest(items, (count - contextLength) / count);
      const next: Json = { ...body, input: items };
      fitted = { body: next, request: decode(next) };
      count = await countPromptTokens(fitted.request);
    }
    return fitted;
  }

  /** The stored response, opened; undefined when the account has none of that id. */
  async read(id: string, accountId: string): Promise<StoredContent | undefined> {
    const row = await this.store.getResponse(id, accountId);
    return row && this.open(row);
  }

  /**
   * The turn's response, stored (`store`) and, once answered, appended to its conversation with its
   * input: both committed when this resolves. `owner`: a background run's process.
   */
  async save(turn: Turn, response: Json, accountId: string, owner?: string): Promise<void> {
    const id = String(response.id);
    const input = turn.input.map((item, i) => storedItem(item, `${id.replace(/^gen-/, "")}_in${i}`));
    response.store = turn.store;
    response.background = turn.background;
    response.previous_response_id = turn.previousResponseId ?? null;
    if (turn.conversationId) response.conversation = { id: turn.conversationId };
    const answered = response.status === "completed" || response.status === "incomplete";
    if (turn.conversationId && answered)
      await this.conversations.append(turn.conversationId, accountId, [...input, ...outputOf(response)]);
    const content: StoredContent = { input, response };
    if (turn.background && turn.stream) content.events = true;
    if (turn.store) await this.saveRow(content, accountId, owner);
  }

  /** A stored response's object replaced (a background run cancelled or failed), the rest kept. */
  replace(stored: StoredContent, response: Json, accountId: string, owner?: string): Promise<void> {
    return this.saveRow({ ...stored, response }, accountId, owner);
  }

  /**
   * The response as it stands: a background run's status column is newer than its object while it
   * runs (in progress, cancelled elsewhere, failed with its process).
   */
  async current(id: string, accountId: string): Promise<Json> {
    const row = await this.store.getResponse(id, accountId);
    if (!row) throw responseNotFound(id);
    const { response } = this.open(row);
    if (response.status === row.status || !RUNNING_STATUSES.some((s) => s === response.status))
      return response;
    response.status = row.status;
    if (row.status === "failed")
      response.error = {
        code: "server_error",
        message: "The gateway process running this response stopped.",
      };
    return response;
  }

  private async saveRow(content: StoredContent, accountId: string, owner?: string): Promise<void> {
    const { input, response } = content;
    const id = String(response.id);
    const output = outputOf(response);
    const row: StoredResponseRow = {
      id,
      accountId,
      createdAt: Date.now(),
      model: String(response.model ?? ""),
      status: String(response.status ?? "completed"),
      content: this.seal.seal(JSON.stringify(content)),
      itemIds: [...input, ...output].map((item) => item.id).filter((v): v is string => typeof v === "string"),
    };
    if (typeof response.previous_response_id === "string")
      row.previousResponseId = response.previous_response_id;
    if (owner) row.owner = owner;
    await this.store.saveResponse(row);
  }

  /** Stores a whole answer, then sends it: a continuation through any process finds it at once. */
  async sendWhole(turn: Turn, answer: WholeAnswer, out: Responder, headers: HeaderMap, accountId: string) {
    const held = new HeldAnswer(out.signal);
    answer.send(held, headers);
    const response = held.response();
    if (response && held.status === 200) await this.saveOrWarn(turn, response, accountId);
    held.release(out, response);
  }

  /**
   * A stream's piece that carries its last event (the whole response) is held until the response
   * is stored; every other piece goes at once (undefined).
   */
  beforePiece(turn: Turn, piece: Piece, accountId: string): Promise<void> | undefined {
    const last = terminalResponse(piece);
    if (!last) return undefined;
    // A background run's events go to the store before its end does (background.ts, Run.storeLast).
    const run = this.background.running(String(last.response.id));
    const events = run?.storeLast(last.text);
    return events
      ? events.then(() => this.saveOrWarn(turn, last.response, accountId))
      : this.saveOrWarn(turn, last.response, accountId);
  }

  /** A store that fails does not take the client's answer with it: it is sent, and the failure logged. */
  private async saveOrWarn(turn: Turn, response: Json, accountId: string): Promise<void> {
    try {
      await this.save(turn, response, accountId);
    } catch (err) {
      this.log.warn({ err, generationId: response.id }, "stored response not written");
    }
  }

  /** Each earlier turn's input and output items, oldest first, without their ids: one read of the store. */
  private async chain(id: string, accountId: string): Promise<Json[]> {
    const rows = await this.store.getChain(id, accountId, MAX_CHAIN);
    // The newest must exist; an older one gone (deleted, expired) ends the chain there.
    if (rows.length === 0)
      throw new GatewayError("invalid_request", `Previous response with id '${id}' not found.`, {
        param: "previous_response_id",
        code: "previous_response_not_found",
      });
    const turns = rows.map((row) => this.open(row));
    return turns
      .reverse()
      .flatMap(({ input, response }) => [
        ...input.map(replayable),
        ...(Array.isArray(response.output) ? response.output.filter(isObject).map(replayable) : []),
      ]);
  }

  /**
   * `item_reference` items → the stored items, `compaction` items → the summaries they seal
   * (compaction.ts); undefined when there were none.
   */
  private async resolveReferences(items: Json[], accountId: string): Promise<Json[] | undefined> {
    if (!items.some((item) => item.type === "item_reference" || item.type === "compaction")) return undefined;
    const resolved: Json[] = [];
    for (const [i, item] of items.entries()) {
      if (item.type === "compaction") {
        resolved.push(expandCompaction(item, `input[${i}]`, await this.compactionSeal(), accountId));
        continue;
      }
      if (item.type !== "item_reference") {
        resolved.push(item);
        continue;
      }
      if (typeof item.id !== "string") throw invalid(`input[${i}].id`, "must be a string");
      storableText(`input[${i}].id`, item.id);
      const found = await this.storedItem(item.id, accountId);
      if (!found) throw invalid(`input[${i}].id`, `no stored item has the id '${item.id}'`);
      resolved.push(replayable(found));
    }
    return resolved;
  }

  private async storedItem(itemId: string, accountId: string): Promise<Json | undefined> {
    const responseId = await this.store.responseOfItem(itemId, accountId);
    const stored = responseId && (await this.read(responseId, accountId));
    if (!stored) return this.conversations.findItem(itemId, accountId);
    const output = outputOf(stored.response);
    return [...stored.input, ...output].find((item) => item.id === itemId);
  }

  private open(row: StoredResponseRow): StoredContent {
    try {
      return JSON.parse(this.seal.open(row.content)) as StoredContent;
    } catch (err) {
      this.log.error({ err, responseId: row.id }, "stored response cannot be read");
      throw new GatewayError("api_error", `Stored response '${row.id}' cannot be read.`);
    }
  }
}

/** The items without the oldest `share` of their text (at least one), starting at a user message. */
function withoutOldest(items: unknown[], share: number): unknown[] {
  const sizes = items.map((item) => JSON.stringify(item).length);
  const total = sizes.reduce((a, b) => a + b, 0);
  let drop = 0;
  for (let dropped = 0; drop < items.length - 1 && (drop === 0 || dropped < share * total); drop++)
    dropped += sizes[drop]!;
  const rest = items.slice(drop);
  const opening = rest.findIndex((item) => isObject(item) && item.role === "user");
  return opening > 0 ? rest.slice(opening) : rest;
}

/** What the response object says of the turn (its `store`, `previous_response_id`, …). */
export function memoryContext(turn: Turn): NonNullable<EncodeContext["memory"]> {
  return {
    store: turn.store,
    previousResponseId: turn.previousResponseId,
    conversationId: turn.conversationId,
    truncation: turn.truncate ? "auto" : "disabled",
    background: turn.background,
    settings: turn.settings,
  };
}

/** A background response as it is answered at once: queued, nothing out yet. */
export function queuedResponse(ctx: EncodeContext): Json {
  const response = responseObject(ctx, { status: "completed", output: [], usage: null });
  return { ...response, status: "queued" };
}

function outputOf(response: Json): Json[] {
  return Array.isArray(response.output) ? response.output.filter(isObject) : [];
}

/** The body without the fields the memory serves itself: the upstream never sees them. */
function withoutMemoryFields(body: Json): Json {
  const { previous_response_id: _, conversation: __, background: ___, ...rest } = body;
  return rest;
}

/** `conversation`: its id, or `{id}`; undefined when absent. */
function conversationIdOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && value) return value;
  if (isObject(value) && typeof value.id === "string" && value.id) return value.id;
  throw invalid("conversation", "must be a conversation id or an object with its id");
}

/** `input` as items: a string is one user message; anything else but an array is the decoder's to refuse. */
function inputItems(input: unknown): Json[] | undefined {
  if (typeof input === "string")
    return [{ type: "message", role: "user", content: [{ type: "input_text", text: input }] }];
  if (!Array.isArray(input) || !input.every(isObject)) return undefined;
  return input;
}

/**
 * A stored item as input again: without its id, which an upstream that keeps nothing (`store:
 * false`) would look up and not find; what it says travels in the item itself (a reasoning item's
 * `encrypted_content`).
 */
function replayable(item: Json): Json {
  const { id: _, ...rest } = item;
  return rest;
}

/** The whole response in a piece holding a stream's last event, and its text; undefined for any other piece. */
function terminalResponse(piece: Piece): { response: Json; text: string } | undefined {
  const raw = piece.text;
  // The event names are ASCII: found in a relay's latin1 text as well, before it is decoded.
  const seen = typeof raw === "string" ? raw : raw.toString("latin1");
  if (!TERMINAL_EVENTS.some((type) => seen.includes(`"${type}"`))) return undefined;
  const text = utf8Of(raw, piece.latin1);
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue;
    try {
      const event = JSON.parse(line.slice(5));
      if (isObject(event) && TERMINAL_EVENTS.includes(String(event.type)) && isObject(event.response))
        return { response: event.response, text };
    } catch {
      // Not this line: the stream's own decoder reports broken frames.
    }
  }
  return undefined;
}

/** A Responder that keeps a whole answer until it is stored, then gives it to the client's. */
class HeldAnswer implements Responder {
  readonly signal: AbortSignal;
  status = 0;
  private headers: HeaderMap = {};
  private body: unknown;
  private text: string | undefined;

  constructor(signal: AbortSignal) {
    this.signal = signal;
  }

  json(status: number, headers: HeaderMap, body: unknown): void {
    Object.assign(this, { status, headers, body });
  }

  jsonText(status: number, headers: HeaderMap, text: string): void {
    Object.assign(this, { status, headers, text });
  }

  startStream(): void {
    throw new Error("a whole answer does not stream");
  }

  write(): undefined {
    throw new Error("a whole answer does not stream");
  }

  end(): void {}

  /** The response object the answer holds (parsed once, shared with `release`). */
  response(): Json | undefined {
    if (this.text !== undefined) {
      try {
        this.body = JSON.parse(this.text);
      } catch {
        return undefined;
      }
    }
    return isObject(this.body) ? this.body : undefined;
  }

  /** Sends the answer; a relayed text is sent as it came unless storing changed its object. */
  release(out: Responder, stored: Json | undefined): void {
    if (this.text !== undefined && !stored) out.jsonText(this.status, this.headers, this.text);
    else out.json(this.status, this.headers, stored ?? this.body);
  }
}

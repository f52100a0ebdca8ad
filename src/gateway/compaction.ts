// `POST /v1/responses/compact` (OpenAI's and the Open Responses API's; docs/responses.md §12): the
// conversation window — `input`, after the chain of `previous_response_id` — is summarised by the
// model as an ordinary generation (metered, priced and limited like any), and answered as the
// window's user messages followed by one `compaction` item. Its `encrypted_content` is the summary,
// sealed with the gateway's key (storage.encryption_key, else the deployment's own secret:
// ResponseMemory.compactionSeal) and bound to the account: only this gateway, for this account,
// expands it, when a later request sends the item back as input.

import { invalid } from "../ir/errors.ts";
import type { ContentSeal } from "../ledger/content-seal.ts";
import { isObject } from "../protocols/shared/validate.ts";
import type { HeaderMap, Responder } from "./responder.ts";

type Json = Record<string, unknown>;

/** What the model is asked, after the window: a summary the conversation can go on from alone. */
const SUMMARY_REQUEST =
  "Summarise the whole conversation above so that it can continue from your summary alone: the " +
  "user's goals and constraints, what was decided and done, facts and tool results still needed, " +
  "and what remains open. Answer with the summary only.";
/** What the model is told the expanded item is. */
const SUMMARY_HEADING = "Summary of the earlier conversation (compacted):";
const ENCODING_PREFIX = "swc1.";

/** The sealed content of a compaction item. */
interface CompactionContent {
  account: string;
  summary: string;
}

/**
 * A compact request's body → the body of the generation that summarises its window: the same model,
 * input and chain, the summary asked for in a last user message (a conversation ending with the
 * model's turn would be continued, not summarised), never stored, never streamed.
 */
export function compactionBody(body: unknown): Json {
  if (!isObject(body)) throw invalid("body", "must be a JSON object");
  if (typeof body.model !== "string" || !body.model) throw invalid("model", "must be a non-empty string");
  const input = inputItems(body.input);
  if (!input.length && !body.previous_response_id)
    throw invalid("input", "give the conversation to compact, or a previous_response_id");
  const generation: Json = {
    model: body.model,
    input: [...input, { type: "message", role: "user", content: SUMMARY_REQUEST }],
    store: false,
    stream: false,
  };
  for (const field of ["previous_response_id", "instructions", "prompt_cache_key"])
    if (body[field] !== undefined && body[field] !== null) generation[field] = body[field];
  return generation;
}

/**
 * The client's answer: a summarising generation's whole Responses answer becomes the compacted
 * window. `window()` is the input the generation was given (the chain put in), read once it is known.
 */
export class CompactionResponder implements Responder {
  readonly signal: AbortSignal;
  private readonly out: Responder;
  private readonly seal: ContentSeal;
  private readonly accountId: string;
  private readonly window: () => Json[];

  constructor(out: Responder, seal: ContentSeal, accountId: string, window: () => Json[]) {
    this.out = out;
    this.signal = out.signal;
    this.seal = seal;
    this.accountId = accountId;
    this.window = window;
  }

  json(status: number, headers: HeaderMap, body: unknown): void {
    this.out.json(status, headers, status === 200 && isObject(body) ? this.compacted(body) : body);
  }

  jsonText(status: number, headers: HeaderMap, text: string, latin1?: boolean): void {
    if (status !== 200) {
      this.out.jsonText(status, headers, text, latin1);
      return;
    }
    const decoded = latin1 ? Buffer.from(text, "latin1").toString("utf8") : text;
    this.json(status, headers, JSON.parse(decoded));
  }

  // The summarising generation is never streamed (compactionBody).
  startStream(status: number, headers: HeaderMap): void {
    this.out.startStream(status, headers);
  }

  write(chunk: string | Buffer, latin1?: boolean): Promise<void> | undefined {
    return this.out.write(chunk, latin1);
  }

  end(): void {
    this.out.end();
  }

  private compacted(response: Json): Json {
    const id = String(response.id);
    const window = this.window();
    // The last item is the summary request, not the client's.
    const users = window.slice(0, -1).filter((item) => item.role === "user");
    return {
      id,
      object: "response.compaction",
      created_at: response.created_at,
      output: [
        ...users.map((item, i) => userMessage(item, `msg_${id.replace(/^gen-/, "")}_u${i}`)),
        {
          id: `cmp_${id.replace(/^gen-/, "")}`,
          type: "compaction",
          encrypted_content: this.sealSummary(outputText(response)),
        },
      ],
      usage: response.usage,
    };
  }

  private sealSummary(summary: string): string {
    const content: CompactionContent = { account: this.accountId, summary };
    return ENCODING_PREFIX + Buffer.from(this.seal.seal(JSON.stringify(content))).toString("base64url");
  }
}

/** A `compaction` input item → the developer message it stands for; a 400 naming it when it is not ours. */
export function expandCompaction(item: Json, at: string, seal: ContentSeal, accountId: string): Json {
  const content = openContent(item.encrypted_content, seal);
  if (!content || content.account !== accountId)
    throw invalid(`${at}.encrypted_content`, "is not a compaction item this gateway made for this account");
  return {
    type: "message",
    role: "developer",
    content: [{ type: "input_text", text: `${SUMMARY_HEADING}\n${content.summary}` }],
  };
}

function openContent(value: unknown, seal: ContentSeal): CompactionContent | undefined {
  if (typeof value !== "string" || !value.startsWith(ENCODING_PREFIX)) return undefined;
  try {
    const text = seal.openSealed(
      Buffer.from(value.slice(ENCODING_PREFIX.length), "base64url").toString("utf8"),
    );
    const content = JSON.parse(text) as unknown;
    if (isObject(content) && typeof content.account === "string" && typeof content.summary === "string")
      return { account: content.account, summary: content.summary };
  } catch {
    // Altered, not sealed, or sealed with a key this gateway no longer holds: not ours to expand.
  }
  return undefined;
}

/** The text of an answer's message items: the summary. */
function outputText(response: Json): string {
  const output = Array.isArray(response.output) ? response.output.filter(isObject) : [];
  const texts = output
    .filter((item) => item.type === "message")
    .flatMap((item) => (Array.isArray(item.content) ? item.content.filter(isObject) : []))
    .filter((part) => part.type === "output_text" && typeof part.text === "string")
    .map((part) => part.text as string);
  return texts.join("\n");
}

/** A user message of the window as an output item: typed, with an id, its content as text parts. */
function userMessage(item: Json, id: string): Json {
  const content =
    typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : item.content;
  return { id, type: "message", status: "completed", role: "user", content };
}

/** `input` as items: a string is one user message. */
function inputItems(input: unknown): Json[] {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ type: "message", role: "user", content: input }];
  if (!Array.isArray(input)) throw invalid("input", "must be a string or an array of items");
  return input.map((item, i) => {
    if (!isObject(item)) throw invalid(`input[${i}]`, "must be an object");
    return item;
  });
}

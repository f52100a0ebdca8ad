// What the whole answer and the stream share: the response object around the output, item ids, and
// the output items made from IR blocks. Item ids are made from the generation id, so the items of
// one answer are told apart and an answer's ids never repeat another's.

import type { Citation, Request, ToolCallBlock } from "../../ir/request.ts";
import type { GeneratedImageBlock, OutputBlock, WebSearchBlock } from "../../ir/response.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import { customInput, isCustomTool } from "../shared/custom-tools.ts";
import { citationSpans } from "../shared/openai-annotations.ts";
import { startsAt } from "../shared/text.ts";
import type { EncodeContext } from "../types.ts";
import { reasoningItem } from "./reasoning-item.ts";
import type {
  WireCustomToolCallItem,
  WireFunctionCallItem,
  WireImageGenerationItem,
  WireMessageItem,
  WireOutputItem,
  WireOutputText,
  WireResponse,
  WireWebSearchItem,
} from "./wire-types.ts";

/** The id of the output item at `index`: `msg_…`, `rs_…`, `fc_…`, `ctc_…`. */
export function itemId(ctx: EncodeContext, prefix: string, index: number): string {
  return `${prefix}_${ctx.id.replace(/^gen-/, "")}_${index}`;
}

/** The response object: the output and its ending, with the request's settings echoed. */
export function responseObject(
  ctx: EncodeContext,
  fields: Pick<WireResponse, "status" | "output" | "usage"> &
    Partial<Pick<WireResponse, "completed_at" | "incomplete_details" | "error">>,
): WireResponse {
  const request = ctx.request;
  return {
    id: ctx.id,
    object: "response",
    created_at: ctx.created,
    status: fields.status,
    background: false,
    completed_at: fields.completed_at ?? null,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete_details ?? null,
    instructions: null,
    max_output_tokens: request.maxOutputTokens ?? null,
    model: ctx.model,
    output: fields.output,
    parallel_tool_calls: request.parallelToolCalls ?? true,
    previous_response_id: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoningSummary ?? null },
    store: false,
    temperature: request.temperature ?? null,
    // The Responses API takes no penalties, and its answers say 0 for each (OpenRouter's SDK
    // requires both members).
    frequency_penalty: request.frequencyPenalty ?? 0,
    presence_penalty: request.presencePenalty ?? 0,
    text: { format: textFormat(request) },
    tool_choice: toolChoice(request),
    tools: toolsEcho(request),
    top_p: request.topP ?? null,
    truncation: "disabled",
    usage: fields.usage,
    metadata: {},
  };
}

type ResponseFields = Parameters<typeof responseObject>[1];

/** `completed_at` of a response ending with `status`: now, when it completed (null otherwise). */
export function completedAt(status: WireResponse["status"]): number | null {
  return status === "completed" ? Math.floor(Date.now() / 1000) : null;
}

/** Stands in for a changing field while the rest of the response is written (ResponseJson). */
const MARK = "\u0000switchyard-response-field:";
const MARK_WRITTEN = JSON.stringify(MARK).slice(1, -1);
const QUOTE = 0x22;
const MARKED_FIELDS = ["status", "completed_at", "error", "incomplete_details", "output", "usage"] as const;
const MARKED = Object.fromEntries(MARKED_FIELDS.map((name) => [name, `${MARK}${name}`]));

/**
 * A stream's response object as JSON, written several times (created, in progress, completed):
 * only its status, completed_at, error, incomplete_details, output and usage change, so the text
 * around them is written once and each response is that text joined to those six values' JSON, the bytes
 * JSON.stringify writes for the whole (test/protocols/openai-responses/encode-stream.test.ts).
 */
export class ResponseJson {
  private readonly ctx: EncodeContext;
  /** The text around the six fields, in their order; undefined if it could not be told apart. */
  private readonly around: string[] | undefined;

  constructor(ctx: EncodeContext) {
    this.ctx = ctx;
    const text = JSON.stringify(responseObject(ctx, MARKED as unknown as ResponseFields));
    // Each field's mark, in order, and no other: a request that echoes the mark itself (in a
    // tool's description, say) is written whole each time. The search is for the mark's escaped
    // NUL, as a backslash is rare in the text and a quote is not.
    const around: string[] = [];
    let end = 0;
    let at = text.indexOf(MARK_WRITTEN);
    for (const name of MARKED_FIELDS) {
      if (
        at < 1 ||
        text.charCodeAt(at - 1) !== QUOTE ||
        !startsAt(text, `${name}"`, at + MARK_WRITTEN.length)
      )
        break;
      around.push(text.slice(end, at - 1));
      end = at + MARK_WRITTEN.length + name.length + 1;
      at = text.indexOf(MARK_WRITTEN, end);
    }
    around.push(text.slice(end));
    this.around = around.length === MARKED_FIELDS.length + 1 && at < 0 ? around : undefined;
  }

  write(fields: ResponseFields): string {
    const around = this.around;
    if (!around) return JSON.stringify(responseObject(this.ctx, fields));
    return (
      around[0] +
      JSON.stringify(fields.status) +
      around[1] +
      JSON.stringify(fields.completed_at ?? null) +
      around[2] +
      JSON.stringify(fields.error ?? null) +
      around[3] +
      JSON.stringify(fields.incomplete_details ?? null) +
      around[4] +
      JSON.stringify(fields.output) +
      around[5] +
      JSON.stringify(fields.usage) +
      around[6]
    );
  }
}

function textFormat(request: Request): Record<string, unknown> {
  const format = request.responseFormat;
  if (format?.type !== "json_schema") return { type: format?.type ?? "text" };
  const echo: Record<string, unknown> = {
    type: "json_schema",
    name: format.name ?? "response",
    schema: format.schema,
  };
  if (format.description !== undefined) echo.description = format.description;
  echo.strict = format.strict ?? null;
  return echo;
}

function toolChoice(request: Request): unknown {
  const choice = request.toolChoice;
  if (!choice) return "auto";
  if (choice.type !== "tool") return choice.type;
  const custom = request.tools.some((tool) => tool.name === choice.name && tool.custom);
  return { type: custom ? "custom" : "function", name: choice.name };
}

/** The request's tools as the client wrote them: a namespace group's tools back in their group. */
function toolsEcho(request: Request): Record<string, unknown>[] {
  const echo: Record<string, unknown>[] = [];
  const groups = new Map<string, Record<string, unknown>[]>();
  for (const tool of request.tools) {
    if (!tool.namespace) {
      echo.push(toolEcho(tool));
      continue;
    }
    let members = groups.get(tool.namespace.group);
    if (!members) {
      members = [];
      groups.set(tool.namespace.group, members);
      const group = tool.namespace.group;
      echo.push({
        type: "namespace",
        name: group,
        description: tool.namespace.description ?? "",
        tools: members,
      });
    }
    members.push(toolEcho({ ...tool, name: tool.namespace.tool }));
  }
  return echo;
}

function toolEcho(tool: Request["tools"][number]): Record<string, unknown> {
  if (tool.custom) {
    const echo: Record<string, unknown> = { type: "custom", name: tool.name };
    if (tool.description !== undefined) echo.description = tool.description;
    if (tool.custom.format) echo.format = tool.custom.format;
    return echo;
  }
  return {
    type: "function",
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters,
    strict: tool.strict ?? null,
  };
}

export function outputText(text: string, citations: readonly Citation[] = []): WireOutputText {
  return { type: "output_text", text, annotations: urlAnnotations(text, citations), logprobs: [] };
}

/** A text's citations as `url_citation` annotations (offsets into that part's text). */
export function urlAnnotations(text: string, citations: readonly Citation[]): WireOutputText["annotations"] {
  return citationSpans(text, citations).map((span) => ({ type: "url_citation", ...span }));
}

/**
 * The output items of a whole answer: consecutive text blocks make one message (a part each),
 * thinking makes reasoning items, tool calls make function or custom tool calls.
 */
export function outputItems(blocks: OutputBlock[], ctx: EncodeContext): WireOutputItem[] {
  const items: WireOutputItem[] = [];
  let message: WireMessageItem | undefined;
  for (const block of blocks) {
    if (block.type === "text") {
      if (!block.text) continue;
      if (!message) {
        message = messageItem(itemId(ctx, "msg", items.length), "completed");
        items.push(message);
      }
      message.content.push(outputText(block.text, block.citations));
      continue;
    }
    message = undefined;
    if (block.type === "tool_call") items.push(toolCallItem(block, ctx, items.length, "completed"));
    else if (block.type === "image") items.push(imageItem(block, itemId(ctx, "ig", items.length)));
    else if (block.type === "web_search") items.push(webSearchItem(block, itemId(ctx, "ws", items.length)));
    else items.push({ ...reasoningItem(block, itemId(ctx, "rs", items.length)) });
  }
  return items;
}

/**
 * A generated image: the Responses API returns images as `image_generation_call` items (the result is
 * the base64 image, `output_format` its type: png, jpeg or webp).
 */
export function imageItem(block: GeneratedImageBlock, id: string): WireImageGenerationItem {
  const item: WireImageGenerationItem = {
    id,
    type: "image_generation_call",
    status: "completed",
    result: block.source.data,
  };
  const format = /^image\/(png|jpeg|webp)$/.exec(block.source.mediaType)?.[1];
  if (format) item.output_format = format;
  return item;
}

/** A web search the upstream ran, as the Responses API shows its own (`sources`: the pages found). */
export function webSearchItem(block: WebSearchBlock, id: string): WireWebSearchItem {
  return {
    id,
    type: "web_search_call",
    status: block.errorCode ? "failed" : "completed",
    action: {
      type: "search",
      query: block.query,
      sources: block.results.map((r) => ({ type: "url", url: r.url })),
    },
  };
}

export function messageItem(id: string, status: WireMessageItem["status"]): WireMessageItem {
  return { id, type: "message", status, role: "assistant", content: [] };
}

export function toolCallItem(
  block: ToolCallBlock,
  ctx: EncodeContext,
  index: number,
  status: WireFunctionCallItem["status"],
): WireFunctionCallItem | WireCustomToolCallItem {
  // A Gemini thought signature rides inside the call id and is restored when the id comes back.
  const callId = packToolCallId(block.id, block.signature);
  // A namespace group's tool is called by its own name, beside its group's.
  const group = ctx.request.tools.find((tool) => tool.name === block.name)?.namespace;
  const naming = group ? { name: group.tool, namespace: group.group } : { name: block.name };
  if (isCustomTool(ctx.request.tools, block.name))
    return {
      id: itemId(ctx, "ctc", index),
      type: "custom_tool_call",
      status,
      call_id: callId,
      ...naming,
      input: customInput(block.arguments),
    };
  return {
    id: itemId(ctx, "fc", index),
    type: "function_call",
    status,
    call_id: callId,
    ...naming,
    // A call without arguments is an empty object, never "" (clients JSON.parse it).
    arguments: block.arguments || (status === "completed" ? "{}" : ""),
  };
}

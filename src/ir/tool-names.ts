// Tool names an upstream takes. The protocols differ in the names they take: Gemini's function names
// may hold dots and colons (Gemini CLI's MCP tools: `calendar.respondToEvent`), OpenAI's and
// Anthropic's may not (`^[a-zA-Z0-9_-]`), and a name refused is a 400 for the whole request. A
// translated request's names the upstream would refuse are fitted to it (UpstreamFace.toolNames),
// and the answer's tool calls are named back as the client named its tools. docs/translation.md §3.

import { createHash } from "node:crypto";
import type { ContentBlock, Message, Request, ToolChoice } from "./request.ts";
import type { Response } from "./response.ts";
import type { StreamEvent } from "./stream.ts";

/** Characters every protocol takes in a tool name (and every one but a digit or dash as its first). */
const UNSAFE = /[^a-zA-Z0-9_-]/g;
const SAFE_START = /^[a-zA-Z_]/;
/** The shortest upper bound on a name's length among the protocols (OpenAI's and Gemini's). */
const MAX_NAME = 64;

/** A request's tool names fitted to an upstream, both ways. */
export class ToolNames {
  private readonly upstream = new Map<string, string>();
  private readonly client = new Map<string, string>();
  private readonly takes: RegExp;
  /** Names in use upstream: those the upstream takes as they are, and those fitted so far. */
  private readonly taken: Set<string>;

  private constructor(takes: RegExp, names: readonly string[]) {
    this.takes = takes;
    this.taken = new Set(names.filter((name) => takes.test(name)));
  }

  /**
   * The request with its tool names fitted to those the upstream takes (`takes`), and the way back;
   * undefined when the upstream takes every tool's name (a conversation's earlier calls are then
   * sent as they are too).
   */
  static fit(
    request: Request,
    takes: RegExp | undefined,
  ): { request: Request; names: ToolNames } | undefined {
    if (!takes) return undefined;
    const choice = request.toolChoice?.type === "tool" ? request.toolChoice.name : undefined;
    const refused = request.tools.some((tool) => !takes.test(tool.name));
    if (!refused && (choice === undefined || takes.test(choice))) return undefined;
    const names = new ToolNames(
      takes,
      request.tools.map((tool) => tool.name),
    );
    const fitted: Request = {
      ...request,
      tools: request.tools.map((tool) => ({ ...tool, name: names.toUpstream(tool.name) })),
      messages: request.messages.map((message) => names.messageToUpstream(message)),
    };
    if (request.toolChoice?.type === "tool") fitted.toolChoice = names.choiceToUpstream(request.toolChoice);
    return { request: fitted, names };
  }

  /** The client's name of a tool the upstream named. */
  toClient(name: string): string {
    return this.client.get(name) ?? name;
  }

  /** The answer with its tool calls named as the client named the tools. */
  response(response: Response): Response {
    if (!response.content.some((block) => block.type === "tool_call")) return response;
    return {
      ...response,
      content: response.content.map((block) =>
        block.type === "tool_call" ? { ...block, name: this.toClient(block.name) } : block,
      ),
    };
  }

  /** A stream's events with each tool call named as the client named the tool. */
  events(events: StreamEvent[]): StreamEvent[] {
    return events.map((event) =>
      event.type === "block_start" && event.block.type === "tool_call"
        ? { ...event, block: { ...event.block, name: this.toClient(event.block.name) } }
        : event,
    );
  }

  private toUpstream(name: string): string {
    let fitted = this.upstream.get(name);
    if (fitted === undefined) {
      fitted = this.fitted(name);
      this.upstream.set(name, fitted);
      this.client.set(fitted, name);
      this.taken.add(fitted);
    }
    return fitted;
  }

  /**
   * A name the upstream takes: the name itself when it does, else its unsafe characters as
   * underscores; with 8 hex digits of the name's SHA-256 when that is taken too (two names differing
   * only in those characters) or still refused.
   */
  private fitted(name: string): string {
    if (this.takes.test(name)) return name;
    let base = name.replace(UNSAFE, "_");
    if (!SAFE_START.test(base)) base = `_${base}`;
    base = base.slice(0, MAX_NAME);
    if (this.takes.test(base) && !this.taken.has(base)) return base;
    const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
    return `${base.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
  }

  private choiceToUpstream(choice: Extract<ToolChoice, { type: "tool" }>): ToolChoice {
    return { ...choice, name: this.toUpstream(choice.name) };
  }

  private messageToUpstream(message: Message): Message {
    if (!message.content.some(namesATool)) return message;
    return {
      ...message,
      content: message.content.map((block) => {
        if (block.type === "tool_call") return { ...block, name: this.toUpstream(block.name) };
        if (block.type === "tool_result" && block.name !== undefined)
          return { ...block, name: this.toUpstream(block.name) };
        return block;
      }),
    };
  }
}

function namesATool(block: ContentBlock): boolean {
  return block.type === "tool_call" || (block.type === "tool_result" && block.name !== undefined);
}

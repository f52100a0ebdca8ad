// What an agent's turn looks like once the gateway has written it in an upstream's own protocol: the
// tools it offered and the tool results it carried back, read from a fake's recorded request.
// Nothing here imports src/: each reader follows the provider's documented wire format.

import type { FakeProtocol, RecordedRequest } from "../fakes/index.ts";

export interface WireToolResult {
  /** The call id the result answers (Gemini: the `functionResponse.id`, when it has one). */
  callId: string | undefined;
  /** The result's text, whatever shape the protocol wraps it in. */
  text: string;
}

/** The names of the function tools the request offered. */
export function offeredTools(protocol: FakeProtocol, req: RecordedRequest): string[] {
  const body = req.body as any;
  const tools: any[] = body?.tools ?? [];
  switch (protocol) {
    case "openai":
      return tools.map((t) => t.function?.name);
    case "anthropic":
      return tools.map((t) => t.name);
    case "gemini":
      return tools.flatMap((t) => (t.functionDeclarations ?? []).map((f: any) => f.name));
    case "openai-responses":
      return tools.filter((t) => t.type === "function").map((t) => t.name);
  }
}

/** Every tool result in the request's conversation, in order. */
export function toolResults(protocol: FakeProtocol, req: Pick<RecordedRequest, "body">): WireToolResult[] {
  const body = req.body as any;
  switch (protocol) {
    case "openai":
      return (body.messages ?? [])
        .filter((m: any) => m.role === "tool")
        .map((m: any) => ({ callId: m.tool_call_id, text: textOf(m.content) }));
    case "anthropic":
      return (body.messages ?? []).flatMap((m: any) =>
        Array.isArray(m.content)
          ? m.content
              .filter((b: any) => b.type === "tool_result")
              .map((b: any) => ({ callId: b.tool_use_id, text: textOf(b.content) }))
          : [],
      );
    case "gemini":
      return (body.contents ?? []).flatMap((c: any) =>
        (c.parts ?? [])
          .filter((p: any) => p.functionResponse)
          .map((p: any) => ({
            callId: p.functionResponse.id,
            text: JSON.stringify(p.functionResponse.response),
          })),
      );
    case "openai-responses":
      return (body.input ?? [])
        .filter((i: any) => i.type === "function_call_output")
        .map((i: any) => ({ callId: i.call_id, text: textOf(i.output) }));
  }
}

/** A string, or the texts of an array of content parts. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part: any) => (typeof part?.text === "string" ? part.text : "")).join("");
  return "";
}

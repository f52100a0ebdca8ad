// A client's prefill: the conversation ends with an assistant turn holding text (messages'
// "if the last message is assistant, the reply continues it"), so the answer is the continuation of
// that text. How each upstream is made to continue it: docs/translation.md §2b.

import type { Request } from "./request.ts";

/** The text the answer must continue, or undefined when the request holds no prefill. */
export function prefillText(request: Request): string | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== "assistant") return undefined;
  if (last.content.some((block) => block.type === "tool_call")) return undefined;
  let text = "";
  for (const block of last.content) if (block.type === "text") text += block.text;
  return text === "" ? undefined : text;
}

// What the local models count as a request's prompt, in one place: the local models' usage
// (reply.ts) and the gateway's own token counts (src/gateway/prompt-tokens.ts) read it, so that a
// count for a local model is the prompt usage its answer reports (test/e2e/token-counting.test.ts).

import type { ContentBlock, Request, ToolDefinition } from "../../ir/request.ts";

/** Tokens an image, audio clip or document counts for (a flat figure, like a low-detail image). */
export const MEDIA_TOKENS = 85;

/**
 * The prompt's texts in order (each system block, each content block, each tool), a media block
 * standing as the empty text, and the tokens the media blocks count for on top.
 */
export function promptTexts(request: Request): { texts: string[]; media: number } {
  const texts: string[] = [];
  let media = 0;
  for (const s of request.system) texts.push(s.text);
  for (const m of request.messages)
    for (const b of m.content) {
      if (isMedia(b)) media += MEDIA_TOKENS;
      texts.push(isMedia(b) ? "" : blockText(b));
    }
  for (const t of request.tools) texts.push(toolText(t));
  return { texts, media };
}

export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "tool_call":
      return `${block.name} ${block.arguments}`;
    case "tool_result":
      return block.content.map(blockText).join(" ");
    case "thinking":
      return block.text;
    case "redacted_thinking":
      return "";
    case "document":
      return block.source.kind === "text" ? block.source.text : "";
    default:
      return "";
  }
}

export function isMedia(block: ContentBlock): boolean {
  if (block.type === "image" || block.type === "audio") return true;
  return block.type === "document" && block.source.kind !== "text";
}

function toolText(tool: ToolDefinition): string {
  return `${tool.name} ${tool.description ?? ""} ${JSON.stringify(tool.parameters)}`;
}

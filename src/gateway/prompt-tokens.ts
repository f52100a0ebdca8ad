// The gateway's own count of a request's prompt tokens: for models whose upstream has no counter
// (the local models, chat-completions upstreams) and when an upstream's counter fails. It counts
// what the local models count as their prompt (src/providers/local/reply.ts: each system block,
// each content block's text, each tool's name, description and schema, a flat figure per media
// block), so that a count for a local model is the prompt usage its answer reports
// (test/e2e/token-counting.test.ts holds the two together). The counting runs on the local models'
// thread in linear time, so no prompt, however large or pathological, holds the event loop.

import type { ContentBlock, Request, ToolDefinition } from "../ir/request.ts";
import { countTokensEach } from "../providers/local/tokens.ts";

/** Tokens a media block (image, audio, a document that is not text) counts for, as the local models count it. */
const MEDIA_TOKENS = 85;

export async function countPromptTokens(request: Request): Promise<number> {
  const texts: string[] = [];
  let media = 0;
  for (const s of request.system) texts.push(s.text);
  for (const m of request.messages)
    for (const b of m.content) {
      if (isMedia(b)) media += MEDIA_TOKENS;
      else texts.push(blockText(b));
    }
  for (const t of request.tools) texts.push(toolText(t));
  const counted = await countTokensEach(texts);
  return counted.total + media;
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
    case "thinking":
      return block.text;
    case "tool_call":
      return `${block.name} ${block.arguments}`;
    case "tool_result":
      return block.content.map(blockText).join(" ");
    case "document":
      return block.source.kind === "text" ? block.source.text : "";
    default:
      return "";
  }
}

function isMedia(block: ContentBlock): boolean {
  if (block.type === "image" || block.type === "audio") return true;
  return block.type === "document" && block.source.kind !== "text";
}

function toolText(tool: ToolDefinition): string {
  return `${tool.name} ${tool.description ?? ""} ${JSON.stringify(tool.parameters)}`;
}

// The searches the messages API ran itself (`web_search_20250305`): a `server_tool_use` block named
// `web_search` holds the query (`input.query`), and the `web_search_tool_result` block that follows
// (same id in `tool_use_id`) the pages found (`web_search_result`: url, title, encrypted_content,
// page_age) or a `web_search_tool_result_error` (`error_code`). Together they are one IR web_search
// block (src/ir/response.ts), written where that result block stands.

import type { SearchResult, WebSearchBlock } from "../../ir/response.ts";
import { isObject, type Json } from "../shared/validate.ts";

/** The query of a server_tool_use's input (an object, or its JSON text when streamed). */
export function searchQuery(input: unknown): string {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch {
      return "";
    }
  }
  return isObject(value) && typeof value.query === "string" ? value.query : "";
}

export function searchFromResult(block: Json, query: string): WebSearchBlock {
  const id = typeof block.tool_use_id === "string" ? block.tool_use_id : "";
  const search: WebSearchBlock = { type: "web_search", id, query, results: [] };
  const content = block.content;
  if (isObject(content) && typeof content.error_code === "string") search.errorCode = content.error_code;
  if (Array.isArray(content))
    for (const item of content) {
      if (!isObject(item) || typeof item.url !== "string") continue;
      const result: SearchResult = { url: item.url, title: typeof item.title === "string" ? item.title : "" };
      if (typeof item.encrypted_content === "string") result.encryptedContent = item.encrypted_content;
      if (typeof item.page_age === "string") result.pageAge = item.page_age;
      search.results.push(result);
    }
  return search;
}

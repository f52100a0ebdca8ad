// A Converse citation (`{title, source, sourceContent: [{text}], location: {documentChar | documentPage
// | documentChunk | searchResultLocation | web}}`) → the IR's citation, which keeps the messages
// protocol's shape (src/ir/citation.ts): char_location, page_location, content_block_location,
// search_result_location, web_search_result_location. A location of a kind added later is left out.

import { pageCitation } from "../../ir/citation.ts";
import type { Citation } from "../../ir/request.ts";
import { isObject, type Json } from "../shared/validate.ts";

export function citationFromWire(value: unknown): Citation | undefined {
  if (!isObject(value) || !isObject(value.location)) return undefined;
  const location = value.location;
  const citedText = Array.isArray(value.sourceContent)
    ? value.sourceContent
        .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
        .join("")
    : "";
  const title = typeof value.title === "string" ? value.title : undefined;
  if (isObject(location.web))
    return pageCitation({
      url: String(location.web.url ?? ""),
      title: title ?? String(location.web.domain ?? ""),
      citedText,
    });
  if (isObject(location.searchResultLocation)) {
    const at = location.searchResultLocation;
    return {
      type: "search_result_location",
      cited_text: citedText,
      search_result_index: at.searchResultIndex ?? 0,
      start_block_index: at.start ?? 0,
      end_block_index: at.end ?? 0,
      source: typeof value.source === "string" ? value.source : "",
      title: title ?? null,
    };
  }
  const document = documentLocation(location);
  if (!document) return undefined;
  return {
    type: document.type,
    cited_text: citedText,
    document_index: document.at.documentIndex ?? 0,
    [document.start]: document.at.start ?? 0,
    [document.end]: document.at.end ?? 0,
    document_title: title ?? null,
  };
}

/** Converse's document locations and the messages protocol's names for each: its type, its two bounds. */
const DOCUMENT_LOCATIONS = [
  { member: "documentChar", type: "char_location", start: "start_char_index", end: "end_char_index" },
  { member: "documentPage", type: "page_location", start: "start_page_number", end: "end_page_number" },
  {
    member: "documentChunk",
    type: "content_block_location",
    start: "start_block_index",
    end: "end_block_index",
  },
] as const;

function documentLocation(
  location: Json,
): { type: string; at: Json; start: string; end: string } | undefined {
  for (const { member, ...names } of DOCUMENT_LOCATIONS) {
    const at = location[member];
    if (isObject(at)) return { ...names, at };
  }
  return undefined;
}

// Citations of web pages in an answer's text. The IR keeps a text block's citations in the messages
// protocol's shape (`Citation`, src/ir/request.ts), the richest of the four: a web page cited for a
// passage is a `web_search_result_location` with `url`, `title`, `cited_text` and the opaque
// `encrypted_index` (empty when the page came from another vendor, which has none). Other protocols
// locate the passage by offsets; they find it again by searching the block's text for `cited_text`.

import type { Citation } from "./request.ts";

export interface CitedPage {
  url: string;
  title: string;
  citedText: string;
}

export function pageCitation(page: CitedPage, encryptedIndex = ""): Citation {
  return {
    type: "web_search_result_location",
    url: page.url,
    title: page.title,
    cited_text: page.citedText,
    encrypted_index: encryptedIndex,
  };
}

/** The cited page of a citation that names one (web search results); other kinds have no URL. */
export function citedPage(citation: Citation): CitedPage | undefined {
  const { url, title, cited_text } = citation;
  if (citation.type !== "web_search_result_location" || typeof url !== "string") return undefined;
  return {
    url,
    title: typeof title === "string" ? title : "",
    citedText: typeof cited_text === "string" ? cited_text : "",
  };
}

/**
 * Where a citation's passage lies in `text` (UTF-16 offsets, as JavaScript and OpenAI's annotations
 * count), searching from `from`; undefined when the text does not contain it.
 */
export function passageRange(
  text: string,
  citedText: string,
  from = 0,
): { start: number; end: number } | undefined {
  if (citedText === "") return undefined;
  const start = text.indexOf(citedText, from);
  return start < 0 ? undefined : { start, end: start + citedText.length };
}

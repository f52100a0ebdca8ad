// URL citations as both OpenAI protocols write them: chat `message.annotations[]` is
// `{type: "url_citation", url_citation: {url, title, start_index, end_index}}`, the Responses API's
// `output_text.annotations[]` is `{type: "url_citation", url, title, start_index, end_index}`; the
// indexes are UTF-16 offsets into the message text. The IR keeps citations on text blocks
// (src/ir/citation.ts), the passage as text: offsets are found again by searching for it.

import { citedPage, pageCitation, passageRange } from "../../ir/citation.ts";
import type { Citation } from "../../ir/request.ts";
import { isObject } from "./validate.ts";

export interface UrlCitationSpan {
  url: string;
  title: string;
  start_index: number;
  end_index: number;
}

/**
 * The spans of `citations` within `text` (the text they were cited on, possibly part of a longer
 * message starting at `offset`). A citation whose passage is not in the text has no span.
 */
export function citationSpans(text: string, citations: readonly Citation[], offset = 0): UrlCitationSpan[] {
  const spans: UrlCitationSpan[] = [];
  for (const citation of citations) {
    const page = citedPage(citation);
    const range = page && passageRange(text, page.citedText);
    if (page && range)
      spans.push({
        url: page.url,
        title: page.title,
        start_index: offset + range.start,
        end_index: offset + range.end,
      });
  }
  return spans;
}

/** An upstream's annotations (either shape) on `text` → IR citations; other annotation kinds are left out. */
export function citationsFromAnnotations(text: string, annotations: unknown): Citation[] {
  if (!Array.isArray(annotations)) return [];
  const out: Citation[] = [];
  for (const a of annotations) {
    if (!isObject(a) || a.type !== "url_citation") continue;
    const span = isObject(a.url_citation) ? a.url_citation : a;
    if (typeof span.url !== "string") continue;
    const start = typeof span.start_index === "number" ? span.start_index : 0;
    const end = typeof span.end_index === "number" ? span.end_index : start;
    const title = typeof span.title === "string" ? span.title : "";
    out.push(pageCitation({ url: span.url, title, citedText: text.slice(start, end) }));
  }
  return out;
}

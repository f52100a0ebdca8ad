// Gemini's sources of an answer → IR citations (src/ir/citation.ts), and back.
//
// - Grounding with Google Search: `groundingMetadata.groundingChunks[i].web` `{uri, title}` are the
//   pages; each `groundingSupports[j]` ties a `segment` of the answer (`text`, and `startIndex` /
//   `endIndex` in UTF-8 bytes) to the chunks in `groundingChunkIndices`: one citation per pair.
// - Recitation: `citationMetadata.citations[]` `{startIndex, endIndex, uri, title?, license?}` (byte
//   offsets into the answer): one citation each that names a `uri`.
// Written back for a Gemini client, citations become groundingChunks (one per distinct page) and
// groundingSupports (one per cited passage found in the text).

import { type CitedPage, citedPage, pageCitation, passageRange } from "../../ir/citation.ts";
import type { Citation } from "../../ir/request.ts";
import type { SearchResult, WebSearchBlock } from "../../ir/response.ts";
import { isObject, type Json } from "../shared/validate.ts";

/** The passage between two UTF-8 byte offsets of `text` (what Gemini's indexes count). */
function byteSlice(text: string, start: unknown, end: unknown): string {
  if (typeof end !== "number") return "";
  const bytes = Buffer.from(text, "utf8");
  return bytes.subarray(typeof start === "number" ? start : 0, end).toString("utf8");
}

export function citationsOf(candidate: Json, answerText: string): Citation[] {
  const out: Citation[] = [];
  const grounding = candidate.groundingMetadata;
  if (isObject(grounding) && Array.isArray(grounding.groundingSupports)) {
    const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
    for (const support of grounding.groundingSupports) {
      if (!isObject(support) || !isObject(support.segment)) continue;
      const { segment } = support;
      const citedText =
        typeof segment.text === "string"
          ? segment.text
          : byteSlice(answerText, segment.startIndex, segment.endIndex);
      const indices = Array.isArray(support.groundingChunkIndices) ? support.groundingChunkIndices : [];
      for (const i of indices) {
        const web = typeof i === "number" && isObject(chunks[i]) ? chunks[i].web : undefined;
        if (isObject(web) && typeof web.uri === "string")
          out.push(
            pageCitation({ url: web.uri, title: typeof web.title === "string" ? web.title : "", citedText }),
          );
      }
    }
  }
  const recited = isObject(candidate.citationMetadata) ? candidate.citationMetadata.citations : undefined;
  if (Array.isArray(recited))
    for (const c of recited) {
      if (!isObject(c) || typeof c.uri !== "string") continue;
      const citedText = byteSlice(answerText, c.startIndex, c.endIndex);
      out.push(pageCitation({ url: c.uri, title: typeof c.title === "string" ? c.title : "", citedText }));
    }
  return out;
}

/**
 * The Google searches behind a grounded answer: one per `webSearchQueries` entry; the pages
 * (`groundingChunks[].web`) cannot be told apart by query, so they are the first search's results.
 */
export function searchesOf(candidate: Json): WebSearchBlock[] {
  const grounding = candidate.groundingMetadata;
  if (!isObject(grounding) || !Array.isArray(grounding.webSearchQueries)) return [];
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const pages: SearchResult[] = [];
  for (const chunk of chunks) {
    const web = isObject(chunk) ? chunk.web : undefined;
    if (isObject(web) && typeof web.uri === "string")
      pages.push({ url: web.uri, title: typeof web.title === "string" ? web.title : "" });
  }
  return grounding.webSearchQueries
    .filter((q): q is string => typeof q === "string")
    .map((query, i) => ({ type: "web_search", id: `gsearch_${i}`, query, results: i === 0 ? pages : [] }));
}

export interface GeminiGrounding {
  groundingChunks: Array<{ web: { uri: string; title: string } }>;
  groundingSupports: Array<{
    segment: { startIndex: number; endIndex: number; text: string };
    groundingChunkIndices: number[];
  }>;
  webSearchQueries?: string[];
}

/**
 * A whole answer's search queries and cited pages → groundingMetadata over `text` (undefined when
 * it has neither).
 */
export function groundingFor(
  text: string,
  citations: readonly Citation[],
  queries: readonly string[] = [],
): GeminiGrounding | undefined {
  const pages: CitedPage[] = citations.map(citedPage).filter((p) => p !== undefined);
  if (pages.length === 0 && queries.length === 0) return undefined;
  const chunkOf = new Map<string, number>();
  const grounding: GeminiGrounding = { groundingChunks: [], groundingSupports: [] };
  if (queries.length > 0) grounding.webSearchQueries = [...queries];
  for (const page of pages) {
    let chunk = chunkOf.get(page.url);
    if (chunk === undefined) {
      chunk = grounding.groundingChunks.push({ web: { uri: page.url, title: page.title } }) - 1;
      chunkOf.set(page.url, chunk);
    }
    const range = passageRange(text, page.citedText);
    if (!range) continue;
    const startIndex = Buffer.byteLength(text.slice(0, range.start));
    const endIndex = startIndex + Buffer.byteLength(page.citedText);
    grounding.groundingSupports.push({
      segment: { startIndex, endIndex, text: page.citedText },
      groundingChunkIndices: [chunk],
    });
  }
  return grounding;
}

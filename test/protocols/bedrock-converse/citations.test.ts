// A Converse citation → the IR's citation, in the messages protocol's shape: each kind of location
// AWS's CitationLocation union names (documentChar, documentPage, documentChunk, searchResultLocation,
// web), and one of a kind the gateway does not know, which is left out.

import assert from "node:assert/strict";
import { test } from "node:test";
import { citationFromWire } from "../../../src/protocols/bedrock-converse/citations.ts";

const cited = { title: "Report", sourceContent: [{ text: "Revenue " }, { text: "rose." }] };

test("document locations keep their bounds under the messages protocol's names", () => {
  const cases = [
    {
      location: { documentChar: { documentIndex: 1, start: 4, end: 17 } },
      want: { type: "char_location", start_char_index: 4, end_char_index: 17 },
    },
    {
      location: { documentPage: { documentIndex: 1, start: 2, end: 3 } },
      want: { type: "page_location", start_page_number: 2, end_page_number: 3 },
    },
    {
      location: { documentChunk: { documentIndex: 1, start: 0, end: 1 } },
      want: { type: "content_block_location", start_block_index: 0, end_block_index: 1 },
    },
  ];
  for (const { location, want } of cases)
    assert.deepEqual(citationFromWire({ ...cited, location }), {
      ...want,
      cited_text: "Revenue rose.",
      document_index: 1,
      document_title: "Report",
    });
});

test("a search result and a web page keep theirs; an unknown location is left out", () => {
  assert.deepEqual(
    citationFromWire({
      ...cited,
      source: "https://example.com/r",
      location: { searchResultLocation: { searchResultIndex: 2, start: 0, end: 1 } },
    }),
    {
      type: "search_result_location",
      cited_text: "Revenue rose.",
      search_result_index: 2,
      start_block_index: 0,
      end_block_index: 1,
      source: "https://example.com/r",
      title: "Report",
    },
  );
  assert.deepEqual(
    citationFromWire({ location: { web: { url: "https://example.com", domain: "example.com" } } }),
    {
      type: "web_search_result_location",
      url: "https://example.com",
      title: "example.com",
      cited_text: "",
      encrypted_index: "",
    },
  );
  assert.equal(citationFromWire({ ...cited, location: { documentHologram: { start: 0 } } }), undefined);
});

// Which protocol an error to a path is written in, before any route has run.

import assert from "node:assert/strict";
import { test } from "node:test";
import { errorFaceOf, servedPath } from "../../src/server/paths.ts";

test("errorFaceOf: the caller's protocol from the path, and from a Gemini credential on the listing", () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ["/v1beta/anything", {}, "gemini"],
    ["/v1beta", {}, "gemini"],
    ["/v1beta?key=k", {}, "gemini"],
    ["/api/v1/messages/batches/x", {}, "anthropic"],
    ["/api/v1/responses", {}, "openai-responses"],
    ["/api/v1/models/nope?key=k", {}, "gemini"],
    ["/v1/models/local/echo-1:generateContent", {}, "gemini"],
    ["/v2/local/echo-1:streamGenerateContent?alt=sse", {}, "gemini"],
    ["/v1/models/local%2Fecho-1%3AcountTokens", {}, "gemini"],
    ["/v1/messages/batches/x", {}, "anthropic"],
    ["/v1/messages?beta=true", {}, "anthropic"],
    ["/v1/responses/resp_1", {}, "openai-responses"],
    ["/v1/responses", {}, "openai-responses"],
    ["/v1/models/nope", { "x-goog-api-key": "k" }, "gemini"],
    ["/v1/models?key=k", {}, "gemini"],
    ["/v1/models/nope", { "anthropic-version": "2023-06-01" }, "openai-chat"],
    ["/v1/models/nope", {}, "openai-chat"],
    ["/v1/chat/completions", { "x-goog-api-key": "k" }, "openai-chat"],
    ["/api/v1/management/generation?id=gen-a:b", {}, "openai-chat"],
    ["/nothing", {}, "openai-chat"],
  ];
  for (const [url, headers, face] of cases) assert.equal(errorFaceOf(url, headers), face, url);
});

test("servedPath: /api/v1/… is /v1/… for the inference, listing and counting routes only", () => {
  const cases: Array<[string, string]> = [
    ["/api/v1/chat/completions", "/v1/chat/completions"],
    ["/api/v1/messages", "/v1/messages"],
    ["/api/v1/messages/count_tokens", "/v1/messages/count_tokens"],
    ["/api/v1/responses/input_tokens", "/v1/responses/input_tokens"],
    ["/api/v1/models", "/v1/models"],
    ["/api/v1/models/local/echo-1", "/v1/models/local/echo-1"],
    // The gateway's own routes there stay as they are.
    ["/api/v1/generation", "/api/v1/generation"],
    ["/api/v1/management/generation", "/api/v1/management/generation"],
    ["/api/v1/admin/keys", "/api/v1/admin/keys"],
    ["/api/v1/modelsx", "/api/v1/modelsx"],
    ["/v1/chat/completions", "/v1/chat/completions"],
  ];
  for (const [path, served] of cases) assert.equal(servedPath(path), served, path);
});

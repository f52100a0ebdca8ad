// The quick prompt estimate that admits a request under a tokens-per-minute limit.

import assert from "node:assert/strict";
import { test } from "node:test";
import { estimatePromptTokens } from "../../src/gateway/prompt-tokens.ts";
import type { Request } from "../../src/ir/request.ts";

test("a token per four characters of every prompt text, and a flat figure per media block", () => {
  const request = {
    system: [{ type: "text", text: "x".repeat(40) }],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "y".repeat(9) },
          { type: "image", source: { kind: "url", url: "https://example.com/a.png" } },
        ],
      },
    ],
    tools: [],
  } as unknown as Request;
  // 49 characters → 13 tokens, and 85 for the image.
  assert.equal(estimatePromptTokens(request), 13 + 85);
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import type { IncomingHeaders } from "../../../src/protocols/types.ts";

const body = {
  model: "anthropic/claude-sonnet-4-5",
  max_tokens: 16,
  messages: [{ role: "user", content: "Hi" }],
};

function rejection(headers: IncomingHeaders): GatewayError {
  try {
    anthropic.decodeRequest(body, { headers });
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    return error;
  }
  assert.fail("expected a 400");
}

describe("messages headers", () => {
  test("anthropic-version 2023-06-01 is accepted, under the real name and the neutral alias", () => {
    assert.equal(
      anthropic.decodeRequest(body, { headers: { "anthropic-version": "2023-06-01" } }).model,
      body.model,
    );
    assert.equal(
      anthropic.decodeRequest(body, { headers: { "vendora-version": "2023-06-01" } }).model,
      body.model,
    );
    assert.equal(
      anthropic.decodeRequest(body, { headers: { "Anthropic-Version": "2023-06-01" } }).model,
      body.model,
    );
  });

  test("a missing version is a 400 telling the client which header to set", () => {
    const error = rejection({});
    assert.equal(error.status, 400);
    assert.equal(error.param, "anthropic-version");
    assert.match(error.message, /anthropic-version: 2023-06-01/);
  });

  test("another version (what @anthropic-ai/sdk 1.x sends) is a 400 with the same advice", () => {
    const error = rejection({ "anthropic-version": "2026-10-21" });
    assert.equal(error.status, 400);
    assert.match(error.message, /2026-10-21/);
    assert.match(error.message, /anthropic-version: 2023-06-01/);
  });

  test("a version the operator named is served; others still are not", () => {
    const anthropicVersions = new Set(["2026-10-21"]);
    const decode = (version: string) =>
      anthropic.decodeRequest(body, { headers: { "anthropic-version": version }, anthropicVersions });
    assert.equal(decode("2026-10-21").model, body.model);
    assert.equal(decode("2023-06-01").model, body.model);
    assert.throws(() => decode("2027-01-01"), /clients\.anthropic_versions/);
  });

  test("betas, comma-separated or repeated, with duplicates, are accepted", () => {
    const headers = {
      "anthropic-version": "2023-06-01",
      "anthropic-beta": [
        "claude-code-20250219,interleaved-thinking-2025-05-14",
        "interleaved-thinking-2025-05-14",
      ],
    };
    assert.doesNotThrow(() => anthropic.decodeRequest(body, { headers }));
  });

  test("code-execution-2025-08-25 is a 400, wherever it sits in the list and under either name", () => {
    for (const headers of [
      {
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "context-1m-2025-08-07, code-execution-2025-08-25",
      },
      {
        "anthropic-version": "2023-06-01",
        "anthropic-beta": ["context-1m-2025-08-07", "code-execution-2025-08-25"],
      },
      { "anthropic-version": "2023-06-01", "vendora-beta": "code-execution-2025-08-25" },
    ]) {
      const error = rejection(headers);
      assert.equal(error.status, 400);
      assert.equal(error.param, "anthropic-beta");
      assert.match(error.message, /code-execution-2025-08-25/);
    }
  });

  test("headers are checked before the body", () => {
    assert.equal(rejection({ "anthropic-version": "2024-01-01" }).param, "anthropic-version");
    assert.throws(
      () => anthropic.decodeRequest("not an object", { headers: {} }),
      (e: GatewayError) => e.param === "anthropic-version",
    );
  });
});

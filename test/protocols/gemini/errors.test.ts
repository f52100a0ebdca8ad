import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { fixture } from "./helpers.ts";

describe("encodeError", () => {
  test("status and google.rpc status name per error", () => {
    const cases: Array<[GatewayError, number, string]> = [
      [new GatewayError("invalid_request", "bad"), 400, "INVALID_ARGUMENT"],
      [new GatewayError("authentication", "who"), 401, "UNAUTHENTICATED"],
      [new GatewayError("payment_required", "credits"), 402, "RESOURCE_EXHAUSTED"],
      [new GatewayError("permission", "no"), 403, "PERMISSION_DENIED"],
      [new GatewayError("not_found", "none"), 404, "NOT_FOUND"],
      [new GatewayError("rate_limit", "slow"), 429, "RESOURCE_EXHAUSTED"],
      [new GatewayError("api_error", "boom"), 500, "INTERNAL"],
      [new GatewayError("api_error", "bad gateway", { status: 502 }), 502, "INTERNAL"],
      [new GatewayError("overloaded", "busy"), 503, "UNAVAILABLE"],
      // 529 is the messages protocol's own status; content-generation clients get 503.
      [new GatewayError("overloaded", "busy", { status: 529 }), 503, "UNAVAILABLE"],
      [new GatewayError("timeout", "late"), 504, "DEADLINE_EXCEEDED"],
    ];
    for (const [error, status, name] of cases) {
      assert.deepEqual(gemini.encodeError(error), {
        status,
        body: { error: { code: status, message: error.message, status: name } },
      });
    }
  });
});

describe("decodeError", () => {
  test("message from error.message; retryAfter from the RetryInfo detail", () => {
    const error = gemini.decodeError(429, fixture("error-429.json"), {});
    assert.equal(error.status, 429);
    assert.equal(error.kind, "rate_limit");
    assert.equal(
      error.message,
      "You exceeded your current quota, please check your plan and billing details.",
    );
    assert.equal(error.retryAfter, 18);
  });

  test("the retry-after header wins over the detail", () => {
    assert.equal(gemini.decodeError(429, fixture("error-429.json"), { "retry-after": "5" }).retryAfter, 5);
  });

  test("an array-wrapped body, a text body, an empty body", () => {
    const wrapped = gemini.decodeError(
      400,
      [{ error: { code: 400, message: "API key not valid.", status: "INVALID_ARGUMENT" } }],
      {},
    );
    assert.equal(wrapped.message, "API key not valid.");
    assert.equal(wrapped.kind, "invalid_request");
    assert.equal(gemini.decodeError(502, "Bad Gateway", {}).message, "Bad Gateway");
    const empty = gemini.decodeError(503, undefined, {});
    assert.equal(empty.status, 503);
    assert.equal(empty.kind, "overloaded");
    assert.equal(empty.retryAfter, undefined);
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ErrorKind, GatewayError, invalid } from "../../../src/ir/errors.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";

describe("messages-protocol errors", () => {
  test("encodeError: status and the native body, for every kind", () => {
    const expected: Array<[ErrorKind, number, string]> = [
      ["invalid_request", 400, "invalid_request_error"],
      ["authentication", 401, "authentication_error"],
      ["payment_required", 402, "billing_error"],
      ["permission", 403, "permission_error"],
      ["not_found", 404, "not_found_error"],
      ["request_too_large", 413, "request_too_large"],
      ["rate_limit", 429, "rate_limit_error"],
      ["api_error", 500, "api_error"],
      ["timeout", 504, "timeout_error"],
      ["overloaded", 503, "overloaded_error"],
    ];
    for (const [kind, status, type] of expected) {
      const { status: s, body } = anthropic.encodeError(new GatewayError(kind, `${kind} happened`));
      assert.equal(s, status, kind);
      assert.deepEqual(body, { type: "error", error: { type, message: `${kind} happened` } });
    }
  });

  test("encodeError keeps an explicit status (an upstream 529 stays 529)", () => {
    const { status, body } = anthropic.encodeError(
      new GatewayError("overloaded", "Overloaded", { status: 529 }),
    );
    assert.equal(status, 529);
    assert.equal((body as any).error.type, "overloaded_error");
    assert.deepEqual(anthropic.encodeError(invalid("max_tokens", "is required")).body, {
      type: "error",
      error: { type: "invalid_request_error", message: "max_tokens: is required" },
    });
  });

  test("decodeError: status, type and message of an upstream error body; retry-after in seconds", () => {
    const error = anthropic.decodeError(
      429,
      {
        type: "error",
        error: { type: "rate_limit_error", message: "Number of request tokens has exceeded your limit." },
      },
      { "retry-after": "17" },
    );
    assert.equal(error.kind, "rate_limit");
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 17);
    assert.equal(error.message, "Number of request tokens has exceeded your limit.");
  });

  test("decodeError reads raw text bodies, HTTP-date retry-after, and unknown types by status", () => {
    const overloaded = anthropic.decodeError(
      529,
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
      { "Retry-After": new Date(Date.now() + 30_000).toUTCString() },
    );
    assert.equal(overloaded.kind, "overloaded");
    assert.equal(overloaded.status, 529);
    assert.ok(
      overloaded.retryAfter !== undefined && overloaded.retryAfter > 25 && overloaded.retryAfter <= 30,
    );
    const html = anthropic.decodeError(502, "<html>Bad Gateway</html>", {});
    assert.equal(html.kind, "api_error");
    assert.equal(html.status, 502);
    assert.equal(html.message, "<html>Bad Gateway</html>");
    const odd = anthropic.decodeError(
      404,
      { type: "error", error: { type: "brand_new_error", message: "?" } },
      {},
    );
    assert.equal(odd.kind, "not_found");
    assert.equal(odd.retryAfter, undefined);
  });
});

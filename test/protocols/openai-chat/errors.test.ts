import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type ErrorKind, GatewayError, invalid } from "../../../src/ir/errors.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { fixtureJson } from "./helpers.ts";

describe("encodeError", () => {
  test("a 400 names the field in param", () => {
    assert.deepEqual(openaiChat.encodeError(invalid("temperature", "must be <= 2")), {
      status: 400,
      body: {
        error: {
          message: "temperature: must be <= 2",
          type: "invalid_request_error",
          param: "temperature",
          code: null,
        },
      },
    });
  });

  test("each kind gets OpenAI's type and its status", () => {
    const cases: Array<[ErrorKind, number, string, string | null]> = [
      ["authentication", 401, "authentication_error", "invalid_api_key"],
      ["payment_required", 402, "insufficient_quota", "insufficient_quota"],
      ["permission", 403, "permission_error", null],
      ["not_found", 404, "not_found_error", "not_found"],
      ["request_too_large", 413, "invalid_request_error", "request_too_large"],
      ["rate_limit", 429, "rate_limit_error", "rate_limit_exceeded"],
      ["api_error", 500, "api_error", null],
      ["timeout", 504, "timeout_error", "timeout"],
      ["overloaded", 503, "overloaded_error", "overloaded"],
    ];
    for (const [kind, status, type, code] of cases) {
      const { status: got, body } = openaiChat.encodeError(new GatewayError(kind, "m"));
      assert.equal(got, status, kind);
      assert.deepEqual(body, { error: { message: "m", type, param: null, code } }, kind);
    }
  });

  test("an upstream status carried on the error is the status sent", () => {
    assert.equal(
      openaiChat.encodeError(new GatewayError("api_error", "bad gateway", { status: 502 })).status,
      502,
    );
  });
});

describe("decodeError", () => {
  test("OpenAI 429 rate limit: status kept, message from error.message, retry-after read", () => {
    const err = openaiChat.decodeError(429, fixtureJson("error-rate-limit.json"), { "Retry-After": "2" });
    assert.equal(err.kind, "rate_limit");
    assert.equal(err.status, 429);
    assert.match(err.message, /^Rate limit reached for gpt-4o/);
    assert.equal(err.retryAfter, 2);
  });

  test("OpenAI 429 insufficient_quota is a payment error with the upstream status", () => {
    const err = openaiChat.decodeError(429, fixtureJson("error-insufficient-quota.json"), {});
    assert.equal(err.kind, "payment_required");
    assert.equal(err.status, 429);
    assert.equal(err.retryAfter, undefined);
  });

  test("retry-after-ms, HTTP-date retry-after and repeated headers", () => {
    assert.equal(openaiChat.decodeError(503, {}, { "retry-after-ms": "1500" }).retryAfter, 2);
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = openaiChat.decodeError(503, {}, { "retry-after": inTenSeconds }).retryAfter ?? -1;
    assert.ok(fromDate >= 8 && fromDate <= 11, `about 10 s, got ${fromDate}`);
    assert.equal(openaiChat.decodeError(429, {}, { "retry-after": ["7", "9"] }).retryAfter, 7);
    assert.equal(openaiChat.decodeError(429, {}, { "retry-after": "soon" }).retryAfter, undefined);
  });

  test("bodies that are not OpenAI-shaped still give a message and a kind", () => {
    const text = openaiChat.decodeError(502, "<html>Bad Gateway</html>", {});
    assert.equal(text.status, 502);
    assert.equal(text.kind, "api_error");
    assert.equal(text.message, "<html>Bad Gateway</html>");
    assert.equal(openaiChat.decodeError(404, { message: "model not found" }, {}).message, "model not found");
    assert.equal(openaiChat.decodeError(401, { error: "unauthorized" }, {}).kind, "authentication");
    assert.equal(openaiChat.decodeError(500, undefined, {}).message, "upstream answered HTTP 500");
    assert.equal(openaiChat.decodeError(400, {}, {}).kind, "invalid_request");
  });
});

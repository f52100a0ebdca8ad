// Gemini's embeddings codec (src/protocols/gemini/embeddings.ts): `:embedContent` and
// `:batchEmbedContents` bodies, their answers, and the upstream `:batchEmbedContents` call.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { embeddings } from "../../../src/protocols/gemini/embeddings.ts";
import { withUnsent } from "../helpers.ts";

const decode = (body: unknown, single = false) =>
  embeddings.decodeEmbedRequest(body, { headers: {}, pathModel: "p/m", single });

function refuses(body: unknown, param: string, single = false) {
  assert.throws(
    () => decode(body, single),
    (err: unknown) => err instanceof GatewayError && err.status === 400 && err.param === param,
  );
}

const content = (text: string) => ({ parts: [{ text }] });

describe("decoding a client's body", () => {
  test(":embedContent: one content, its parts joined, its settings (snake_case too)", () => {
    const request = decode(
      {
        content: { parts: [{ text: "a" }, { text: "b" }] },
        task_type: "RETRIEVAL_DOCUMENT",
        title: "T",
        outputDimensionality: 3,
      },
      true,
    );
    assert.deepEqual(request.inputs, [
      { kind: "text", text: "a\nb", taskType: "RETRIEVAL_DOCUMENT", title: "T" },
    ]);
    assert.equal(request.dimensions, 3);
    assert.equal(request.single, true);
    assert.equal(request.model, "p/m");
  });

  test(":batchEmbedContents: each request a content, with its own task type", () => {
    const request = decode({
      requests: [
        { model: "models/p/m", content: content("a"), taskType: "RETRIEVAL_QUERY" },
        { model: "models/p/m", content: content("b"), extra: 1 },
      ],
    });
    assert.deepEqual(request.inputs, [
      { kind: "text", text: "a", taskType: "RETRIEVAL_QUERY" },
      { kind: "text", text: "b" },
    ]);
    assert.deepEqual(request.ignored, ["requests[1].extra"]);
  });

  test("bad bodies are 400s naming the field", () => {
    refuses({}, "content", true);
    refuses({ content: { parts: [] } }, "content.parts", true);
    refuses({ content: { parts: [{ text: "" }] } }, "content.parts", true);
    refuses({ content: content("a"), taskType: "NOPE" }, "taskType", true);
    refuses({ content: content("a"), outputDimensionality: 0 }, "outputDimensionality", true);
    refuses({ requests: [] }, "requests");
    // Gemini's batch limit: a batch is fanned out to the upstream, so it is bounded at decode.
    refuses({ requests: Array.from({ length: 101 }, () => ({ content: content("a") })) }, "requests");
    refuses(
      { requests: [{ content: { parts: [{ inlineData: {} }] } }] },
      "requests[0].content.parts[0].text",
    );
    refuses(
      { requests: [{ content: content("a"), outputDimensionality: 4 }, { content: content("b") }] },
      "requests[1].outputDimensionality",
    );
  });
});

describe("the answers", () => {
  test("embedding.values for one, embeddings[].values for a batch", () => {
    const one = decode({ content: content("a") }, true);
    assert.deepEqual(embeddings.encodeEmbedResponse({ vectors: [[1, 2]], promptTokens: 1 }, one, "p/m"), {
      embedding: { values: [1, 2] },
    });
    const batch = decode({ requests: [{ content: content("a") }, { content: content("b") }] });
    assert.deepEqual(embeddings.encodeEmbedResponse({ vectors: [[1], [2]], promptTokens: 1 }, batch, "p/m"), {
      embeddings: [{ values: [1] }, { values: [2] }],
    });
  });
});

describe("the upstream side", () => {
  test("a :batchEmbedContents call naming the model in every request; user dropped", () => {
    const request = decode({
      requests: [{ content: content("a"), taskType: "CLUSTERING", outputDimensionality: 2 }],
    });
    request.user = "u";
    const target = { model: "gemini-embedding-001" };
    const call = withUnsent((unsent) =>
      embeddings.encodeEmbedRequest(request, request.inputs, target, unsent),
    );
    assert.equal(call.path, "/v1beta/models/gemini-embedding-001:batchEmbedContents");
    assert.deepEqual(call.body, {
      requests: [
        {
          model: "models/gemini-embedding-001",
          content: { parts: [{ text: "a" }] },
          taskType: "CLUSTERING",
          outputDimensionality: 2,
        },
      ],
    });
    assert.deepEqual(call.dropped, ["user"]);
  });

  test("token ids are a 400 naming the client's input field", () => {
    const request = decode({ requests: [{ content: content("a") }] });
    request.fields.input = "input";
    assert.throws(
      () => embeddings.encodeEmbedRequest(request, [{ kind: "tokens", tokens: [1] }], { model: "g" }),
      (err: unknown) => err instanceof GatewayError && err.param === "input",
    );
  });

  test("the answer's vectors in order; no token count", () => {
    assert.deepEqual(embeddings.decodeEmbedResponse({ embeddings: [{ values: [1] }, { values: [2] }] }), {
      vectors: [[1], [2]],
    });
  });
});

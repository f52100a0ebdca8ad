// OpenAI's embeddings codec (src/protocols/openai-chat/embeddings.ts): the client body's input forms
// and their errors naming the field, the answer's float and base64 forms, and the upstream call and
// answer of an OpenAI-compatible `/embeddings`.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { embeddings } from "../../../src/protocols/openai-chat/embeddings.ts";
import { withUnsent } from "../helpers.ts";

const decode = (body: unknown) => embeddings.decodeEmbedRequest(body, { headers: {} });

function refuses(body: unknown, param: string) {
  assert.throws(
    () => decode(body),
    (err: unknown) => err instanceof GatewayError && err.status === 400 && err.param === param,
  );
}

describe("decoding a client's body", () => {
  test("each input form: a string, strings, token ids, arrays of token ids", () => {
    assert.deepEqual(decode({ model: "m", input: "a" }).inputs, [{ kind: "text", text: "a" }]);
    assert.deepEqual(decode({ model: "m", input: ["a", "b"] }).inputs, [
      { kind: "text", text: "a" },
      { kind: "text", text: "b" },
    ]);
    assert.deepEqual(decode({ model: "m", input: [1, 2] }).inputs, [{ kind: "tokens", tokens: [1, 2] }]);
    assert.deepEqual(decode({ model: "m", input: [[1], [2, 3]] }).inputs, [
      { kind: "tokens", tokens: [1] },
      { kind: "tokens", tokens: [2, 3] },
    ]);
  });

  test("settings and unknown members", () => {
    const request = decode({
      model: "m",
      input: "a",
      dimensions: 8,
      encoding_format: "base64",
      user: "u1",
      extra: true,
    });
    assert.equal(request.dimensions, 8);
    assert.equal(request.encoding, "base64");
    assert.equal(request.user, "u1");
    assert.deepEqual(request.ignored, ["extra"]);
    assert.equal(decode({ model: "m", input: "a" }).encoding, "float");
  });

  test("bad inputs are 400s naming the field", () => {
    refuses({ input: "a" }, "model");
    refuses({ model: "m" }, "input");
    refuses({ model: "m", input: [] }, "input");
    refuses({ model: "m", input: "" }, "input");
    refuses({ model: "m", input: ["a", 1] }, "input[1]");
    refuses({ model: "m", input: ["a", ""] }, "input[1]");
    refuses({ model: "m", input: [1, -2] }, "input[1]");
    refuses({ model: "m", input: [[1], [1.5]] }, "input[1][0]");
    refuses({ model: "m", input: [[]] }, "input[0]");
    refuses({ model: "m", input: Array(2049).fill("a") }, "input");
    refuses({ model: "m", input: "a", encoding_format: "int8" }, "encoding_format");
    refuses({ model: "m", input: "a", dimensions: 0 }, "dimensions");
    refuses({ model: "m", input: "a", dimensions: 1.5 }, "dimensions");
  });
});

describe("the answer", () => {
  const request = decode({ model: "m", input: ["a", "b"], encoding_format: "base64" });
  test("base64 is little-endian float32", () => {
    const body = embeddings.encodeEmbedResponse(
      {
        vectors: [
          [1, -0.5],
          [0.25, 0],
        ],
        promptTokens: 3,
      },
      request,
      "p/m",
    ) as any;
    const first = Buffer.from(body.data[0].embedding, "base64");
    assert.deepEqual([first.readFloatLE(0), first.readFloatLE(4)], [1, -0.5]);
    assert.equal(first.toString("hex"), "0000803f000000bf");
    assert.deepEqual(body.usage, { prompt_tokens: 3, total_tokens: 3 });
    assert.equal(body.model, "p/m");
    assert.deepEqual(
      body.data.map((d: any) => [d.object, d.index]),
      [
        ["embedding", 0],
        ["embedding", 1],
      ],
    );
  });
});

describe("the upstream side", () => {
  test("the call: texts or ids, dimensions and user; taskType and title dropped", () => {
    const request = decode({ model: "m", input: ["a"], dimensions: 4, user: "u" });
    request.inputs[0].taskType = "RETRIEVAL_QUERY";
    const call = withUnsent((unsent) =>
      embeddings.encodeEmbedRequest(request, request.inputs, { model: "up" }, unsent),
    );
    assert.equal(call.path, "/embeddings");
    assert.deepEqual(call.body, {
      model: "up",
      input: ["a"],
      encoding_format: "float",
      dimensions: 4,
      user: "u",
    });
    assert.deepEqual(call.dropped, ["taskType"]);
  });

  test("the answer: vectors by index, floats or base64, and its token count", () => {
    const b64 = Buffer.alloc(8);
    b64.writeFloatLE(0.5, 0);
    b64.writeFloatLE(-1, 4);
    const answer = embeddings.decodeEmbedResponse({
      data: [
        { index: 1, embedding: b64.toString("base64") },
        { index: 0, embedding: [1, 2] },
      ],
      usage: { prompt_tokens: 7 },
    });
    assert.deepEqual(answer, {
      vectors: [
        [1, 2],
        [0.5, -1],
      ],
      promptTokens: 7,
    });
    assert.throws(() => embeddings.decodeEmbedResponse({ data: [{ index: 3, embedding: [] }] }));
  });
});

describe("the relay", () => {
  const relay = embeddings.relay!;
  test("the client's body with the upstream's model; routing and unknown members removed, the rest as written", () => {
    const raw = '{"model":"p/m","input":["a",  "b"],"encoding_format":"base64","provider":{},"extra":1}';
    const request = decode(JSON.parse(raw));
    const { path, body } = relay.request(raw, request, { model: "up" });
    assert.equal(path, "/embeddings");
    assert.equal(body, '{"model":"up","input":["a",  "b"],"encoding_format":"base64"}');
  });

  test("the answer names the catalog model; its usage is read without the vectors", () => {
    const text =
      '{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPw=="}],"model":"up","usage":{"prompt_tokens":5,"total_tokens":5}}';
    assert.equal(relay.response(text, "p/m"), text.replace('"model":"up"', '"model":"p/m"'));
    assert.equal(relay.promptTokens(text), 5);
    assert.equal(relay.promptTokens('{"data":[]}'), undefined);
    assert.throws(() => relay.promptTokens("<html>"), SyntaxError);
  });

  test("the answer is bytes one per character: what is not ASCII comes back byte for byte", () => {
    const bytes = Buffer.from('{"model":"up","note":"héllo ✓ 漢","usage":{"prompt_tokens":2}}');
    const edited = Buffer.from(relay.response(bytes.toString("latin1"), "p/m"), "latin1").toString();
    assert.equal(edited, '{"model":"p/m","note":"héllo ✓ 漢","usage":{"prompt_tokens":2}}');
    assert.equal(relay.promptTokens(bytes.toString("latin1")), 2);
  });
});

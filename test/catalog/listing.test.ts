import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  chatModel,
  geminiModel,
  listChat,
  listGemini,
  listMessages,
  messagesModel,
} from "../../src/catalog/listing.ts";
import type { CatalogModel } from "../../src/catalog/types.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import { catalogModel, numberedModels } from "./fixtures.ts";

const tiered: CatalogModel = catalogModel("google/gemini-2.5-pro", {
  displayName: "Gemini 2.5 Pro",
  description: "Thinking model.",
  created: 1750118400, // 2025-06-17
  ownedBy: "google",
  inputModalities: ["text", "image", "video", "audio", "file"],
  outputModalities: ["text"],
  reasoning: true,
  contextLength: 1048576,
  maxOutputTokens: 65536,
  pricings: {
    prompt: [
      {
        value: 1.25,
        unit: "perMTokens",
        currency: "USD",
        conditions: { prompt_tokens: { unit: "kTokens", lte: 200 } },
      },
      {
        value: 2.5,
        unit: "perMTokens",
        currency: "USD",
        conditions: { prompt_tokens: { unit: "kTokens", gt: 200 } },
      },
    ],
    completion: [{ value: 10, unit: "perMTokens", currency: "USD" }],
    web_search: [{ value: 0.035, unit: "perCount", currency: "USD" }],
  },
  endpoints: [{ provider: "google", model: "gemini-2.5-pro" }],
});

/** Asserts a 400 GatewayError whose `param` names the parameter at fault. */
function badParam(fn: () => unknown, param: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${err}`);
    assert.equal(err.status, 400);
    assert.equal(err.kind, "invalid_request");
    assert.equal(err.param, param);
    assert.ok(err.message.startsWith(`${param}: `), err.message);
    return true;
  });
}

describe("chat-completions listing (docs/architecture.md §1)", () => {
  test("a record carries exactly the documented fields", () => {
    assert.deepEqual(chatModel(tiered), {
      id: "google/gemini-2.5-pro",
      object: "model",
      display_name: "Gemini 2.5 Pro",
      created: 1750118400,
      owned_by: "google",
      input_modalities: ["text", "image", "video", "audio", "file"],
      output_modalities: ["text"],
      capabilities: { reasoning: true },
      context_length: 1048576,
      pricings: tiered.pricings,
    });
  });

  test("the envelope lists every model, sorted by id", () => {
    const body = listChat([catalogModel("zeta/z"), tiered, catalogModel("acme/a")]);
    assert.equal(body.object, "list");
    assert.deepEqual(Object.keys(body), ["object", "data"]);
    assert.deepEqual(
      body.data.map((m) => m.id),
      ["acme/a", "google/gemini-2.5-pro", "zeta/z"],
    );
    assert.deepEqual(listChat([]), { object: "list", data: [] });
  });
});

describe("messages listing (docs/architecture.md §1)", () => {
  test("a record carries exactly the documented fields; created_at is YYYY-MM-DD", () => {
    assert.deepEqual(messagesModel(tiered), {
      id: "google/gemini-2.5-pro",
      type: "model",
      display_name: "Gemini 2.5 Pro",
      created_at: "2025-06-17",
      input_modalities: ["text", "image", "video", "audio", "file"],
      output_modalities: ["text"],
      capabilities: { reasoning: true },
      context_length: 1048576,
      pricings: tiered.pricings,
    });
  });

  test("default page: 20 items, has_more, first_id / last_id", () => {
    const models = numberedModels(25);
    const page = listMessages(models);
    assert.deepEqual(Object.keys(page), ["data", "has_more", "first_id", "last_id"]);
    assert.equal(page.data.length, 20);
    assert.equal(page.has_more, true);
    assert.equal(page.first_id, "test/m-00");
    assert.equal(page.last_id, "test/m-19");
  });

  test("walking forward with after_id = last_id visits every model once, in order", () => {
    const models = numberedModels(10).reverse();
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const page = listMessages(models, { limit: "3", after_id: after });
      pages++;
      seen.push(...page.data.map((m) => m.id));
      assert.equal(page.first_id, page.data[0]?.id ?? null);
      if (!page.has_more) break;
      after = page.last_id!;
    }
    assert.equal(pages, 4);
    assert.deepEqual(
      seen,
      numberedModels(10).map((m) => m.id),
    );
  });

  test("walking backward with before_id = first_id", () => {
    const models = numberedModels(10);
    const page = listMessages(models, { before_id: "test/m-09", limit: 4 });
    assert.deepEqual(
      page.data.map((m) => m.id),
      ["test/m-05", "test/m-06", "test/m-07", "test/m-08"],
    );
    assert.equal(page.has_more, true);
    const earlier = listMessages(models, { before_id: page.first_id!, limit: 4 });
    assert.deepEqual(
      earlier.data.map((m) => m.id),
      ["test/m-01", "test/m-02", "test/m-03", "test/m-04"],
    );
    const first = listMessages(models, { before_id: earlier.first_id!, limit: 4 });
    assert.deepEqual(
      first.data.map((m) => m.id),
      ["test/m-00"],
    );
    assert.equal(first.has_more, false);
  });

  test("edges: past the end, an empty list, limit 1000", () => {
    const models = numberedModels(3);
    assert.deepEqual(listMessages(models, { after_id: "test/m-02" }), {
      data: [],
      has_more: false,
      first_id: null,
      last_id: null,
    });
    assert.deepEqual(listMessages([]), { data: [], has_more: false, first_id: null, last_id: null });
    assert.equal(listMessages(models, { limit: 1000 }).data.length, 3);
    assert.equal(listMessages(models, { before_id: "test/m-00" }).data.length, 0);
  });

  test("bad parameters are 400s naming the parameter", () => {
    const models = numberedModels(3);
    for (const limit of ["0", "1001", "-1", "abc", "2.5", ""])
      badParam(() => listMessages(models, { limit }), "limit");
    badParam(() => listMessages(models, { limit: ["1", "2"] }), "limit");
    badParam(() => listMessages(models, { after_id: "test/nope" }), "after_id");
    badParam(() => listMessages(models, { before_id: "test/nope" }), "before_id");
    badParam(() => listMessages(models, { after_id: "test/m-00", before_id: "test/m-02" }), "before_id");
  });
});

describe("content-generation listing (docs/architecture.md §1)", () => {
  test("a record carries the documented fields plus what the Gemini SDK reads", () => {
    assert.deepEqual(geminiModel(tiered), {
      name: "models/google/gemini-2.5-pro",
      displayName: "Gemini 2.5 Pro",
      description: "Thinking model.",
      inputTokenLimit: 1048576,
      outputTokenLimit: 65536,
      supportedGenerationMethods: ["generateContent", "streamGenerateContent", "countTokens"],
      thinking: true,
      inputModalities: ["text", "image", "video", "audio", "file"],
      outputModalities: ["text"],
      pricings: tiered.pricings,
    });
  });

  test("default page size 50; nextPageToken is absent on the last page", () => {
    const models = numberedModels(60);
    const first = listGemini(models);
    assert.equal(first.models.length, 50);
    assert.equal(typeof first.nextPageToken, "string");
    const second = listGemini(models, { pageToken: first.nextPageToken });
    assert.equal(second.models.length, 10);
    assert.equal(second.models[0].name, "models/test/m-50");
    assert.ok(!("nextPageToken" in second));
    assert.deepEqual(listGemini([]), { models: [] });
  });

  test("walking nextPageToken until it is absent visits every model once, in order", () => {
    const models = numberedModels(11).reverse();
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = listGemini(models, { pageSize: "4", pageToken: token });
      pages++;
      seen.push(...page.models.map((m) => m.name));
      token = page.nextPageToken;
    } while (token !== undefined);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      numberedModels(11).map((m) => `models/${m.id}`),
    );
  });

  test("a page token stays valid when the model it ended on is gone", () => {
    const models = numberedModels(6);
    const page = listGemini(models, { pageSize: 2 });
    const withoutM01 = models.filter((m) => m.id !== "test/m-01");
    assert.deepEqual(
      listGemini(withoutM01, { pageSize: 2, pageToken: page.nextPageToken }).models.map((m) => m.name),
      ["models/test/m-02", "models/test/m-03"],
    );
  });

  test("pageSize 0 means the default; above 1000 is capped at 1000", () => {
    const models = numberedModels(60);
    assert.equal(listGemini(models, { pageSize: "0" }).models.length, 50);
    const many = Array.from({ length: 1005 }, (_, i) => catalogModel(`test/n-${String(i).padStart(4, "0")}`));
    const capped = listGemini(many, { pageSize: 5000 });
    assert.equal(capped.models.length, 1000);
    assert.equal(listGemini(many, { pageSize: 5000, pageToken: capped.nextPageToken }).models.length, 5);
  });

  test("bad parameters are 400s naming the parameter", () => {
    const models = numberedModels(3);
    for (const pageSize of ["-1", "ten", "1.5"]) badParam(() => listGemini(models, { pageSize }), "pageSize");
    for (const pageToken of ["garbage!", "bm90LWEtdG9rZW4", Buffer.from("sy1:").toString("base64url")]) {
      badParam(() => listGemini(models, { pageToken }), "pageToken");
    }
    badParam(() => listGemini(models, { pageToken: ["a", "b"] }), "pageToken");
  });
});

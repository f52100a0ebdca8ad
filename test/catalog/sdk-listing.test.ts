// The three listing shapes against the official SDKs' own pagers: a tiny node:http server serves the
// listing functions, and each SDK walks every page the way its users do.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { listChat, listGemini, listMessages } from "../../src/catalog/listing.ts";
import { loadBuiltinCatalog } from "../../src/catalog/load.ts";
import { isEmbeddingModel } from "../../src/catalog/types.ts";
import { GatewayError } from "../../src/ir/errors.ts";

const models = loadBuiltinCatalog();
const ids = models.map((m) => m.id);
const embeddingNames = new Set(models.filter(isEmbeddingModel).map((m) => `models/${m.id}`));
const requests: string[] = [];
let server: Server;
let baseUrl: string;

function route(url: URL, headers: Record<string, string | string[] | undefined>): unknown {
  const query = (name: string) => url.searchParams.get(name) ?? undefined;
  if (url.pathname === "/v1/models") {
    if (headers["anthropic-version"]) {
      return listMessages(models, {
        limit: query("limit"),
        after_id: query("after_id"),
        before_id: query("before_id"),
      });
    }
    return listChat(models);
  }
  if (url.pathname === "/v1beta/models") {
    return listGemini(models, { pageSize: query("pageSize"), pageToken: query("pageToken") });
  }
  throw new GatewayError("not_found", `no route ${url.pathname}`);
}

before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    let status = 200;
    let body: unknown;
    try {
      body = route(url, req.headers);
    } catch (err) {
      if (!(err instanceof GatewayError)) throw err;
      status = err.status;
      body = {
        error: { message: err.message, type: "invalid_request_error", param: err.param ?? null, code: null },
      };
    }
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("listing shapes through the official SDKs", () => {
  test("openai: client.models.list() yields every model with the documented extra fields", async () => {
    const client = new OpenAI({ apiKey: "unused", baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const seen: string[] = [];
    for await (const model of client.models.list()) {
      assert.equal(model.object, "model");
      assert.equal(typeof model.created, "number");
      assert.ok((model as unknown as { pricings: object }).pricings);
      seen.push(model.id);
    }
    assert.deepEqual(seen, ids);
  });

  test("@anthropic-ai/sdk: auto-pagination forward walks every page with after_id", async () => {
    const client = new Anthropic({ apiKey: "unused", baseURL: baseUrl, maxRetries: 0 });
    requests.length = 0;
    const seen: string[] = [];
    for await (const model of client.models.list({ limit: 7 })) {
      assert.equal(model.type, "model");
      assert.match(model.created_at, /^\d{4}-\d{2}-\d{2}$/);
      seen.push(model.id);
    }
    assert.deepEqual(seen, ids);
    assert.equal(requests.length, Math.ceil(ids.length / 7));
    assert.ok(requests.slice(1).every((r) => r.includes("after_id=")));

    const first = await client.models.list({ limit: 7 });
    assert.equal(first.first_id, ids[0]);
    assert.equal(first.last_id, ids[6]);
    assert.equal(first.has_more, true);
  });

  test("@anthropic-ai/sdk: paging backward with before_id follows first_id", async () => {
    const client = new Anthropic({ apiKey: "unused", baseURL: baseUrl, maxRetries: 0 });
    const last = ids[ids.length - 1];
    const pages: string[][] = [];
    for await (const page of (await client.models.list({ before_id: last, limit: 10 })).iterPages()) {
      pages.push(page.data.map((m) => m.id));
    }
    assert.deepEqual(pages.reverse().flat(), ids.slice(0, -1));
  });

  test("@anthropic-ai/sdk: an unknown cursor is a 400", async () => {
    const client = new Anthropic({ apiKey: "unused", baseURL: baseUrl, maxRetries: 0 });
    await assert.rejects(client.models.list({ after_id: "nobody/none" }), (err: unknown) => {
      assert.ok(err instanceof Anthropic.BadRequestError);
      return true;
    });
  });

  test("@google/genai: the ai.models.list() pager follows nextPageToken to the end", async () => {
    const ai = new GoogleGenAI({ apiKey: "unused", httpOptions: { baseUrl } });
    requests.length = 0;
    const pager = await ai.models.list({ config: { pageSize: 8 } });
    const seen: string[] = [];
    for await (const model of pager) {
      assert.deepEqual(
        model.supportedActions,
        embeddingNames.has(model.name!)
          ? ["embedContent", "batchEmbedContents"]
          : ["generateContent", "streamGenerateContent", "countTokens"],
      );
      assert.equal(typeof model.thinking, "boolean");
      assert.ok(model.inputTokenLimit! > 0 && model.outputTokenLimit! > 0);
      seen.push(model.name!);
    }
    assert.deepEqual(
      seen,
      ids.map((id) => `models/${id}`),
    );
    assert.equal(requests.length, Math.ceil(ids.length / 8));
    assert.ok(requests.every((r) => r.startsWith("GET /v1beta/models?") && r.includes("pageSize=8")));
  });
});

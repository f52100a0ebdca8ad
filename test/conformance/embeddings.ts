// The conformance matrix's embedding rows (docs/compatibility.md, "Embeddings"): each embedding
// client, unmodified and given the gateway's base URL alone, embeds the same texts through
// local/embed-1, an OpenAI-compatible fake and a Gemini fake. A cell passes when the client got
// exactly the vectors the upstream made, in order (for a fake, `fakeVector` of each text; for the
// local model, what the openai SDK gets asking for floats) and the generation's lookup shows them.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { GoogleGenAI } from "@google/genai";
import { GoogleGenAI as GoogleGenAI3 } from "@google/genai-3";
import { GoogleGenerativeAIEmbeddings } from "@langchain/google-genai";
import { OpenAIEmbeddings } from "@langchain/openai";
import { embedMany } from "ai";
import OpenAI from "openai";
import OpenAI7 from "openai-7";
import { fakeVector } from "../fakes/embeddings.ts";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { lookupSettled } from "../support/lookup.ts";
import { startTap, type Tap } from "../support/tap.ts";
import { reasonOf } from "./cases.ts";
import { versionsOf } from "./run.ts";

export const TEXTS = [
  "red apples and green pears",
  "a basket of green apples",
  "the stock market closed lower",
];

export interface EmbeddingClient {
  name: string;
  /** The npm packages whose versions the row shows. */
  packages: string[];
  /** The vectors the client gets for `texts` from `model`, through the gateway at `url`. */
  embed(url: string, model: string, texts: string[]): Promise<number[][]>;
}

/** The openai SDK's embeddings.create, asking nothing of the encoding (base64, its default). */
function openaiClient(Client: typeof OpenAI | typeof OpenAI7, pkg: string, line: string): EmbeddingClient {
  return {
    name: `openai ${line} embeddings.create`,
    packages: [pkg],
    async embed(url, model, texts) {
      const openai = new Client({ apiKey: PAYG_KEY, baseURL: `${url}/v1`, maxRetries: 0 });
      return (await openai.embeddings.create({ model, input: texts })).data.map((d) => d.embedding);
    },
  };
}

/** @google/genai's models.embedContent of several contents (a `:batchEmbedContents` call). */
function genaiClient(
  Client: typeof GoogleGenAI | typeof GoogleGenAI3,
  pkg: string,
  line: string,
): EmbeddingClient {
  return {
    name: `@google/genai ${line} models.embedContent`,
    packages: [pkg],
    async embed(url, model, texts) {
      const ai = new Client({ apiKey: PAYG_KEY, httpOptions: { baseUrl: url } });
      const res = await ai.models.embedContent({ model, contents: texts });
      return (res.embeddings ?? []).map((e) => e.values ?? []);
    },
  };
}

export const EMBEDDING_CLIENTS: EmbeddingClient[] = [
  openaiClient(OpenAI7, "openai-7", "7.x"),
  openaiClient(OpenAI, "openai", "6.x"),
  genaiClient(GoogleGenAI3, "@google/genai-3", "3.x"),
  genaiClient(GoogleGenAI, "@google/genai", "2.x"),
  {
    name: "AI SDK embedMany, openai provider",
    packages: ["ai", "@ai-sdk/openai"],
    async embed(url, model, texts) {
      const provider = createOpenAI({ apiKey: PAYG_KEY, baseURL: `${url}/v1` });
      return (await embedMany({ model: provider.embedding(model), values: texts, maxRetries: 0 })).embeddings;
    },
  },
  {
    name: "AI SDK embedMany, google provider",
    packages: ["ai", "@ai-sdk/google"],
    async embed(url, model, texts) {
      const provider = createGoogleGenerativeAI({ apiKey: PAYG_KEY, baseURL: `${url}/v1beta` });
      return (await embedMany({ model: provider.embedding(model), values: texts, maxRetries: 0 })).embeddings;
    },
  },
  {
    name: "LangChain OpenAIEmbeddings",
    packages: ["@langchain/core", "@langchain/openai"],
    embed(url, model, texts) {
      const client = new OpenAIEmbeddings({
        model,
        apiKey: PAYG_KEY,
        configuration: { baseURL: `${url}/v1` },
        maxRetries: 0,
      });
      return client.embedDocuments(texts);
    },
  },
  {
    name: "LangChain GoogleGenerativeAIEmbeddings",
    packages: ["@langchain/core", "@langchain/google-genai"],
    embed(url, model, texts) {
      // (A failed batch comes back as empty vectors: LangChain swallows the error.)
      const client = new GoogleGenerativeAIEmbeddings({
        model,
        apiKey: PAYG_KEY,
        baseUrl: url,
        maxRetries: 0,
      });
      return client.embedDocuments(texts);
    },
  },
];

export const EMBEDDING_COLUMNS = ["local", "openai", "gemini"] as const;
export type EmbeddingColumn = (typeof EMBEDDING_COLUMNS)[number];

const HEADING: Record<EmbeddingColumn, string> = {
  local: "local/embed-1",
  openai: "OpenAI-compatible upstream",
  gemini: "Gemini upstream",
};
const MODEL: Record<EmbeddingColumn, string> = {
  local: "local/embed-1",
  openai: "fo/embed",
  gemini: "fg/embed",
};

export interface EmbeddingStage {
  gw: RunningGateway;
  /** In front of the gateway: what each client was answered (its generation ids). */
  front: Tap;
  fakes: Record<"openai" | "gemini", FakeUpstream>;
  /** What the openai SDK gets from local/embed-1 for TEXTS, asking for floats. */
  localVectors: number[][];
  close(): Promise<void>;
}

/** A gateway serving local/embed-1 and an embedding model behind an OpenAI and a Gemini fake. */
export async function startEmbeddingStage(): Promise<EmbeddingStage> {
  const [openai, gemini] = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("gemini")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-embed-matrix-"));
  const model = (id: string, upstream: string) => ({
    id,
    output_modalities: ["embeddings"],
    pricings: { prompt: [{ value: 0.02, unit: "perMTokens", currency: "USD" }] },
    endpoints: [{ provider: id.split("/")[0], model: upstream }],
  });
  const gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("fo", openai), fakeProvider("fg", gemini)],
      models: [model(MODEL.openai, "text-embedding-3-small"), model(MODEL.gemini, "gemini-embedding-001")],
    }),
    { dir },
  );
  const front = await startTap(Number(new URL(gw.url).port));
  const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const res = await client.embeddings.create({ model: MODEL.local, input: TEXTS, encoding_format: "float" });
  return {
    gw,
    front,
    fakes: { openai, gemini },
    localVectors: res.data.map((d) => d.embedding),
    async close() {
      await front.close();
      await gw.stop();
      await Promise.all([openai.close(), gemini.close()]);
    },
  };
}

/**
 * One cell: the client's vectors are the upstream's, in order, and the generation it made is in the
 * lookup (api `embeddings`, the model asked for). Throws what was wrong first.
 */
export async function runEmbeddingCell(
  stage: EmbeddingStage,
  client: EmbeddingClient,
  column: EmbeddingColumn,
): Promise<void> {
  stage.front.answers.length = 0;
  const vectors = await client.embed(stage.front.url, MODEL[column], TEXTS);
  const expected = column === "local" ? stage.localVectors : TEXTS.map((t) => fakeVector(t));
  assert.deepEqual(vectors, expected, "the client's vectors are the upstream's, in order");
  const ids = stage.front.answers.map((a) => a.headers["x-generation-id"]);
  assert.ok(ids.length > 0, "the client was answered");
  assert.ok(
    ids.every((id) => typeof id === "string"),
    "every answer names its generation",
  );
  for (const id of ids as string[]) {
    const record = await lookupSettled(stage.gw.url, id, PAYG_KEY);
    assert.equal(record.api, "embeddings");
    assert.equal(record.model, MODEL[column]);
    assert.ok(record.nativeTokens.prompt_tokens > 0, "the lookup counts the prompt");
  }
}

/** The embedding rows as a markdown table, a cell ✅ or ❌ with its failure as a note. */
export async function embeddingMatrix(stage: EmbeddingStage): Promise<{ table: string; failed: string[] }> {
  const lines = [
    `| client | version | ${EMBEDDING_COLUMNS.map((c) => HEADING[c]).join(" | ")} |`,
    `|---|---|${EMBEDDING_COLUMNS.map(() => "---").join("|")}|`,
  ];
  const failed: string[] = [];
  for (const client of EMBEDDING_CLIENTS) {
    const cells: string[] = [];
    for (const column of EMBEDDING_COLUMNS) {
      try {
        await runEmbeddingCell(stage, client, column);
        cells.push("✅");
      } catch (error) {
        failed.push(`${client.name} × ${HEADING[column]}: ${reasonOf(error)}`);
        cells.push(`❌ [${failed.length}]`);
      }
    }
    lines.push(`| ${client.name} | ${versionsOf(client.packages)} | ${cells.join(" | ")} |`);
  }
  if (failed.length > 0) lines.push("", ...failed.map((text, i) => `${i + 1}. ${text}`));
  return { table: lines.join("\n"), failed };
}

// An open stream holds what it needs to go on answering, not the client's request body: once an
// endpoint has answered, no other attempt can need it, and a stream may stay open for minutes with a
// prompt of megabytes (bench/idle-streams.ts holds 10,000). Checked on a heap snapshot of this process
// while a relayed stream is held open through the real HTTP server: neither the body's bytes nor its
// text may be left in it.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeHeapSnapshot } from "node:v8";
import { stringify } from "yaml";
import { installKey } from "../../src/auth/bootstrap.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openStore } from "../../src/ledger/open-store.ts";
import type { RelayingAdapter } from "../../src/providers/types.ts";
import { createApp } from "../../src/server/app.ts";
import { fakeModel } from "../support/config.ts";

const KEY = "sk-test-held-0123456789";
/** An odd length, so that a buffer of exactly the body's size stands out in the snapshot. */
const BODY_BYTES = 54_321;

/** Relays every stream: one chunk at once, then nothing until the client leaves. Keeps no body. */
function holdingUpstream(): RelayingAdapter & { sent: Promise<void>; left: Promise<void> } {
  let sent!: () => void;
  let left!: () => void;
  return {
    sent: new Promise<void>((resolve) => {
      sent = resolve;
    }),
    left: new Promise<void>((resolve) => {
      left = resolve;
    }),
    relayProtocol: "openai-chat",
    stream: () => {
      throw new Error("translation is not driven here");
    },
    complete: () => Promise.reject(new Error("translation is not driven here")),
    async relay(_call, signal) {
      return {
        text: async () => "",
        async *chunks() {
          yield Buffer.from(
            'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n',
          );
          sent();
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          left();
        },
      };
    },
  };
}

/** A streamed chat request of BODY_BYTES whose text holds `"content":"<marker>`. */
function bodyWith(marker: string): Buffer {
  const body = (pad: number) =>
    JSON.stringify({
      model: "fake/m",
      stream: true,
      messages: [{ role: "user", content: `${marker} ${"x".repeat(pad)}` }],
    });
  return Buffer.from(body(BODY_BYTES - body(0).length));
}

/** The byte lengths of every ArrayBuffer's backing store, and the snapshot's text. */
function heapNow(dir: string): { text: string; bufferSizes: number[] } {
  const file = writeHeapSnapshot(join(dir, "held.heapsnapshot"));
  const text = readFileSync(file, "utf8");
  rmSync(file);
  const snapshot = JSON.parse(text);
  const fields: string[] = snapshot.snapshot.meta.node_fields;
  const [nodeTypes] = snapshot.snapshot.meta.node_types;
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
  const bufferSizes: number[] = [];
  for (let i = 0; i < snapshot.nodes.length; i += width)
    if (
      nodeTypes[snapshot.nodes[i + typeAt]] === "native" &&
      snapshot.strings[snapshot.nodes[i + nameAt]] === "system / JSArrayBufferData"
    )
      bufferSizes.push(snapshot.nodes[i + sizeAt]);
  return { text, bufferSizes };
}

test("an open stream holds neither the bytes nor the text of the client's request body", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-held-"));
  const configFile = join(dir, "switchyard.yaml");
  writeFileSync(
    configFile,
    stringify({
      storage: { url: `sqlite:${join(dir, "s.db")}` },
      billing: { settle_delay_ms: 0 },
      providers: [{ id: "fake", protocol: "openai", base_url: "http://127.0.0.1:9/v1", api_key: "k" }],
      models: [fakeModel("fake/m", ["fake"])],
      keys: [{ key: KEY, account: "acme", credits: 100 }],
    }),
  );
  const config = loadConfig(configFile, {});
  const store = openStore(config.storage.url);
  await store.migrate();
  for (const key of config.keys) await installKey(store, key);
  const upstream = holdingUpstream();
  const app = createApp(config, store, { adapterFor: () => upstream });
  await app.fastify.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.fastify.server.address() as AddressInfo;
  const marker = randomUUID();
  const client = request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/v1/chat/completions",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
  });
  try {
    const firstChunk = new Promise<string>((resolve, reject) => {
      client.on("response", (res) => {
        if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
        res.once("data", (d: Buffer) => resolve(d.toString()));
      });
      client.on("error", reject);
    });
    client.end(bodyWith(marker));
    assert.match(await firstChunk, /"content":"Hi"/);
    await upstream.sent;

    const { text, bufferSizes } = heapNow(dir);
    assert.ok(text.includes(marker), "the request's own content is held (the decoded request)");
    const bodyText = JSON.stringify(`"content":"${marker}`).slice(1, -1);
    assert.ok(!text.includes(bodyText), "the body's text is held by the open stream");
    assert.ok(!bufferSizes.includes(BODY_BYTES), "the body's bytes are held by the open stream");
  } finally {
    client.destroy();
    // The generation ends (cancelled) before the store closes under it.
    await Promise.race([upstream.left, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

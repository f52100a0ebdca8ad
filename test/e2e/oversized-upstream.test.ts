// An upstream that never stops writing (a whole answer with no end, or a stream event with no blank
// line) cannot fill the gateway's memory: past 64 MiB the call fails with a 502 in the client's
// protocol, the upstream is cut off, and the gateway goes on answering everyone else.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import OpenAI from "openai";
import { fakeModel } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

/** More than the gateway takes (64 MiB), so that a gateway without the limit would read it all. */
const WRITTEN_MAX = 80 * 1024 * 1024;

let upstream: Server;
let gw: RunningGateway;
/** Bytes the upstream wrote to its last caller before it went away or reached WRITTEN_MAX. */
let written = 0;

/** Writes `opening`, then `x` until the caller leaves or WRITTEN_MAX is out, never ending it. */
function endless(res: import("node:http").ServerResponse, type: string, opening: string): void {
  res.writeHead(200, { "content-type": type });
  written = 0;
  res.write(opening);
  const chunk = Buffer.alloc(64 * 1024, "x");
  const pump = () => {
    while (!res.destroyed && written < WRITTEN_MAX) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
}

before(async () => {
  upstream = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      const { stream, model } = JSON.parse(body);
      if (model === "small")
        return void res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            id: "c1",
            object: "chat.completion",
            created: 1,
            model: "small",
            choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      if (!stream) return endless(res, "application/json", '{"id":"c1","choices":[{"message":{"content":"');
      const role = {
        id: "c1",
        object: "chat.completion.chunk",
        created: 1,
        model,
        choices: [{ index: 0, delta: { role: "assistant", content: "" } }],
      };
      endless(
        res,
        "text/event-stream",
        `data: ${JSON.stringify(role)}\n\ndata: {"id":"c1","choices":[{"delta":{"content":"`,
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-oversized-"));
  const config = baseConfig(dir, {
    providers: [{ id: "big", protocol: "openai", base_url: `${url}/v1`, api_key: "k" }],
    models: [fakeModel("big/endless", ["big"]), fakeModel("big/small", ["big"])],
  });
  gw = await startGateway(config, { dir });
});

after(async () => {
  await gw?.stop();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

const client = () => new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

test("a whole answer that never ends is a 502 naming the provider and the limit", async () => {
  await assert.rejects(
    client().chat.completions.create({ model: "big/endless", messages: [{ role: "user", content: "hi" }] }),
    (err) => {
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.equal(err.status, 502);
      assert.match(err.message, /Provider 'big' answered with more than 64 MiB/);
      return true;
    },
  );
  assert.ok(written < WRITTEN_MAX, `the upstream wrote ${written} bytes: it was not cut off`);
});

test("a stream event that never ends fails the stream with an error in the client's protocol", async () => {
  const stream = await client().chat.completions.create({
    model: "big/endless",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.role ?? "");
    })(),
    (err) => {
      assert.ok(err instanceof OpenAI.APIError, String(err));
      assert.match(err.message, /stream event longer than 64 MiB/);
      return true;
    },
  );
  assert.deepEqual(seen, ["assistant"], "the events before it arrived");
  assert.ok(written < WRITTEN_MAX, `the upstream wrote ${written} bytes: it was not cut off`);
});

test("the gateway goes on answering", async () => {
  const answer = await client().chat.completions.create({
    model: "big/small",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(answer.choices[0].message.content, "ok");
});

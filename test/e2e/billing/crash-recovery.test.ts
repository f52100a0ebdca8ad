// Nothing acknowledged is lost from the ledger: SIGKILL the gateway in the middle of streamed
// generations, start it again on the same store, and find every started generation, the
// unfinished ones marked interrupted.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, spawnGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";

test("generations cut by SIGKILL are found after restart, marked interrupted", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-crash-"));
  // The local model streams one word per 100 ms, so a long answer stays open for seconds.
  // A fake upstream whose whole answers take 10 s: a non-streamed generation still in progress.
  const slow = await startFakeUpstream("openai");
  slow.script({ blocks: [{ type: "text", text: "late" }], answerDelayMs: 10_000 });
  const config = baseConfig(dir, {
    providers: [{ id: "local", chunk_delay_ms: 100 }, fakeProvider("slow", slow)],
    models: [fakeModel("slow/m", ["slow"])],
  });
  const gw = await startGateway(config, { dir });

  const finished = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "short" }] }),
  });
  const finishedId = finished.headers.get("x-generation-id")!;
  await finished.json();

  const long = "word ".repeat(200);
  // A non-streamed answer in progress: the client has no id yet, but once it has run for the start
  // grace (1 s, swept every 250 ms) its start is written, so the crash leaves it interrupted too.
  const wholeStartedAt = Date.now();
  const whole = fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "slow/m", messages: [{ role: "user", content: "take your time" }] }),
  }).catch(() => undefined);
  const open = await Promise.all(
    Array.from({ length: 5 }, async () => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "local/echo-1",
          stream: true,
          messages: [{ role: "user", content: long }],
        }),
      });
      const reader = res.body!.getReader();
      await reader.read(); // the stream has started: the client has been answered
      return { id: res.headers.get("x-generation-id")!, reader };
    }),
  );
  await new Promise((r) => setTimeout(r, Math.max(150, wholeStartedAt + 1_600 - Date.now())));
  await gw.stop("SIGKILL");
  await whole;
  for (const { reader } of open) await reader.cancel().catch(() => {});

  const again = await spawnGateway(["serve", "--config", gw.configFile, "--port", "0"], dir, gw.configFile);
  try {
    assert.match(again.output(), /marked 6 unfinished generation\(s\) as interrupted/);
    for (const { id } of open) {
      const res = await fetch(`${again.url}/api/v1/management/generation?id=${id}`, {
        headers: { authorization: `Bearer ${PAYG_KEY}` },
      });
      assert.equal(res.status, 200, `generation ${id} was lost`);
      const body = (await res.json()) as any;
      assert.equal(body.status, "interrupted");
      assert.equal(body.streamed, true);
    }
    const done = await lookupSettled(again.url, finishedId, PAYG_KEY);
    assert.equal(done.status, "completed");
    assert.ok(done.usage > 0);
  } finally {
    await again.stop();
    await slow.close();
  }
});

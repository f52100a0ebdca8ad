// The adapters an App makes are its own to close: closing the registry (App.close) closes their
// pooled keep-alive connections to the upstreams, instead of leaving them to the upstream's timeout.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { after, before, test } from "node:test";
import { DEFAULT_TIMEOUTS, type ProviderConfig } from "../../src/config/providers.ts";
import { adapterRegistry } from "../../src/providers/registry.ts";
import { canRelay } from "../../src/providers/types.ts";

let server: Server;
let url: string;
const open = new Set<Socket>();

before(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"ok":true}');
  });
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

test("closing the registry closes the kept-alive upstream connection; the same adapter is made once", async () => {
  const provider: ProviderConfig = {
    id: "u",
    protocol: "openai",
    baseUrl: url,
    apiKey: "k",
    enabled: true,
    timeouts: { ...DEFAULT_TIMEOUTS },
  };
  const registry = adapterRegistry();
  const adapter = registry.adapterFor(provider);
  assert.equal(registry.adapterFor(provider), adapter);
  assert.ok(canRelay(adapter, "openai-chat"));
  const answer = await adapter.relay(
    { path: "/chat/completions", body: "{}", headers: {}, stream: false },
    AbortSignal.timeout(5000),
  );
  assert.equal(await answer.text(), '{"ok":true}');
  assert.equal(open.size, 1, "the connection is kept alive for the next request");

  await registry.close();
  for (let i = 0; i < 50 && open.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(open.size, 0, "closed by the gateway, not left to the upstream's keep-alive timeout");
});

// Where an upstream call goes: the provider's base URL (its path prefix kept) and the protocol's path
// and query, parsed once per URL and reused; the provider's headers win over a relay's; a base URL
// undici refuses is still refused as a 502 naming the provider.

import assert from "node:assert/strict";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { after, before, test } from "node:test";
import { DEFAULT_TIMEOUTS, type ProviderConfig } from "../../src/config/providers.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import { openaiChat } from "../../src/protocols/openai-chat/index.ts";
import { HttpProvider } from "../../src/providers/http/adapter.ts";

let server: Server;
let origin: string;
const seen: Array<{ url?: string; headers: IncomingHttpHeaders; body: string }> = [];

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      seen.push({ url: req.url, headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

const providerAt = (baseUrl: string): ProviderConfig => ({
  id: "p",
  protocol: "openai",
  baseUrl,
  apiKey: "sk-provider",
  enabled: true,
  timeouts: { ...DEFAULT_TIMEOUTS },
});

async function relay(adapter: HttpProvider, path: string, headers: Record<string, string> = {}) {
  const answer = await adapter.relay(
    { path, body: '{"n":1}', headers, stream: false },
    AbortSignal.timeout(5000),
  );
  return answer.text();
}

test("calls reach the base URL's path prefix with the protocol's path and query, the same on every call", async () => {
  seen.length = 0;
  const adapter = new HttpProvider(providerAt(`${origin}/prefix/v1`), openaiChat);
  assert.equal(await relay(adapter, "/chat/completions"), '{"ok":true}');
  assert.equal(await relay(adapter, "/chat/completions"), '{"ok":true}');
  await relay(adapter, "/models/a%20b:go?alt=sse");
  assert.deepEqual(
    seen.map((s) => [s.url, s.body]),
    [
      ["/prefix/v1/chat/completions", '{"n":1}'],
      ["/prefix/v1/chat/completions", '{"n":1}'],
      ["/prefix/v1/models/a%20b:go?alt=sse", '{"n":1}'],
    ],
  );
  assert.equal(seen[0].headers.authorization, "Bearer sk-provider");
});

test("a relay's headers go along; the provider's own win over them", async () => {
  seen.length = 0;
  const adapter = new HttpProvider(providerAt(origin), openaiChat);
  await relay(adapter, "/x", { "x-relayed": "1", authorization: "Bearer client" });
  assert.equal(seen[0].headers["x-relayed"], "1");
  assert.equal(seen[0].headers.authorization, "Bearer sk-provider");
});

test("a base URL that is not http(s) is refused as before: a 502 naming the provider", async () => {
  const adapter = new HttpProvider(providerAt("ftp://127.0.0.1:1"), openaiChat);
  for (let i = 0; i < 2; i++)
    await assert.rejects(relay(adapter, "/chat/completions"), (err: unknown) => {
      assert.ok(err instanceof GatewayError);
      assert.equal(err.status, 502);
      assert.match(err.message, /Provider 'p' could not be reached/);
      return true;
    });
});

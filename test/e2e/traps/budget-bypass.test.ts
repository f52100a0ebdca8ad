// Known trap (docs/architecture.md §10): passthrough routes bypassed key budgets (maximhq/bifrost#2873).
// Here every client protocol, relayed to an upstream of its own protocol and translated to another,
// is refused once its key's budget is spent, before the upstream is called again.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { type RunningGateway, startGateway } from "../../support/gateway.ts";

type Face = "chat" | "responses" | "messages" | "gemini";
type Protocol = "openai" | "openai-responses" | "anthropic" | "gemini";

/** Each face relayed (same protocol upstream) and translated (another). */
const ROUTES: Array<{ face: Face; upstream: Protocol; relayed: boolean }> = [
  { face: "chat", upstream: "openai", relayed: true },
  { face: "chat", upstream: "anthropic", relayed: false },
  { face: "responses", upstream: "openai-responses", relayed: true },
  { face: "responses", upstream: "gemini", relayed: false },
  { face: "messages", upstream: "anthropic", relayed: true },
  { face: "messages", upstream: "openai", relayed: false },
  { face: "gemini", upstream: "gemini", relayed: true },
  { face: "gemini", upstream: "openai-responses", relayed: false },
];

const keyOf = (i: number) => `sk-test-budget-route-${i}-0123456789`;
const modelOf = (p: Protocol) => `f-${p}/m`;

let gw: RunningGateway;
const fakes = new Map<Protocol, FakeUpstream>();

before(async () => {
  for (const p of ["openai", "openai-responses", "anthropic", "gemini"] as const)
    fakes.set(p, await startFakeUpstream(p));
  gw = await startGateway({
    storage: { url: "sqlite::memory:" },
    providers: [...fakes].map(([p, fake]) => fakeProvider(`f-${p}`, fake)),
    // The fakes' default usage (16 tokens) at $1,000 per million: $0.016 a request, over the budget.
    // (A request must fit the budget to be admitted: max_tokens 5 holds about $0.006 of the $0.01.)
    models: [...fakes.keys()].map((p) =>
      fakeModel(modelOf(p), [`f-${p}`], { prompt: 1000, completion: 1000 }),
    ),
    keys: ROUTES.map((_, i) => ({
      key: keyOf(i),
      account: "acme",
      credits: 10,
      budget: { usd: 0.01, period: "day" },
    })),
  });
});
after(async () => {
  await gw?.stop();
  await Promise.all([...fakes.values()].map((f) => f.close()));
});

/** One request through the face's official SDK, retries off; resolves to its HTTP status. */
async function ask(face: Face, apiKey: string, model: string): Promise<number> {
  const status = (err: unknown) => (err as { status?: number }).status ?? -1;
  try {
    if (face === "chat")
      await new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions.create({
        model,
        messages: [{ role: "user", content: "hi" }],
      });
    else if (face === "responses")
      await new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 }).responses.create({
        model,
        input: "hi",
      });
    else if (face === "messages")
      await new Anthropic({
        apiKey,
        baseURL: gw.url,
        maxRetries: 0,
        defaultHeaders: { "anthropic-version": "2023-06-01" },
      }).messages.create({ model, max_tokens: 5, messages: [{ role: "user", content: "hi" }] });
    else
      await new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url } }).models.generateContent({
        model,
        contents: "hi",
      });
    return 200;
  } catch (err) {
    return status(err);
  }
}

const BUDGET_STATUS: Record<Face, number> = { chat: 429, responses: 429, messages: 402, gemini: 429 };

for (const [i, route] of ROUTES.entries()) {
  test(`${route.face} → ${route.upstream} (${route.relayed ? "relayed" : "translated"}): refused once the budget is spent`, async () => {
    const fake = fakes.get(route.upstream)!;
    const before = fake.requests.length;
    assert.equal(await ask(route.face, keyOf(i), modelOf(route.upstream)), 200);
    assert.equal(fake.requests.length, before + 1);
    assert.equal(await ask(route.face, keyOf(i), modelOf(route.upstream)), BUDGET_STATUS[route.face]);
    assert.equal(fake.requests.length, before + 1, "the refused request reached the upstream");
  });
}

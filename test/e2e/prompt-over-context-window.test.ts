// A prompt longer than the model's context window is a 400 that names the member holding the prompt,
// in the caller's protocol: `messages` (chat-completions, messages), `contents` (content-generation),
// `input` (Responses). Found by the endpoint fuzz (seed 131252118, case 4064), which answered it with
// `param: null`: the local models check the window on the IR request, where no protocol's names are.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const MODEL = "acme/tiny-window";
/** Far past the model's 64 tokens. */
const PROMPT = "The quick brown fox jumps over the lazy dog. ".repeat(40);

let gw: RunningGateway;
before(async () => {
  gw = await startGateway({
    ...baseConfig(mkdtempSync(join(tmpdir(), "switchyard-window-"))),
    models: [
      {
        id: MODEL,
        context_length: 64,
        max_output_tokens: 16,
        endpoints: [{ provider: "local", model: "echo-1" }],
      },
    ],
  });
});
after(() => gw?.stop());

/** The messages and content-generation errors have no param member: the field leads the message. */
function leadingField(body: any): string | undefined {
  return /^([\w.[\]]+):/.exec(body.error?.message ?? "")?.[1];
}

interface Case {
  path: string;
  headers: Record<string, string>;
  body: (stream: boolean) => object;
  /** The field the answer names, read from its error body. */
  named: (body: any) => string | undefined;
  field: string;
}

const cases: Record<string, Case> = {
  "chat-completions": {
    path: "/v1/chat/completions",
    headers: { authorization: `Bearer ${PAYG_KEY}` },
    body: (stream) => ({ model: MODEL, stream, messages: [{ role: "user", content: PROMPT }] }),
    named: (body) => body.error?.param,
    field: "messages",
  },
  messages: {
    path: "/v1/messages",
    headers: { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01" },
    body: (stream) => ({
      model: MODEL,
      stream,
      max_tokens: 8,
      messages: [{ role: "user", content: PROMPT }],
    }),
    named: leadingField,
    field: "messages",
  },
  responses: {
    path: "/v1/responses",
    headers: { authorization: `Bearer ${PAYG_KEY}` },
    body: (stream) => ({ model: MODEL, stream, input: PROMPT }),
    named: (body) => body.error?.param,
    field: "input",
  },
  "content-generation": {
    path: `/v1beta/models/${MODEL}:generateContent`,
    headers: { "x-goog-api-key": PAYG_KEY },
    body: () => ({ contents: [{ role: "user", parts: [{ text: PROMPT }] }] }),
    named: leadingField,
    field: "contents",
  },
};

for (const [name, c] of Object.entries(cases))
  for (const stream of [false, true]) {
    if (name === "content-generation" && stream) continue;
    test(`${name}${stream ? ", streamed" : ""}: a prompt past the context window is a 400 naming ${c.field}`, async () => {
      const res = await fetch(`${gw.url}${c.path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...c.headers },
        body: JSON.stringify(c.body(stream)),
      });
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(c.named(body), c.field, JSON.stringify(body));
      assert.match(JSON.stringify(body), /context window of 64 tokens/);
    });
  }

test("content-generation, streamed: a prompt past the context window is a 400 naming contents", async () => {
  const res = await fetch(`${gw.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": PAYG_KEY },
    body: JSON.stringify(cases["content-generation"]!.body(true)),
  });
  const body = await res.json();
  assert.equal(res.status, 400, JSON.stringify(body));
  assert.equal(cases["content-generation"]!.named(body), "contents", JSON.stringify(body));
});

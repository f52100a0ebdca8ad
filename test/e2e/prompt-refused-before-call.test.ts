// A translated request the upstream cannot take is a 400 naming the caller's prompt member (`messages`,
// `contents`, `input`), refused before any call: the upstream's own 400 would name its field
// (`contents`), not the client's, and cost a round trip; and the IR's positions are not the client's
// (a chat system message, a Responses item count differently), so no index is given, only what the
// part is. Cases:
// - no message for the upstream to answer. The messages and content-generation protocols take no
//   request without a turn (a system prompt alone is refused); chat-completions takes a system
//   message alone. Found by the endpoint fuzz (seed 3779571869, case 2357: a Responses `input: []` to
//   a content-generation upstream came back as `param: null`);
// - a tool result answering no earlier call, to a content-generation upstream (its results are named
//   by the function's name, which only the call gives). Found by the fuzz too (seed 2251903921, case
//   5336: named `messages[2].content[0]`, a position in the IR, for a Responses client);
// - an audio part for a messages upstream (which takes no audio).

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

let gw: RunningGateway;
const fakes: Record<string, FakeUpstream> = {};

before(async () => {
  const [fo, fa, fg] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("anthropic"),
    startFakeUpstream("gemini"),
  ]);
  Object.assign(fakes, { fo, fa, fg });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-prompt-refused-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: Object.entries(fakes).map(([id, fake]) => fakeProvider(id, fake)),
      models: Object.keys(fakes).map((id) => fakeModel(`${id}/m`, [id])),
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
});

async function post(path: string, headers: Record<string, string>, body: object) {
  const res = await fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const responses = (body: object) => post("/v1/responses", { authorization: `Bearer ${PAYG_KEY}` }, body);
const chat = (body: object) => post("/v1/chat/completions", { authorization: `Bearer ${PAYG_KEY}` }, body);

/** Sends, and checks that the upstream was not called. */
/**
 * Sends, and checks that the upstream was not called and that the answer is a 400 naming `field`
 * (its `param`, or in the messages protocol's shape, which has none, the field leading its message).
 * Returns the answer's body.
 */
async function refusedBeforeCall(
  fake: string,
  field: string,
  send: () => Promise<{ status: number; body: any }>,
): Promise<any> {
  const before = fakes[fake]!.requests.length;
  const { status, body } = await send();
  assert.equal(fakes[fake]!.requests.length, before, "the upstream was called");
  assert.equal(status, 400, JSON.stringify(body));
  const named = body.error.param ?? /^([\w.[\]]+):/.exec(body.error.message)?.[1];
  assert.equal(named, field, JSON.stringify(body));
  return body;
}

for (const upstream of ["fo", "fa", "fg"])
  for (const stream of [false, true])
    test(`Responses, input [] → ${upstream}${stream ? ", streamed" : ""}: 400 naming input, no upstream call`, async () => {
      const body = await refusedBeforeCall(upstream, "input", () =>
        responses({ model: `${upstream}/m`, input: [], stream }),
      );
      assert.match(body.error.message, /^input: must hold at least one message/);
    });

for (const upstream of ["fa", "fg"])
  test(`Responses, instructions and input [] → ${upstream}: 400 naming input (the protocol needs a turn)`, async () => {
    const body = await refusedBeforeCall(upstream, "input", () =>
      responses({ model: `${upstream}/m`, input: [], instructions: "Be brief." }),
    );
    assert.match(body.error.message, /besides the system prompt/);
  });

test("Responses, instructions and input [] → a chat-completions upstream: sent as a system message", async () => {
  const { status, body } = await responses({ model: "fo/m", input: [], instructions: "Be brief." });
  assert.equal(status, 200, JSON.stringify(body));
  const sent = fakes.fo!.requests.at(-1)!.body as { messages: Array<{ role: string }> };
  assert.deepEqual(
    sent.messages.map((m) => m.role),
    ["system"],
  );
});

test("messages, a user turn with no content → a content-generation upstream: 400 naming messages", async () => {
  // The fuzz, seed 1535546815 case 1766: the encoder left the empty turn out, and the upstream's 400
  // named its own `contents`. (To a messages upstream the request is relayed as it came.)
  const body = await refusedBeforeCall("fg", "messages", () =>
    post(
      "/v1/messages",
      { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01" },
      { model: "fg/m", max_tokens: 64, messages: [{ role: "user", content: [] }] },
    ),
  );
  assert.match(body.error.message, /^messages: must hold at least one message with content/);
});

for (const upstream of ["fa", "fg"])
  test(`chat, a system message alone → ${upstream}: 400 naming messages`, async () => {
    await refusedBeforeCall(upstream, "messages", () =>
      chat({ model: `${upstream}/m`, messages: [{ role: "system", content: "Be brief." }] }),
    );
  });

test("Responses, a tool result answering no call → a content-generation upstream: 400 naming input", async () => {
  const body = await refusedBeforeCall("fg", "input", () =>
    responses({
      model: "fg/m",
      input: [
        { role: "user", content: "What is the weather?" },
        { type: "function_call_output", call_id: "call_nowhere", output: "sunny" },
      ],
    }),
  );
  assert.match(
    body.error.message,
    /^input: the tool result for call call_nowhere answers no earlier tool call/,
  );
});

test("chat, an audio part → a messages upstream: 400 naming messages", async () => {
  const body = await refusedBeforeCall("fa", "messages", () =>
    chat({
      model: "fa/m",
      messages: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "What is said here?" },
            { type: "input_audio", input_audio: { data: "UklGRg==", format: "wav" } },
          ],
        },
      ],
    }),
  );
  assert.match(body.error.message, /^messages: an audio part: audio input is not supported/);
});

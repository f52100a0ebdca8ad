// Found by the conformance matrix (docs/compatibility.md): Claude Code 2.1 streams with
// `thinking: { type: "adaptive", display: "updates" }`, a display value newer than "summarized" and
// "omitted". The gateway refused it with a 400 naming thinking.display, and Claude Code retried each
// turn twice before dropping the field. `display` only says how thinking is shown: any string is
// taken (and named in x-switchyard-ignored); a value that is not a string is still a 400 naming it.
// Driven by @anthropic-ai/sdk, streamed as Claude Code streams, against the local thinking model.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";

let gw: RunningGateway;
let client: Anthropic;

before(async () => {
  gw = await startGateway();
  client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
});
after(() => gw?.stop());

/** A streamed turn with the given display; the raw response too, for its headers. */
function turn(display: unknown) {
  return client.messages
    .stream({
      model: "local/think-1",
      max_tokens: 2048,
      thinking: { type: "adaptive", display } as any,
      messages: [{ role: "user", content: "Hello" }],
    })
    .withResponse();
}

describe("thinking.display as Claude Code sends it", () => {
  for (const display of ["updates", "summarized", "omitted", "display"]) {
    test(`"${display}" is served, the field named as ignored`, async () => {
      const { data: stream, response } = await turn(display);
      const message = await stream.finalMessage();
      assert.equal(message.stop_reason, "end_turn");
      assert.ok(
        message.content.some((b) => b.type === "thinking"),
        "the model still thought",
      );
      assert.match(response.headers.get("x-switchyard-ignored") ?? "", /thinking\.display/);
    });
  }

  test("a display that is not a string is a 400 naming the field", async () => {
    await assert.rejects(
      async () => (await turn(3)).data.finalMessage(),
      (error: any) => error.status === 400 && /thinking\.display/.test(error.message),
    );
  });
});

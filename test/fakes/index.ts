// Fake upstream providers for tests: each speaks one provider's exact native wire format, rendered by
// hand (independent of src/), and answers from a script of protocol-neutral replies (see reply.ts).
//
//   const fake = await startFakeUpstream("anthropic");
//   fake.script({ blocks: [{ type: "text", text: "hi" }], usage: { input: 5, output: 2 } });
//   … point the gateway (or an SDK) at fake.url …
//   fake.requests[0].body; await fake.close();

import { anthropicDialect } from "./anthropic.ts";
import type { Dialect, FakeOptions } from "./dialect.ts";
import { geminiDialect } from "./gemini.ts";
import { openaiDialect } from "./openai.ts";
import { openaiResponsesDialect } from "./openai-responses.ts";
import type { FakeProtocol } from "./reply.ts";
import { type FakeUpstream, startFakeServer } from "./server.ts";

export { type FakeOptions, fakeTokenCount, type RecordedRequest } from "./dialect.ts";
export * from "./reply.ts";
export type { FakeUpstream } from "./server.ts";

const DIALECTS: Record<FakeProtocol, Dialect> = {
  openai: openaiDialect,
  anthropic: anthropicDialect,
  gemini: geminiDialect,
  "openai-responses": openaiResponsesDialect,
};

export function startFakeUpstream(protocol: FakeProtocol, options: FakeOptions = {}): Promise<FakeUpstream> {
  return startFakeServer(DIALECTS[protocol], options);
}

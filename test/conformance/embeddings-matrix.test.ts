// The conformance matrix's embedding rows (test/conformance/embeddings.ts), in `npm test`: each
// embedding client × local/embed-1, an OpenAI-compatible upstream and a Gemini upstream.

import { after, before, describe, test } from "node:test";
import {
  EMBEDDING_CLIENTS,
  EMBEDDING_COLUMNS,
  type EmbeddingStage,
  runEmbeddingCell,
  startEmbeddingStage,
} from "./embeddings.ts";

let stage: EmbeddingStage;
before(async () => {
  stage = await startEmbeddingStage();
});
after(() => stage?.close());

for (const client of EMBEDDING_CLIENTS)
  describe(client.name, () => {
    for (const column of EMBEDDING_COLUMNS)
      test(`× ${column}: the upstream's vectors, in order, and the generation looked up`, () =>
        runEmbeddingCell(stage, client, column));
  });

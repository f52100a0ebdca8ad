// The primary of `serve --workers N` hands its loaded configuration to each worker over IPC
// (structured clone), so the configuration must stay plain data: a class instance would arrive
// without its prototype, a function not at all.

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { deserialize, serialize } from "node:v8";
import { stringify } from "yaml";
import { loadConfig } from "../../src/config/load.ts";

test("a loaded configuration survives the trip to a worker unchanged", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-config-"));
  const file = join(dir, "switchyard.yaml");
  writeFileSync(
    file,
    stringify({
      storage: { url: "sqlite::memory:" },
      redis: { url: "redis://127.0.0.1:6379" },
      providers: [{ id: "local", chunk_delay_ms: 5 }],
      routing: { type: "round_robin" },
      keys: [{ key: "sk-test-clone-0123456789", account: "acme", credits: 5 }],
    }),
  );
  for (const config of [loadConfig(undefined), loadConfig(file)])
    assert.deepStrictEqual(deserialize(serialize(config)), config);
});

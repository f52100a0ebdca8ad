// docs/configuration.md cannot drift from the schema: its key tables are what the schema generates,
// every key the schema accepts appears in them, and its YAML examples load.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { z } from "zod";
import { withKeyTables } from "../../src/config/docs.ts";
import { loadConfig } from "../../src/config/load.ts";
import { configSchema } from "../../src/config/schema.ts";

const DOCS = new URL("../../docs/configuration.md", import.meta.url);
const docs = readFileSync(DOCS, "utf8");

test("the key tables in docs/configuration.md are the ones the schema generates (npm run docs:config)", () => {
  assert.equal(docs, withKeyTables(docs), "docs/configuration.md is stale: run `npm run docs:config`");
});

test("every key the schema accepts, at any depth, is in a key table", () => {
  const documented = new Set(
    [...docs.matchAll(/^\| `([^`]+)` \|/gm)].flatMap((m) => m[1].split(/[.[\]]+/)).filter(Boolean),
  );
  // Keys described once under a placeholder (`<category>`) are listed in that row's text.
  const listed = (key: string) => docs.includes(`\`${key}\`,`) || docs.includes(`\`${key}\`.`);
  const missing = [...keysOf(configSchema)].filter((key) => !documented.has(key) && !listed(key));
  assert.deepEqual(missing, []);
});

test("the YAML examples of docs/configuration.md and README.md load", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const examples = [...(docs + readme).matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(examples.length >= 3);
  for (const example of examples) {
    const file = join(mkdtempSync(join(tmpdir(), "switchyard-docs-")), "switchyard.yaml");
    writeFileSync(file, example);
    assert.doesNotThrow(() => loadConfig(file, {}), example);
  }
});

/** Every object key anywhere in a schema, found by its own walk (not the generator's). */
function keysOf(
  schema: z.core.$ZodType,
  seen = new Set<z.core.$ZodType>(),
  keys = new Set<string>(),
): Set<string> {
  if (seen.has(schema)) return keys;
  seen.add(schema);
  const def = schema._zod.def as Record<string, any>;
  if (def.type === "object")
    for (const [key, child] of Object.entries(def.shape as Record<string, z.core.$ZodType>)) {
      keys.add(key);
      keysOf(child, seen, keys);
    }
  for (const inner of [def.innerType, def.in, def.out, def.element, ...(def.options ?? [])])
    if (inner?._zod) keysOf(inner, seen, keys);
  return keys;
}

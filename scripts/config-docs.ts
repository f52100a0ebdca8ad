// `npm run docs:config`: rewrites the key tables of docs/configuration.md from the configuration
// schema (src/config/schema.ts, src/catalog/schema.ts). test/config/docs.test.ts fails until it is run.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withKeyTables } from "../src/config/docs.ts";

const file = join(import.meta.dirname, "..", "docs", "configuration.md");
const before = readFileSync(file, "utf8");
const after = withKeyTables(before);
if (after === before) process.stdout.write("docs/configuration.md is up to date\n");
else {
  writeFileSync(file, after);
  process.stdout.write("docs/configuration.md: key tables rewritten\n");
}

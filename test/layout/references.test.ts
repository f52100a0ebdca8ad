// Every reference a reader follows stays followable with the repository alone: a comment or test in
// src/ or test/ that names a section of a doc (`docs/architecture.md §10`) names a doc that exists
// and a section it has, and the files the docs name (`test/…`, `src/…`) exist.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";

const ROOT = resolve(import.meta.dirname, "../..");

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "fixtures" ? [] : files(path, ext);
    return e.name.endsWith(ext) ? [path] : [];
  });
}

/** The section numbers a doc has: `## 10. …`, `### 2b. …`. */
function sections(doc: string): Set<string> {
  const text = readFileSync(join(ROOT, doc), "utf8");
  return new Set([...text.matchAll(/^#{2,3} (\d+[a-z]?)\. /gm)].map((m) => m[1]));
}

test("each `docs/<doc>.md §n` in src/ and test/ names a doc that exists and a section it has", () => {
  const broken: string[] = [];
  const known = new Map<string, Set<string> | undefined>();
  for (const file of [...files(join(ROOT, "src"), ".ts"), ...files(join(ROOT, "test"), ".ts")]) {
    for (const m of readFileSync(file, "utf8").matchAll(/docs\/([a-z-]+\.md)(?: §(\d+[a-z]?))?/g)) {
      const doc = `docs/${m[1]}`;
      if (!known.has(doc)) known.set(doc, existsSync(join(ROOT, doc)) ? sections(doc) : undefined);
      const has = known.get(doc);
      if (!has) broken.push(`${relative(ROOT, file)}: ${doc} does not exist`);
      else if (m[2] && !has.has(m[2])) broken.push(`${relative(ROOT, file)}: ${doc} has no §${m[2]}`);
    }
  }
  assert.ok(known.size > 0, "the scan found references");
  assert.deepEqual(broken, []);
});

test("the files docs/ and README.md name exist", () => {
  const missing: string[] = [];
  for (const doc of [...files(join(ROOT, "docs"), ".md"), join(ROOT, "README.md")])
    for (const m of readFileSync(doc, "utf8").matchAll(/`((?:src|test)\/[\w./-]+\.ts)`/g))
      if (!existsSync(join(ROOT, m[1]))) missing.push(`${relative(ROOT, doc)}: ${m[1]}`);
  assert.deepEqual(missing, []);
});

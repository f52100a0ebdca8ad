// The cloud platforms' libraries are loaded only when a platform is called (docs/clouds.md): src/
// names them in `import type` and dynamic `import()` only, so a gateway without a platform loads none
// of them and starts as fast as before.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const SRC = new URL("../../src/", import.meta.url).pathname;
const LIBRARIES = /^(@smithy\/|@aws-sdk\/|@azure\/|google-auth-library)/;
/** Modules that use these libraries, themselves loaded only by dynamic import. */
const LOADED_LAZILY = ["providers/aws/event-stream.ts"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

test("src/ imports the cloud libraries, and the modules using them, only dynamically", () => {
  const statics: string[] = [];
  for (const file of sources(SRC)) {
    const name = file.slice(SRC.length);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/^import (?!type\b)[^;]*?from "([^"]+)";/gms)) {
      const target = match[1]!;
      const lazyModule = LOADED_LAZILY.some((lazy) => target.endsWith(lazy.split("/").slice(1).join("/")));
      if (LOADED_LAZILY.includes(name)) continue;
      if (LIBRARIES.test(target) || lazyModule) statics.push(`${name} → ${target}`);
    }
  }
  assert.deepEqual(statics, []);
});

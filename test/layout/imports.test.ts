// The layering that docs/architecture.md describes, checked on the source itself: a static scan of
// every relative import in src/ (no code is run). Top-level folders import one another without a
// cycle, and a protocol module never imports another protocol (they meet only in src/ir).

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const SRC = resolve(import.meta.dirname, "../../src");

/** Every .ts file under src/, relative to it. */
function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [relative(SRC, join(dir, e.name))]
        : [],
  );
}

/** The files a source imports (static `import … from`, `export … from`, `import()`), relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((m) => m[1]);
  return specifiers.map((s) => relative(SRC, resolve(SRC, dirname(file), s)));
}

const top = (file: string) => file.split("/")[0];

/** Folder → the folders it imports from, with one file that does, for the failure message. */
function folderGraph(): Map<string, Map<string, string>> {
  const graph = new Map<string, Map<string, string>>();
  for (const file of sources()) {
    const from = top(file);
    for (const target of importsOf(file)) {
      const to = top(target);
      if (to === from || to.endsWith(".ts")) continue;
      if (!graph.has(from)) graph.set(from, new Map());
      if (!graph.get(from)?.has(to)) graph.get(from)?.set(to, `${file} → ${target}`);
    }
  }
  return graph;
}

/** A cycle in the graph as a list of folders, or undefined. */
function findCycle(graph: Map<string, Map<string, string>>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === "done") return undefined;
    if (state.get(node) === "open") return [...path.slice(path.indexOf(node)), node];
    state.set(node, "open");
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

test("the scan sees the imports it is meant to check", () => {
  const graph = folderGraph();
  assert.ok(graph.get("gateway")?.has("ledger"), "gateway imports ledger");
  assert.ok(graph.get("protocols")?.has("ir"), "protocols import ir");
  assert.deepEqual(
    findCycle(
      new Map([
        ["a", new Map([["b", ""]])],
        ["b", new Map([["a", ""]])],
      ]),
    ),
    ["a", "b", "a"],
  );
});

test("no import cycle between the top-level folders of src/", () => {
  const graph = folderGraph();
  const cycle = findCycle(graph);
  const edges = cycle?.slice(1).map((to, i) => graph.get(cycle[i])?.get(to));
  assert.equal(cycle, undefined, `cycle ${cycle?.join(" → ")}:\n${edges?.join("\n")}`);
});

test("a protocol module imports no other protocol module (they meet in src/ir)", () => {
  const crossings: string[] = [];
  for (const file of sources().filter((f) => f.startsWith("protocols/"))) {
    const own = file.split("/")[1];
    if (own.endsWith(".ts")) continue; // protocols/index.ts and relays.ts list every module
    for (const target of importsOf(file)) {
      const [folder, other] = target.split("/");
      if (folder === "protocols" && other !== own && other !== "shared" && !other.endsWith(".ts"))
        crossings.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(crossings, []);
});

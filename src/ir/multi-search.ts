// Where each of many strings first occurs in one text, found in one pass over the text
// (Aho–Corasick). The local model asks this twice per request — which stop sequence comes first,
// which tools the user names — and the gateway for each streamed piece of an answer it cuts at
// stop sequences itself (stop-sequences.ts). `indexOf` once per string costs the text's length
// times the number of strings: 1,000 tool names of the form `aaa…ab` against 1 MiB of `a` took 1.8 s. Here the
// cost is the text's length plus the strings' total length.

/** Up to this many strings, `indexOf` for each is as quick and needs no automaton. */
const FEW = 16;
/** The automaton holds a node per character: more than this in all is refused (see `searchable`). */
export const MAX_PATTERN_CHARS = 256 * 1024;

/** Whether `firstOccurrences` takes these patterns (a few of any length, or many short ones). */
export function searchable(patterns: readonly string[]): boolean {
  return patterns.length <= FEW || patterns.reduce((n, p) => n + p.length, 0) <= MAX_PATTERN_CHARS;
}

/** For each pattern, the index of its first occurrence in `text` (-1 if none), as `text.indexOf` gives it. */
export function firstOccurrences(text: string, patterns: readonly string[]): number[] {
  if (patterns.length <= FEW) return patterns.map((p) => text.indexOf(p));
  if (!searchable(patterns)) throw new RangeError("too many characters to search for at once");
  const found: number[] = patterns.map((p) => (p.length === 0 ? 0 : -1));
  const automaton = build(patterns);
  if (automaton.size === 1) return found;
  const { edges, fail, output, depth, ends } = automaton;
  // A node is `reported` once every pattern ending there or at its output links has been recorded:
  // each pattern's first match is its earliest, so a reported chain is never walked again.
  const reported = new Uint8Array(automaton.size);
  let node = 0;
  let unreported = found.filter((at) => at < 0).length;
  for (let i = 0; i < text.length && unreported > 0; i++) {
    const code = text.charCodeAt(i);
    let next = edges.get(node * 65536 + code);
    while (next === undefined && node !== 0) {
      node = fail[node];
      next = edges.get(node * 65536 + code);
    }
    node = next ?? 0;
    for (let at = node; at > 0 && reported[at] === 0; at = output[at]) {
      reported[at] = 1;
      for (const index of ends.get(at) ?? []) {
        if (found[index] >= 0) continue;
        found[index] = i - depth[at] + 1;
        unreported--;
      }
    }
  }
  return found;
}

interface Automaton {
  size: number;
  /** Trie edges, keyed by node * 65536 + UTF-16 code unit. */
  edges: Map<number, number>;
  fail: Int32Array;
  /** The nearest node along the failure links where a pattern ends (0: none). */
  output: Int32Array;
  depth: Int32Array;
  /** Patterns ending at a node, by node. */
  ends: Map<number, number[]>;
}

function build(patterns: readonly string[]): Automaton {
  const edges = new Map<number, number>();
  const children: number[][] = [[]];
  const depthOf: number[] = [0];
  const ends = new Map<number, number[]>();
  patterns.forEach((pattern, index) => {
    if (pattern.length === 0) return;
    let node = 0;
    for (let i = 0; i < pattern.length; i++) {
      const key = node * 65536 + pattern.charCodeAt(i);
      let next = edges.get(key);
      if (next === undefined) {
        next = depthOf.length;
        depthOf.push(depthOf[node] + 1);
        children.push([]);
        children[node].push(key);
        edges.set(key, next);
      }
      node = next;
    }
    const list = ends.get(node);
    if (list) list.push(index);
    else ends.set(node, [index]);
  });
  const size = depthOf.length;
  const fail = new Int32Array(size);
  const output = new Int32Array(size);
  // Breadth first, so that a node's failure link is settled before its children's.
  const queue: number[] = [0];
  for (let head = 0; head < queue.length; head++) {
    const parent = queue[head];
    for (const key of children[parent]) {
      const child = edges.get(key) as number;
      const code = key % 65536;
      if (parent !== 0) {
        let f = fail[parent];
        let next = edges.get(f * 65536 + code);
        while (next === undefined && f !== 0) {
          f = fail[f];
          next = edges.get(f * 65536 + code);
        }
        fail[child] = next ?? 0;
      }
      output[child] = ends.has(fail[child]) ? fail[child] : output[fail[child]];
      queue.push(child);
    }
  }
  return { size, edges, fail, output, depth: Int32Array.from(depthOf), ends };
}

/** The pattern that occurs first in `text` and where (the earlier listed one on a tie); empty patterns never match. */
export function earliestOf(
  text: string,
  patterns: readonly string[],
): { at: number; pattern: string } | undefined {
  const found = firstOccurrences(text, patterns);
  let best: { at: number; pattern: string } | undefined;
  patterns.forEach((pattern, i) => {
    const at = pattern ? found[i] : -1;
    if (at >= 0 && (!best || at < best.at)) best = { at, pattern };
  });
  return best;
}

// Streamed function-call arguments (`functionCall.partialArgs`, sent when a request sets
// `streamFunctionCallArguments`): each item sets one value at an RFC 9535 JSON path ("$.a.b[0]"),
// and string values with `willContinue` arrive in pieces. The pieces are assembled into the whole
// `args` object, which is emitted once the call completes: the paths arrive in no guaranteed order,
// so the JSON text cannot be written out piece by piece.

import { isObject } from "../shared/validate.ts";
import type { GeminiPartialArg } from "./wire-types.ts";

type Segment = string | number;

/** "$.a['b c'][0].d" → ["a", "b c", 0, "d"]; undefined when the path is not one this reader knows. */
export function parseJsonPath(path: string): Segment[] | undefined {
  if (!path.startsWith("$")) return undefined;
  const segments: Segment[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else segments.push((match[3] ?? match[4]).replace(/\\(.)/g, "$1"));
  }
  return segments;
}

export class PartialArgs {
  readonly args: Record<string, unknown>;
  /** Paths whose string value is still arriving. */
  private readonly continuing = new Set<string>();

  constructor(initial: Record<string, unknown> = {}) {
    this.args = structuredClone(initial);
  }

  add(items: unknown): void {
    if (!Array.isArray(items)) return;
    for (const item of items) if (isObject(item)) this.addOne(item as GeminiPartialArg);
  }

  private addOne(item: GeminiPartialArg): void {
    if (typeof item.jsonPath !== "string") return;
    const path = parseJsonPath(item.jsonPath);
    if (!path || path.length === 0) return;
    let value: unknown;
    if (typeof item.stringValue === "string") value = item.stringValue;
    else if (typeof item.numberValue === "number") value = item.numberValue;
    else if (typeof item.boolValue === "boolean") value = item.boolValue;
    else if (item.nullValue !== undefined) value = null;
    else return;
    const continued = this.continuing.has(item.jsonPath);
    if (item.willContinue === true) this.continuing.add(item.jsonPath);
    else this.continuing.delete(item.jsonPath);
    setAt(this.args, path, value, continued && typeof value === "string");
  }
}

function setAt(root: Record<string, unknown>, path: Segment[], value: unknown, append: boolean): void {
  let node: Record<string | number, unknown> = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    let next = node[key];
    if (typeof next !== "object" || next === null) {
      next = typeof path[i + 1] === "number" ? [] : {};
      node[key] = next;
    }
    node = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  const previous = node[last];
  node[last] = append && typeof previous === "string" ? previous + (value as string) : value;
}

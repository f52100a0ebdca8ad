// Reads a V8 .cpuprofile (written by `node --cpu-prof`) and sums self time by function and by file,
// so the most expensive code on the request path can be named.
//
// Format: `nodes` (id, callFrame {functionName, url, lineNumber}, children), `samples` (the node id
// on top of the stack at each sample) and `timeDeltas` (µs since the previous sample). Sample i
// lasts until sample i+1, so it is charged timeDeltas[i + 1].

import { readFileSync } from "node:fs";
import { ROOT } from "./processes.ts";

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** µs on the monotonic clock, the one process.hrtime reads (CLOCK_MONOTONIC on Linux). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock in µs (process.hrtime.bigint() / 1000n). */
export interface Window {
  fromUs: number;
  toUs: number;
}

export interface SelfTime {
  /** "function (file:line)" or a V8 pseudo-frame such as "(garbage collector)". */
  name: string;
  file: string;
  ms: number;
  /** Share of the busy time (everything but "(idle)"), in percent. */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  /** False when the load window did not match the profile's clock and every sample was counted. */
  windowed: boolean;
  functions: SelfTime[];
  files: SelfTime[];
  /** src/, node_modules/<package>, node: internals, V8 pseudo-frames. */
  areas: SelfTime[];
  /** Inclusive time (self + everything called from it) by function: where a cost starts. */
  inclusiveFunctions: SelfTime[];
  /** Inclusive time by area: everything spent under any frame of that area. */
  inclusiveAreas: SelfTime[];
}

/** Only samples taken inside `window` count (start-up and shutdown are not the request path). */
export function summarizeProfile(path: string, window?: Window): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, "utf8")) as CpuProfile;
  const at: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) {
    t += delta;
    at.push(t);
  }
  const inWindow = (i: number) => window === undefined || (at[i] >= window.fromUs && at[i] < window.toUs);
  const windowed = window !== undefined && at.some((_, i) => inWindow(i));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);

  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    if (windowed && !inWindow(i)) continue;
    const us = profile.timeDeltas[i + 1] ?? 0;
    selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + us);
  }

  // The distinct functions and areas on a node's stack, memoized per node (stacks share prefixes).
  const stacks = new Map<number, Stack>();
  const stackOf = (id: number): Stack => {
    let stack = stacks.get(id);
    if (stack) return stack;
    const parent = parentOf.get(id);
    const above = parent === undefined ? undefined : stackOf(parent);
    const frame = describe(nodes.get(id)!.callFrame);
    stack = {
      functions: new Map(above?.functions).set(frame.name, frame.file),
      areas: new Set(above?.areas).add(frame.area),
    };
    stacks.set(id, stack);
    return stack;
  };

  const self = { functions: new Tally(), files: new Tally(), areas: new Tally() };
  const inclusive = { functions: new Tally(), areas: new Tally() };
  let idleUs = 0;
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    const frame = describe(nodes.get(id)!.callFrame);
    totalUs += us;
    if (frame.name === "(idle)") {
      idleUs += us;
      continue;
    }
    self.functions.add(frame.name, us, frame.file);
    self.files.add(frame.file || frame.name, us, frame.file);
    self.areas.add(frame.area, us);
    const stack = stackOf(id);
    for (const [name, file] of stack.functions) inclusive.functions.add(name, us, file);
    for (const area of stack.areas) inclusive.areas.add(area, us);
  }
  const busyUs = totalUs - idleUs;
  return {
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    windowed,
    functions: self.functions.ranked(busyUs),
    files: self.files.ranked(busyUs),
    areas: self.areas.ranked(busyUs),
    inclusiveFunctions: inclusive.functions.ranked(busyUs),
    inclusiveAreas: inclusive.areas.ranked(busyUs),
  };
}

/** The distinct functions (name → file) and areas on a stack. */
interface Stack {
  functions: Map<string, string>;
  areas: Set<string>;
}

class Tally {
  private readonly entries = new Map<string, { file: string; us: number }>();

  add(name: string, us: number, file = ""): void {
    const entry = this.entries.get(name);
    if (entry) entry.us += us;
    else this.entries.set(name, { file, us });
  }

  ranked(busyUs: number): SelfTime[] {
    return [...this.entries]
      .map(([name, { file, us }]) => ({ name, file, ms: us / 1000, percent: (100 * us) / busyUs }))
      .sort((a, b) => b.ms - a.ms);
  }
}

function describe(frame: CallFrame): { name: string; file: string; area: string } {
  const file = shortFile(frame.url);
  const fn = frame.functionName || "(anonymous)";
  const name = file ? `${fn} (${file}:${frame.lineNumber + 1})` : fn.startsWith("(") ? fn : `${fn} (native)`;
  return { name, file, area: areaOf(file, frame.functionName) };
}

/** file:///work/main/src/x.ts → src/x.ts; node:internal/… stays as is. */
function shortFile(url: string): string {
  if (!url) return "";
  const path = url.startsWith("file://") ? new URL(url).pathname : url;
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

function areaOf(file: string, functionName: string): string {
  if (!file) return functionName.startsWith("(") ? functionName : "(native / V8 builtins)";
  if (file.startsWith("src/")) return `src/${file.split("/")[1]}/`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file);
  if (pkg) return `node_modules/${pkg[1]}`;
  if (file.startsWith("node:")) return "node: (core)";
  return file;
}

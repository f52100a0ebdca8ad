// `serve` runs with V8's young generation capped at SEMI_SPACE_MB for each of its two halves. V8
// sizes it from the machine's memory: with 16 GiB or more each half may grow to 64 MiB (twice the
// usual, as Node is built without pointer compression), and it does grow there when many new objects
// survive a collection, which is what opening many streams at once does. A gateway then keeps up to
// 128 MiB it has no use for while they stay open (BENCHMARKS.md, 10,000 idle streams). The size can
// only be given when the process starts, so `serve` restarts itself in place with it: process.execve
// keeps the process id and the open descriptors, and runs before any module of the gateway is loaded.
// A size chosen already, on node's command line or in NODE_OPTIONS, is the user's and is kept.

import { parseArgs } from "./args.ts";

const SEMI_SPACE_FLAG = "--max-semi-space-size";
const SEMI_SPACE_MB = 16;

/** The node flags `switchyard ARGS` should run with and does not, if any. */
export function missingHeapFlags(
  args: string[],
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string[] {
  if (!isServe(args)) return [];
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)];
  const named = (flag: string) => flag.replaceAll("_", "-").startsWith(SEMI_SPACE_FLAG);
  return given.some(named) ? [] : [`${SEMI_SPACE_FLAG}=${SEMI_SPACE_MB}`];
}

function isServe(args: string[]): boolean {
  try {
    return parseArgs(args).positionals[0] === "serve";
  } catch {
    return false; // a usage error: the command reports it
  }
}

/** Replaces this process with the same command run with the missing flags (see the top of this file). */
export function restartWithHeapFlags(args: string[]): void {
  const flags = missingHeapFlags(args, process.execArgv, process.env.NODE_OPTIONS);
  if (flags.length === 0 || typeof process.execve !== "function") return;
  try {
    process.execve(process.execPath, [
      process.execPath,
      ...flags,
      ...process.execArgv,
      process.argv[1],
      ...args,
    ]);
  } catch {
    // Not on this platform (Windows): serve with V8's own sizing.
  }
}

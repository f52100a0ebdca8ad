// `serve` runs with three V8 settings of its own, which can only be given when node starts
// (docs/operations.md, "Memory and threads"):
//
// - The young generation capped at SEMI_SPACE_MB for each of its two halves. V8 sizes it from the
//   machine's memory: with 16 GiB or more each half may grow to 64 MiB (twice the usual, as Node is
//   built without pointer compression), and it does grow there when many new objects survive a
//   collection, which is what opening many streams at once does. A gateway then keeps up to 128 MiB
//   it has no use for while they stay open (BENCHMARKS.md, 10,000 idle streams).
// - V8's helper threads (parallel and concurrent garbage collection, background compilation) sized
//   to the cores the process may use (`--v8-pool-size=0`: one fewer than them, at least one), not
//   Node's fixed 4. Four helpers on a gateway given one core (taskset, a container's cpuset) take
//   turns with the event loop in 4 ms slices: every request waits while a collection's tasks run,
//   16 ms and more (BENCHMARKS.md, "Session 11").
// - No pretenuring by allocation site (`--no-allocation-site-pretenuring`). When every object a
//   place in the code made since the last young collection is still alive at it, V8 decides to
//   allocate that place's objects straight into the old generation. In a gateway's first seconds of
//   load it decided so for about twenty places that also allocate per request: those objects then
//   die old, where only a full collection frees them, and keep the young objects they point to alive
//   until it runs. Young collections promoted ten times as much, a full collection ran every second
//   or two, and its marking took the event loop's turns (BENCHMARKS.md, "Session 12").
//
// So `serve` restarts itself in place with them: process.execve keeps the process id and the open
// descriptors, and runs before any module of the gateway is loaded. A setting given already, on
// node's command line or in NODE_OPTIONS, is the user's and is kept.

import { parseArgs } from "./args.ts";

const SEMI_SPACE_MB = 16;

/** Each flag `serve` runs with, by the names under which a user's own setting would be given. */
const SERVE_FLAGS: ReadonlyArray<{ names: string[]; flag: string }> = [
  { names: ["--max-semi-space-size"], flag: `--max-semi-space-size=${SEMI_SPACE_MB}` },
  { names: ["--v8-pool-size"], flag: "--v8-pool-size=0" },
  {
    names: ["--allocation-site-pretenuring", "--no-allocation-site-pretenuring"],
    flag: "--no-allocation-site-pretenuring",
  },
];

/** The node flags `switchyard ARGS` should run with and does not, if any. */
export function missingNodeFlags(
  args: string[],
  execArgv: readonly string[],
  nodeOptions: string | undefined,
): string[] {
  if (!isServe(args)) return [];
  const given = [...execArgv, ...(nodeOptions ?? "").split(/\s+/)].map((f) => f.replaceAll("_", "-"));
  const isGiven = (name: string) => given.some((f) => f === name || f.startsWith(`${name}=`));
  return SERVE_FLAGS.filter(({ names }) => !names.some(isGiven)).map((f) => f.flag);
}

function isServe(args: string[]): boolean {
  try {
    return parseArgs(args).positionals[0] === "serve";
  } catch {
    return false; // a usage error: the command reports it
  }
}

/** Replaces this process with the same command run with the missing flags (see the top of this file). */
export function restartWithNodeFlags(args: string[]): void {
  const flags = missingNodeFlags(args, process.execArgv, process.env.NODE_OPTIONS);
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
    // Not on this platform (Windows): serve with V8's own settings.
  }
}

// The CLI's flags, read by node:util parseArgs in strict mode: a flag not in FLAGS, a value given to a
// switch, or a flag missing its value is a usage error (exit 2), never silently ignored.

import { parseArgs as parseArgv } from "node:util";

/** Every flag any command takes (`switchyard --help` says which command takes which). */
const FLAGS = {
  config: { type: "string" },
  port: { type: "string" },
  host: { type: "string" },
  workers: { type: "string" },
  account: { type: "string" },
  credits: { type: "string" },
  name: { type: "string" },
  subscription: { type: "boolean" },
  rpm: { type: "string" },
  tpm: { type: "string" },
  concurrency: { type: "string" },
  budget: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

type FlagName = keyof typeof FLAGS;

export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

/**
 * A negative number (`accounts credit acme -5`, `--credits -5`) is a value, not a flag: no flag is
 * a digit. It is hidden from parseArgs behind this mark, which nobody types, and restored after.
 */
const NEGATIVE = "\u0000";

export function parseArgs(argv: string[]): Args {
  let parsed: ReturnType<typeof parseArgv<{ options: typeof FLAGS; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgv({
      args: argv.map((a) => (/^-\d/.test(a) ? NEGATIVE + a : a)),
      options: FLAGS,
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    // node's first sentence says what is wrong ("Unknown option '--prot'"); its advice is for scripts.
    const what = (err as Error).message.split(/\.(?:\s|$)/)[0];
    throw new UsageError(`${what} (switchyard --help lists the options)`);
  }
  const restore = (v: string) => (v.startsWith(NEGATIVE) ? v.slice(NEGATIVE.length) : v);
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values) as Array<[FlagName, string | boolean]>)
    if (value !== false) flags.set(name, value === true ? true : restore(value));
  return { positionals: parsed.positionals.map(restore), flags };
}

export class UsageError extends Error {}

export function stringFlag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

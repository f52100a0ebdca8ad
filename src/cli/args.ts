// Minimal flag parsing for the CLI: `--name value`, `--name=value` and bare positionals.

export interface Args {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[]): Args {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (eq > 0) flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags.set(arg.slice(2), argv[++i]);
    else flags.set(arg.slice(2), true);
  }
  return { positionals, flags };
}

export class UsageError extends Error {}

export function stringFlag(args: Args, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

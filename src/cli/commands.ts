// The `switchyard` commands (src/cli/main.ts is the entry point that loads them).

import { availableParallelism } from "node:os";
import { installKey } from "../auth/bootstrap.ts";
import { hashKey, keyKind, newKey } from "../auth/keys.ts";
import { parseDecimal, parseDiscount } from "../billing/money.ts";
import { type Config, ConfigError, loadConfig } from "../config/load.ts";
import { generationRecord } from "../gateway/lookup.ts";
import { ModelIndex } from "../gateway/models.ts";
import { GatewayError } from "../ir/errors.ts";
import { StoreUnavailable } from "../ledger/ledger-errors.ts";
import { openConfiguredStore } from "../ledger/open-store.ts";
import type { KeyBudget, KeyLimits, KeyRow } from "../ledger/types.ts";
import { parseBudget } from "../limits/budget.ts";
import { type Args, parseArgs, stringFlag, UsageError } from "./args.ts";
import { WorkersFailedError } from "./workers-failed.ts";

const HELP = `usage: switchyard <command> [options]

  serve [--config FILE] [--port N] [--host H] [--workers N|auto]
                                                start the gateway (no file: embedded default);
                                                --workers: N processes on one port (auto: one per core)
  models [--config FILE]                        list the served models
  keys create --account ID [--subscription] [--credits N] [--name TEXT]
              [--rpm N] [--tpm N] [--concurrency N] [--budget USD/day|month|total]
  keys list [--account ID]
  keys revoke KEY_ID_OR_PREFIX
  accounts credit ID AMOUNT                     add credits (USD) to an account
  accounts discount ID FRACTION                 discount on every generation (0.1 = 10 % off)
  generations show ID                           a generation record, as the lookup shows it

Every command takes --config FILE (the same file as serve) to find the store.`;

async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  const [command, sub] = args.positionals;
  if (!command || args.flags.has("help")) {
    process.stdout.write(`${HELP}\n`);
    return command ? 0 : 2;
  }
  const config = withServerFlags(loadConfig(stringFlag(args, "config")), args);
  switch (command) {
    case "serve": {
      // Loaded only here: the server's modules are most of a command's start-up, and the others
      // (keys, accounts, a configuration error) do without them.
      const { serve } = await import("./serve.ts");
      await serve(config, { workers: workersFlag(args) });
      return -1; // keeps running
    }
    case "models":
      for (const m of new ModelIndex(config.models, config.providers).served)
        process.stdout.write(`${m.id}\t${m.endpoints.map((e) => e.provider).join(",")}\n`);
      return 0;
    case "keys":
      return keys(sub, args, config);
    case "accounts":
      return accounts(sub, args, config);
    case "generations":
      return generations(sub, args, config);
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

function withServerFlags(config: Config, args: Args): Config {
  const port = stringFlag(args, "port");
  const host = stringFlag(args, "host");
  if (port !== undefined && !/^\d+$/.test(port))
    throw new UsageError("--port must be a number (0 picks a free port)");
  return {
    ...config,
    server: {
      ...config.server,
      port: port === undefined ? config.server.port : Number(port),
      host: host ?? config.server.host,
    },
  };
}

/** `--workers N|auto`: 1 (one process, no cluster) unless given. */
function workersFlag(args: Args): number {
  const value = stringFlag(args, "workers");
  if (value === undefined) return 1;
  if (value === "auto") return availableParallelism();
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError("--workers must be a number of processes (1 or more) or auto");
  return Number(value);
}

async function keys(sub: string | undefined, args: Args, config: Config): Promise<number> {
  const store = await openConfiguredStore(config);
  try {
    if (sub === "create") {
      const account = stringFlag(args, "account");
      if (!account) throw new UsageError("keys create needs --account ID");
      const key = newKey(args.flags.has("subscription") ? "subscription" : "payg");
      await installKey(store, {
        key,
        account,
        credits: creditsFlag(args),
        name: stringFlag(args, "name"),
        ...limitFlags(args),
      });
      const credits = creditsFlag(args);
      if (credits && (await store.accounts.getAccount(account))?.balance !== credits)
        await store.accounts.creditAccount(account, credits);
      process.stdout.write(`${key}\n`);
      process.stderr.write(`(${keyKind(key)} key for account ${account}; shown once, stored hashed)\n`);
      return 0;
    }
    if (sub === "list") {
      for (const k of await store.keys.listKeys(stringFlag(args, "account")))
        process.stdout.write(
          `${k.id}\t${k.prefix}\t${k.kind}\t${k.accountId}\t${new Date(k.createdAt).toISOString()}\t${k.revokedAt ? "revoked" : "active"}${limitsText(k)}\n`,
        );
      return 0;
    }
    if (sub === "revoke") {
      const which = args.positionals[2];
      if (!which) throw new UsageError("keys revoke needs a key id, prefix or the key itself");
      const target =
        which.startsWith("sk-") && which.length > 20 ? `key_${hashKey(which).slice(0, 16)}` : which;
      if (!(await store.keys.revokeKey(target))) {
        process.stderr.write(`switchyard: no key '${which}'\n`);
        return 1;
      }
      process.stdout.write(`revoked ${which}\n`);
      return 0;
    }
    throw new UsageError("keys needs create, list or revoke");
  } finally {
    await store.close();
  }
}

/** `--rpm`, `--tpm`, `--concurrency` (whole numbers ≥ 1) and `--budget 5/day`. */
function limitFlags(args: Args): Pick<KeyRow, "limits" | "budget"> {
  const limits: KeyLimits = {};
  for (const name of ["rpm", "tpm", "concurrency"] as const) {
    const value = stringFlag(args, name);
    if (value === undefined) continue;
    if (!/^[1-9]\d*$/.test(value)) throw new UsageError(`--${name} must be a whole number ≥ 1`);
    limits[name] = Number(value);
  }
  const budgetText = stringFlag(args, "budget");
  let budget: KeyBudget | undefined;
  try {
    budget = budgetText === undefined ? undefined : parseBudget(budgetText);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  return { limits: Object.keys(limits).length > 0 ? limits : undefined, budget };
}

/** A key's limits and budget for `keys list`: `\trpm=2 budget=5/day`, or nothing. */
function limitsText(k: KeyRow): string {
  const parts = Object.entries(k.limits ?? {}).map(([name, value]) => `${name}=${value}`);
  if (k.budget) parts.push(`budget=${k.budget.usd}/${k.budget.period}`);
  return parts.length > 0 ? `\t${parts.join(" ")}` : "";
}

function creditsFlag(args: Args): string | undefined {
  const credits = stringFlag(args, "credits");
  return credits === undefined ? undefined : parseDecimal(credits, "--credits").toString();
}

async function accounts(sub: string | undefined, args: Args, config: Config): Promise<number> {
  if (sub !== "credit" && sub !== "discount")
    throw new UsageError("accounts needs: credit ID AMOUNT | discount ID FRACTION");
  const [, , id, amount] = args.positionals;
  if (!id || amount === undefined) throw new UsageError(`accounts ${sub} needs ID and a number`);
  const store = await openConfiguredStore(config);
  try {
    if (sub === "discount") {
      const discount = parseDiscount(amount, "FRACTION").toString();
      await store.accounts.upsertAccount(id, { discount });
      process.stdout.write(`account ${id} discount ${discount}\n`);
      return 0;
    }
    if (!(await store.accounts.getAccount(id))) await store.accounts.upsertAccount(id);
    const balance = await store.accounts.creditAccount(id, parseDecimal(amount, "AMOUNT").toString());
    process.stdout.write(`account ${id} balance ${balance}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

async function generations(sub: string | undefined, args: Args, config: Config): Promise<number> {
  if (sub !== "show") throw new UsageError("generations needs: show ID");
  const id = args.positionals[2];
  if (!id) throw new UsageError("generations show needs ID");
  const store = await openConfiguredStore(config);
  try {
    const row = await store.getGenerationAnyAccount(id);
    if (!row) {
      process.stderr.write(`switchyard: no generation '${id}'\n`);
      return 1;
    }
    process.stdout.write(
      `${JSON.stringify({ ...generationRecord(row, true), accountId: row.accountId }, null, 2)}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    // Not a usage error (2): the same command works once the database answers.
    if (err instanceof StoreUnavailable) {
      let cause: unknown = err;
      while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
      process.stderr.write(`switchyard: the store is unavailable: ${(cause as Error).message}\n`);
      process.exitCode = 1;
      return;
    }
    if (err instanceof ConfigError || err instanceof UsageError || err instanceof GatewayError) {
      process.stderr.write(`switchyard: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (err instanceof WorkersFailedError) {
      process.stderr.write(`switchyard: ${err.message}\n`);
      process.exitCode = err.exitCode;
      return;
    }
    if (err?.code === "EADDRINUSE") {
      process.stderr.write(`switchyard: ${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    process.stderr.write(`switchyard: ${err?.stack ?? err}\n`);
    process.exitCode = 1;
  },
);

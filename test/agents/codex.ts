// Running Codex CLI (`codex exec`, the pinned @openai/codex) with a custom model provider whose base
// URL is the gateway, in a home of its own (nothing read from or written to the user's ~/.codex).
// Shared by `npm run test:agents` and the conformance matrix.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runToExit } from "../support/processes.ts";
import { clientsDir, codexLauncher } from "./clients.ts";

export interface CodexRun {
  code: number | null;
  /** `codex exec --json` events, one per stdout line. */
  events: any[];
  stderr: string;
}

/**
 * A fresh CODEX_HOME naming the gateway as its model provider, made under the clients' cache rather
 * than the system's temporary directory: Codex refuses to put its helper binaries (its sandbox
 * launcher among them) under a temporary directory.
 */
export function codexHome(baseUrl: string): { dir: string; dispose(): void } {
  const dir = mkdtempSync(join(clientsDir(), "codex-home-"));
  writeFileSync(
    join(dir, "config.toml"),
    [
      'model_provider = "switchyard"',
      "check_for_update_on_startup = false",
      "",
      "[analytics]",
      "enabled = false",
      "",
      "[feedback]",
      "enabled = false",
      "",
      "[model_providers.switchyard]",
      'name = "Switchyard"',
      `base_url = "${baseUrl}/v1"`,
      'env_key = "SWITCHYARD_KEY"',
      'wire_api = "responses"',
      // A failure is the caller's to see, not Codex's to retry.
      "request_max_retries = 0",
      "stream_max_retries = 0",
      "",
    ].join("\n"),
  );
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `codex exec` once in `workdir` (`resume`: as the next turn of the home's last session). The
 * sandbox is bypassed (`--dangerously-bypass-approvals-and-sandbox`): the working directory is a
 * throwaway one, the commands are the caller's own, and Linux sandboxing needs user namespaces that
 * a container may not grant, which is not what is being tested.
 */
export async function runCodex(opts: {
  home: string;
  workdir: string;
  key: string;
  model?: string;
  prompt: string;
  config?: string[];
  resume?: boolean;
}): Promise<CodexRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, CODEX_HOME: opts.home, SWITCHYARD_KEY: opts.key };
  for (const name of Object.keys(env))
    if (/^(OPENAI_|CODEX_(?!HOME$))|_API_KEY$/.test(name)) delete env[name];
  const args = [
    codexLauncher(),
    "exec",
    ...(opts.resume ? ["resume", "--last"] : []),
    "--json",
    "--skip-git-repo-check",
    "--dangerously-bypass-approvals-and-sandbox",
    ...(opts.resume ? [] : ["--strict-config", "--cd", opts.workdir]),
    // No model: Codex's default profile picks its own.
    ...(opts.model ? ["--model", opts.model] : []),
    ...(opts.config ?? []).flatMap((c) => ["-c", c]),
    opts.prompt,
  ];
  const { code, stdout, stderr } = await runToExit(process.execPath, args, {
    env,
    cwd: opts.workdir,
    timeoutMs: 60_000,
  });
  const events = stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
  return { code, events, stderr };
}

export function completedItems(run: CodexRun, type: string): any[] {
  return run.events.filter((e) => e.type === "item.completed" && e.item.type === type).map((e) => e.item);
}

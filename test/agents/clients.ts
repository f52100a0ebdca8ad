// The agent clients of `npm run test:agents`, installed at their pinned versions outside the
// repository (scripts/install-clients.ts): the Codex CLI's launcher and a `require` that loads the
// OpenAI Agents SDK from there.

import { createRequire } from "node:module";
import { join } from "node:path";
import { installClients } from "../../scripts/install-clients.ts";

let installed: string | undefined;

/** The install directory (installed on first use, so that one test file can be run on its own). */
export function clientsDir(): string {
  installed ??= installClients((line) => console.error(line));
  return installed;
}

/** Codex's npm launcher: it finds the native binary of this platform's package and runs it. */
export function codexLauncher(): string {
  return join(clientsDir(), "node_modules", "@openai", "codex", "bin", "codex.js");
}

/** Loads a package installed beside the clients (the Agents SDK and the zod it validates with). */
export function requireClient(name: string): any {
  return createRequire(join(clientsDir(), "package.json"))(name);
}

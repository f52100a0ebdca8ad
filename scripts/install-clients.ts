// Installs the agent clients that `npm run test:agents` and `npm run conformance` drive (Codex CLI,
// the OpenAI Agents SDK, Claude Code, Gemini CLI, qwen-code, opencode, the Copilot CLI, cline,
// Continue's cn, Mastra, Genkit, Google's ADK) at the versions pinned in
// test/agents/clients/package-lock.json, into a cache directory outside the repository. They are not
// dependencies of the gateway or of `npm test`: Codex and Claude Code each ship a native binary of
// about 400 MB in their platform packages. A cache that already holds this lock's install is reused;
// a changed lock installs afresh beside it.
//
// `npm install` from the lock rather than `npm ci`: a registry that lacks some other platform's
// optional package (opencode-darwin-arm64, say) leaves it out of a lock made there, and `npm ci`
// refuses such a lock as out of sync, where `npm install` installs exactly what it pins.
//
//   node scripts/install-clients.ts        prints the directory whose node_modules holds them
//
// The directory is $SWITCHYARD_CLIENTS_DIR, else $XDG_CACHE_HOME/switchyard-clients, else
// ~/.cache/switchyard-clients.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const PINNED = new URL("../test/agents/clients/", import.meta.url).pathname;
/** Written last, so that an interrupted install is not taken for a finished one. */
const DONE = ".installed";

export function clientsRoot(): string {
  if (process.env.SWITCHYARD_CLIENTS_DIR) return process.env.SWITCHYARD_CLIENTS_DIR;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "switchyard-clients");
}

/** The install directory of the pinned lock (named after its hash), installed if it is not yet. */
export function installClients(log: (line: string) => void = () => {}): string {
  const lock = readFileSync(join(PINNED, "package-lock.json"));
  const hash = createHash("sha256").update(lock).digest("hex").slice(0, 12);
  const dir = join(clientsRoot(), hash);
  if (existsSync(join(dir, DONE))) return dir;
  log(`installing the pinned agent clients into ${dir} …`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(PINNED, "package.json"), join(dir, "package.json"));
  copyFileSync(join(PINNED, "package-lock.json"), join(dir, "package-lock.json"));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--no-save", "--prefix", dir], {
    cwd: dir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  writeFileSync(join(dir, DONE), `${new Date().toISOString()}\n`);
  return dir;
}

if (import.meta.main) {
  const dir = installClients((line) => console.error(line));
  console.log(dir);
}

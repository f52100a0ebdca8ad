// Makes sure Debian's chromium is installed for the dashboard's browser tests (test/e2e/dashboard.test.ts):
// a fresh CI machine runs as root and gets it through apt-get; anywhere else the missing browser is
// named with the command to run. `npm run browsers` runs this by itself.

import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM = process.env.SWITCHYARD_CHROMIUM ?? "/usr/bin/chromium";

/** Returns the browser's path once it exists; throws saying why it cannot be installed. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0)
    throw new Error(`${CHROMIUM} is missing: run \`apt-get update && apt-get install -y chromium\` as root`);
  const apt = (args: string[]) =>
    execFileSync("apt-get", args, {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  apt(["update"]);
  apt(["install", "-y", "--no-install-recommends", "chromium"]);
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(ensureChromium());

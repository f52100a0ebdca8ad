// The process tree, as Linux shows it in /proc: which processes a gateway's primary has forked.

import { readdirSync, readFileSync } from "node:fs";

/** Pids of the live children of `parent`. */
export function childPids(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …; comm may hold spaces and parentheses: read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) === parent && state !== "Z") children.push(Number(entry));
  }
  return children.sort((a, b) => a - b);
}

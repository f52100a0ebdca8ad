// The `switchyard` command's entry point. `serve` first gets the V8 settings it runs with
// (node-flags.ts), before anything else is loaded; then the commands load (commands.ts).

import { restartWithNodeFlags } from "./node-flags.ts";

restartWithNodeFlags(process.argv.slice(2));
await import("./commands.ts");

// The `switchyard` command's entry point. `serve` first gets the V8 heap settings it runs with
// (heap-flags.ts), before anything else is loaded; then the commands load (commands.ts).

import { restartWithHeapFlags } from "./heap-flags.ts";

restartWithHeapFlags(process.argv.slice(2));
await import("./commands.ts");

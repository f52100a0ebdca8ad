// ioredis, loaded when the first Redis state (routing or limits) is made: a gateway without `redis`
// configured does not carry its modules.

import { createRequire } from "node:module";
import type { Redis } from "ioredis";

export function loadRedis(): typeof Redis {
  return (createRequire(import.meta.url)("ioredis") as typeof import("ioredis")).Redis;
}

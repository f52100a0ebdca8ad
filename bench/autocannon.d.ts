// The part of autocannon's programmatic API the bench uses (the package ships no types, and
// @types/autocannon would be one more dependency for a handful of fields).

declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  export interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    /** Seconds before an unanswered request counts as a timeout. */
    timeout?: number;
    pipelining?: number;
  }

  export interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    statusCodeStats: Record<string, { count: number }>;
  }

  export interface Instance extends EventEmitter {
    stop(): void;
    on(
      event: "response",
      listener: (client: unknown, statusCode: number, resBytes: number, responseTimeMs: number) => void,
    ): this;
    on(event: string, listener: (...args: any[]) => void): this;
  }

  function autocannon(opts: Options, done: (err: Error | null, result: Result) => void): Instance;

  export default autocannon;
}

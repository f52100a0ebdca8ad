// What the gateway's parts need of a log: fastify's pino logger, or a test's stand-in. Structured
// fields first, then the message, as pino takes them.

export interface Logger {
  error(obj: unknown, msg?: string): void;
}

/** A log that also takes warnings (the pipeline's, for what it survives). */
export interface WarningLogger extends Logger {
  warn(obj: unknown, msg?: string): void;
}

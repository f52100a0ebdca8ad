// Which platform providers cannot get their credentials now, and why: said by /readyz, and logged
// at most once a minute per provider however many requests fail (a gateway serving many requests a
// second would otherwise log every one). A provider's next credential clears it.

import type { GatewayError } from "../../ir/errors.ts";

/** How often one provider's failing credentials are logged, at most. */
export const LOG_INTERVAL_MS = 60_000;

export type CredentialWarn = (fields: { provider: string }, message: string) => void;

export class CredentialWatch {
  private readonly warn: CredentialWarn | undefined;
  private readonly problems = new Map<string, string>();
  private readonly loggedAt = new Map<string, number>();

  constructor(warn?: CredentialWarn) {
    this.warn = warn;
  }

  failed(providerId: string, error: GatewayError): void {
    this.problems.set(providerId, error.message);
    const now = Date.now();
    if (now - (this.loggedAt.get(providerId) ?? -Infinity) < LOG_INTERVAL_MS) return;
    this.loggedAt.set(providerId, now);
    this.warn?.({ provider: providerId }, error.message);
  }

  succeeded(providerId: string): void {
    if (this.problems.delete(providerId)) this.loggedAt.delete(providerId);
  }

  /** Each failing provider's latest cause (the message the callers got: it names no secret). */
  current(): Record<string, string> {
    return Object.fromEntries(this.problems);
  }
}

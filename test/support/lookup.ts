// Reading generation records back in tests.

import { usd } from "./money.ts";

const RAW = Symbol("raw JSON text");

/**
 * GET the lookup until settlement has put the billing fields in (settle_delay_ms: 0 settles right
 * after completion, but asynchronously). Subscription keys never see them: one read.
 */
export async function lookupSettled(url: string, id: string, key: string): Promise<any> {
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}/api/v1/management/generation?id=${encodeURIComponent(id)}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const raw = await res.text();
    if (res.status !== 200) throw new Error(`lookup ${id}: ${res.status} ${raw}`);
    const body = JSON.parse(raw);
    body[RAW] = raw;
    if (body.usage !== undefined || key.startsWith("sk-ss-v1-") || i >= 100) return body;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The digits of a JSON number exactly as the gateway wrote them (no float round trip). */
export function rawNumber(body: any, key: string): string {
  const m = new RegExp(`"${key}":(-?[0-9.eE+-]+)`).exec(body[RAW]);
  if (!m) throw new Error(`no number "${key}" in ${body[RAW]}`);
  return m[1];
}

/** A settled lookup's fee items: feeItemCode → billAmount, as normalized decimal text. */
export function billedItems(body: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of body.ratingResponses.ratingDetails)
    out[d.feeItemCode] = usd.normalize(String(d.billAmount));
  return out;
}

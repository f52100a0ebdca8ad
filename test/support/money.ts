// Exact decimal arithmetic for tests, written independently of src/billing so that a test computes
// the expected cost by hand rather than by calling the code under test. Scaled BigInt, 18 places.

const SCALE = 18;
const ONE = 10n ** BigInt(SCALE);

function toScaled(decimal: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal.trim());
  if (!m) throw new Error(`not a decimal: ${decimal}`);
  const frac = (m[3] ?? "").padEnd(SCALE, "0");
  if (frac.length > SCALE) throw new Error(`too many decimals: ${decimal}`);
  const v = BigInt(m[2]) * ONE + BigInt(frac);
  return m[1] ? -v : v;
}

function fromScaled(v: bigint): string {
  const neg = v < 0n;
  const abs = neg ? -v : v;
  const int = abs / ONE;
  const frac = (abs % ONE).toString().padStart(SCALE, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${int}${frac ? `.${frac}` : ""}`;
}

export const usd = {
  /** tokens × price-per-million / 1e6 */
  perMillion(tokens: number, pricePerMillion: string): string {
    return fromScaled((BigInt(tokens) * toScaled(pricePerMillion)) / 1_000_000n);
  },
  times(count: number, price: string): string {
    return fromScaled(BigInt(count) * toScaled(price));
  },
  add(...values: string[]): string {
    return fromScaled(values.reduce((s, v) => s + toScaled(v), 0n));
  },
  normalize(value: string): string {
    return fromScaled(toScaled(value));
  },
};

// A small seeded PRNG (sfc32, seeded through splitmix32) so that every fuzz input is a function of
// the seed alone: a failure printed with its seed and case number can be sent again exactly.

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer. */
  u32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** One of the entries, chosen in proportion to its weight. */
  weighted<T>(entries: ReadonlyArray<readonly [number, T]>): T {
    const total = entries.reduce((sum, [w]) => sum + w, 0);
    let at = this.float() * total;
    for (const [w, value] of entries) {
      at -= w;
      if (at < 0) return value;
    }
    return entries[entries.length - 1][1];
  }

  /** A child generator: what it draws does not depend on how much the parent draws afterwards. */
  fork(): Rng {
    return new Rng(this.u32());
  }
}

/** The seed a run uses: FUZZ_SEED (decimal or 0x hex, or `random`) or the fixed default. */
export function fuzzSeed(env: string | undefined, fallback: number): number {
  if (env === undefined || env === "") return fallback;
  if (env === "random") return (Math.random() * 2 ** 32) >>> 0;
  const n = Number(env);
  if (!Number.isFinite(n)) throw new Error(`FUZZ_SEED must be a number or "random", not ${env}`);
  return n >>> 0;
}

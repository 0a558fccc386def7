/**
 * A seeded, explicit, splittable random source (xoshiro128** over 32-bit integer arithmetic),
 * identical on every machine. It is passed to every generator; nothing in Kiln draws from a
 * global random source, so one seed reproduces a whole program.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private splits = 0;

  private constructor(a: number, b: number, c: number, d: number) {
    this.a = a >>> 0;
    this.b = b >>> 0;
    this.c = c >>> 0;
    this.d = d >>> 0;
    if ((this.a | this.b | this.c | this.d) === 0) this.a = 1;
  }

  /** A generator seeded from a number, bigint or string (strings are hashed). */
  static seeded(seed: number | bigint | string): Rng {
    let h = typeof seed === 'string' ? hashString(seed) : BigInt.asUintN(64, BigInt(seed));
    const next = (): number => {
      // splitmix64, truncated to 32 bits per output
      h = BigInt.asUintN(64, h + 0x9e3779b97f4a7c15n);
      let z = h;
      z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
      z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
      z ^= z >> 31n;
      return Number(z & 0xffffffffn);
    };
    return new Rng(next(), next(), next(), next());
  }

  /** An independent copy with the same future. */
  clone(): Rng {
    const r = new Rng(this.a, this.b, this.c, this.d);
    r.splits = this.splits;
    return r;
  }

  /**
   * A new generator whose stream is independent of this one's; this generator advances by one
   * draw. Splitting lets sub-generators (e.g. one per feature) leave the main stream aligned.
   */
  split(): Rng {
    const s = this.u32();
    this.splits++;
    return Rng.seeded(`${s}:${this.splits}:${this.a}`);
  }

  /** A generator derived from this one's current state and a label, without advancing it. */
  fork(label: string): Rng {
    return Rng.seeded(`${this.a}:${this.b}:${this.c}:${this.d}:${label}`);
  }

  /** The next uniformly distributed 32-bit unsigned integer. */
  u32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.b << 9) >>> 0;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    return result;
  }

  /** A uniform integer in [lo, hi] (inclusive), without modulo bias. */
  int(lo: number, hi: number): number {
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo) throw new Error(`bad range [${lo}, ${hi}]`);
    const span = hi - lo + 1;
    if (span > 2 ** 32) {
      const hiPart = this.int(0, Math.floor((span - 1) / 2 ** 32));
      return lo + ((hiPart * 2 ** 32 + this.u32()) % span);
    }
    const limit = 2 ** 32 - (2 ** 32 % span);
    let x = this.u32();
    while (x >= limit) x = this.u32();
    return lo + (x % span);
  }

  /** A uniform bigint in [lo, hi] (inclusive). */
  bigint(lo: bigint, hi: bigint): bigint {
    if (hi < lo) throw new Error(`bad range [${lo}, ${hi}]`);
    const span = hi - lo + 1n;
    // Fast path (same stream as `int` for spans that fit 32 bits).
    if (span <= 0x100000000n) return lo + BigInt(this.int(0, Number(span) - 1));
    const bits = span.toString(2).length;
    const words = Math.ceil(bits / 32);
    for (;;) {
      let x = 0n;
      for (let i = 0; i < words; i++) x = (x << 32n) | BigInt(this.u32());
      x &= (1n << BigInt(bits)) - 1n;
      if (x < span) return lo + x;
    }
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  float(): number {
    return this.u32() / 2 ** 32;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    if (p <= 0) return false;
    if (p >= 1) return true;
    return this.float() < p;
  }

  /** A uniformly chosen element. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)]!;
  }

  /** An element chosen with probability proportional to its weight (zero weights never chosen). */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) {
      if (w < 0 || !Number.isFinite(w)) throw new Error(`bad weight ${w}`);
      total += w;
    }
    if (total <= 0) throw new Error('weighted choice with no positive weight');
    let x = this.float() * total;
    for (const [v, w] of items) {
      if (x < w) return v;
      x -= w;
    }
    // Floating rounding can leave x at the very end: take the last positive-weight item.
    for (let i = items.length - 1; i >= 0; i--) if (items[i]![1] > 0) return items[i]![0];
    throw new Error('unreachable');
  }

  /** A key of a weight table chosen proportionally to its weight. */
  weightedKey<K extends string>(table: Readonly<Record<K, number>>): K {
    return this.weighted(Object.entries(table) as [K, number][]);
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** FNV-1a 64-bit hash of a string's UTF-16 code units (stable across platforms). */
function hashString(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < s.length; i++) {
    h ^= BigInt(s.charCodeAt(i));
    h = BigInt.asUintN(64, h * 0x100000001b3n);
  }
  return h;
}

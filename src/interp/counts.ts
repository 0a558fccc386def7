/**
 * A run's statement or loop counters seen as a map from node id to count, without building one:
 * the counters of one run (a copy of the runtime's array) read through the compiled program's
 * id → counter index, which only grows. Ids whose count is zero are absent, as in a map built
 * from the nonzero counters; iteration follows the index's order (the order statements were
 * first compiled). The repair loop runs a program several times per seed and most of each
 * profile is never read: building two maps per run was a quarter of the interpreter's allocation.
 */
export class CountMap implements ReadonlyMap<number, number> {
  private counted = -1;

  constructor(
    private readonly index: ReadonlyMap<number, number>,
    private readonly counts: ArrayLike<number>,
  ) {}

  get(id: number): number | undefined {
    const i = this.index.get(id);
    if (i === undefined || i >= this.counts.length) return undefined;
    const c = this.counts[i]!;
    return c > 0 ? c : undefined;
  }

  has(id: number): boolean {
    return this.get(id) !== undefined;
  }

  get size(): number {
    if (this.counted < 0) {
      let n = 0;
      for (const [, i] of this.index) if (i < this.counts.length && this.counts[i]! > 0) n++;
      this.counted = n;
    }
    return this.counted;
  }

  *entries(): MapIterator<[number, number]> {
    for (const [id, i] of this.index) {
      if (i >= this.counts.length) continue;
      const c = this.counts[i]!;
      if (c > 0) yield [id, c];
    }
  }

  *keys(): MapIterator<number> {
    for (const [id] of this.entries()) yield id;
  }

  *values(): MapIterator<number> {
    for (const [, c] of this.entries()) yield c;
  }

  forEach(f: (value: number, key: number, map: ReadonlyMap<number, number>) => void, thisArg?: unknown): void {
    for (const [id, c] of this.entries()) f.call(thisArg, c, id, this);
  }

  [Symbol.iterator](): MapIterator<[number, number]> {
    return this.entries();
  }
}

// The smallest set of switches (flags or passes to disable) that hides a bug. Disabling more
// optimisations rarely brings a bug back, so the property is treated as monotone and searched
// by halving, one culprit at a time: the shortest prefix of the candidates that hides the bug
// (binary search) ends with a culprit; keep it and search the prefix before it. One culprit among
// n candidates costs log2(n) tests plus one confirming it alone; k culprits about k·log2(n) —
// cheaper than ddmin's complements when culprits come in pairs.

/** The result of {@link minimalSubset}. */
export interface MinimalSubset<T> {
  /** The subset found, in the candidates' order; minimal when the property is monotone. */
  readonly subset: readonly T[];
  /** True when the test budget ran out: `subset` is then the last set known to pass, not minimal. */
  readonly exhausted: boolean;
  /** Tests run. */
  readonly tests: number;
}

/**
 * Finds a minimal subset of `items` for which `test` holds. The caller has established that it
 * holds for all of `items` and not for the empty set.
 */
export async function minimalSubset<T>(
  items: readonly T[],
  test: (subset: readonly T[]) => Promise<boolean>,
  maxTests = Infinity,
): Promise<MinimalSubset<T>> {
  let tests = 0;
  const required: T[] = [];
  let candidates = [...items];
  let known = [...items]; // the last set known to pass
  for (;;) {
    // Smallest prefix p of the candidates with test(required ∪ candidates[0..p]) true; the full
    // list passes, the empty prefix fails (checked before, or by the caller for the first round).
    let lo = 0;
    let hi = candidates.length;
    while (hi - lo > 1) {
      if (tests >= maxTests) return { subset: known, exhausted: true, tests };
      const mid = lo + Math.floor((hi - lo) / 2);
      const trial = [...required, ...candidates.slice(0, mid)];
      tests++;
      if (await test(trial)) {
        hi = mid;
        known = trial;
      } else {
        lo = mid;
      }
    }
    required.push(candidates[hi - 1]!);
    candidates = candidates.slice(0, hi - 1);
    if (candidates.length === 0) return { subset: order(items, required), exhausted: false, tests };
    // Confirm: does the culprit set alone pass?
    if (tests >= maxTests) return { subset: known, exhausted: true, tests };
    tests++;
    if (await test(required)) return { subset: order(items, required), exhausted: false, tests };
  }
}

function order<T>(items: readonly T[], chosen: readonly T[]): T[] {
  const set = new Set(chosen);
  return items.filter((x) => set.has(x));
}

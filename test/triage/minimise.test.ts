import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minimalSubset } from '../../src/triage/minimise.js';

describe('minimalSubset', () => {
  it('finds exactly the culprits of a monotone property, in about k·log2(n) tests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 200 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { minLength: 1, maxLength: Math.min(n, 4) }),
            ),
          ),
        async ([n, culprits]) => {
          const items = Array.from({ length: n }, (_, i) => i);
          const r = await minimalSubset(items, async (s) => culprits.every((c) => s.includes(c)));
          expect(r.exhausted).toBe(false);
          expect(r.subset).toEqual([...culprits].sort((a, b) => a - b));
          expect(r.tests).toBeLessThanOrEqual(culprits.length * (Math.ceil(Math.log2(n)) + 1));
        },
      ),
    );
  });

  it('costs log2(n) + 1 tests for one culprit among 128', async () => {
    const items = Array.from({ length: 128 }, (_, i) => `-f${i}`);
    const r = await minimalSubset(items, async (s) => s.includes('-f77'));
    expect(r).toEqual({ subset: ['-f77'], exhausted: false, tests: 8 });
  });

  it('stops at the budget with the last passing set', async () => {
    const items = Array.from({ length: 64 }, (_, i) => i);
    const r = await minimalSubset(items, async (s) => s.includes(5) && s.includes(60), 3);
    expect(r.exhausted).toBe(true);
    expect(r.tests).toBe(3);
    expect(r.subset).toContain(5);
    expect(r.subset).toContain(60);
  });
});

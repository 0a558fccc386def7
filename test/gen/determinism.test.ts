import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { CSMITH_POLICY, parsePolicy, PolicyError } from '../../src/gen/policy.js';
import { generateProgram } from '../../src/repair/generate.js';
import { Rng } from '../../src/random/rng.js';

const text = (seed: number, size: 'small' | 'medium' = 'small'): string => {
  const r = generateProgram(seed, parsePolicy({}, size));
  return r.ok ? emitC(r.program, { expected: r.expected }) : `discarded: ${r.reason}`;
};

describe('determinism: the same seed and options give the same program, byte for byte', () => {
  it('within one process (property over seeds)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), (seed) => {
        expect(text(seed)).toBe(text(seed));
      }),
      { numRuns: 15, seed: 7 },
    );
  });

  it('in a separate process (no hidden state carried between programs)', () => {
    // Generate seed 12 after other seeds here, and alone in a fresh process.
    text(3);
    text(11);
    const here = text(12, 'medium');
    // biome-ignore format: embedded text
    const script = `import { generateProgram } from './src/repair/generate.ts'; import { emitC } from './src/emit/c.ts'; import { CSMITH_POLICY } from './src/gen/policy.ts';
const r = generateProgram(12, CSMITH_POLICY); process.stdout.write(r.ok ? emitC(r.program, { expected: r.expected }) : 'discarded: ' + r.reason);`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: process.cwd(),
      maxBuffer: 64 << 20,
    });
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe(here);
  });

  it('a seed is its decimal text, whatever its type: kiln gen --seed 3 (bigint) is a campaign seed 3 (text)', () => {
    const policy = parsePolicy({}, 'small');
    for (const mode of ['csmith', 'yarpgen', 'arith'] as const) {
      const emit = (seed: number | bigint | string): string => {
        const r = generateProgram(seed, policy, mode);
        return r.ok ? emitC(r.program, { expected: r.expected }) : `discarded: ${r.reason}`;
      };
      const big = emit(3n);
      expect(emit('3'), mode).toBe(big);
      expect(emit(3), mode).toBe(big);
    }
  });

  it('different seeds give different programs', () => {
    expect(text(1)).not.toBe(text(2));
  });
});

describe('random source', () => {
  it('is reproducible, and split streams are independent of later draws', () => {
    const a = Rng.seeded(42);
    const b = Rng.seeded(42);
    const xs = Array.from({ length: 20 }, () => a.u32());
    expect(Array.from({ length: 20 }, () => b.u32())).toEqual(xs);
    const c = Rng.seeded(5);
    const child = c.split();
    const first = child.u32();
    const c2 = Rng.seeded(5);
    const child2 = c2.split();
    c2.u32(); // drawing from the parent must not change the child's stream
    expect(child2.u32()).toBe(first);
  });

  it('int and bigint stay in range; weighted choice never picks a zero weight', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: 0, max: 5000 }),
        (seed, lo, span) => {
          const r = Rng.seeded(seed);
          const v = r.int(lo, lo + span);
          expect(v).toBeGreaterThanOrEqual(lo);
          expect(v).toBeLessThanOrEqual(lo + span);
          const big = r.bigint(-(1n << 63n), (1n << 64n) - 1n);
          expect(big >= -(1n << 63n) && big <= (1n << 64n) - 1n).toBe(true);
          expect(
            r.weighted([
              ['a', 0],
              ['b', 3],
              ['c', 0],
            ]),
          ).toBe('b');
        },
      ),
      { numRuns: 300, seed: 3 },
    );
  });

  it('weighted choice follows the weights', () => {
    const r = Rng.seeded(9);
    const counts = { x: 0, y: 0 };
    for (let i = 0; i < 20000; i++)
      counts[
        r.weighted<'x' | 'y'>([
          ['x', 1],
          ['y', 3],
        ])
      ]++;
    expect(counts.y / counts.x).toBeGreaterThan(2.7);
    expect(counts.y / counts.x).toBeLessThan(3.3);
  });
});

describe('policy', () => {
  it("defaults are Csmith's Tables 3.1-3.3 and command-line limits", () => {
    expect(CSMITH_POLICY.statements).toMatchObject({
      assign: 40,
      if: 15,
      for: 15,
      arrayLoop: 10,
      return: 5,
      goto: 5,
      break: 5,
      continue: 5,
    });
    expect(CSMITH_POLICY.expressions).toMatchObject({ call: 70, variable: 20, constant: 10, comma: 10, assign: 10 });
    expect(CSMITH_POLICY.scopes).toEqual({ global: 35, local: 30, param: 30, new: 5 });
    expect(CSMITH_POLICY.limits).toMatchObject({
      maxFuncs: 10,
      maxBlockSize: 4,
      maxBlockDepth: 5,
      maxExprComplexity: 10,
      maxArrayDims: 3,
      maxArrayLen: 10,
    });
    expect(CSMITH_POLICY.argumentExpressions.call).toBeLessThan(CSMITH_POLICY.expressions.call);
  });

  it('a bad field is named in the error', () => {
    expect(() => parsePolicy({ limits: { maxFuncs: -1 } })).toThrow(/limits\.maxFuncs/);
    expect(() => parsePolicy({ statements: { iff: 1 } })).toThrow(/statements\.iff/);
    expect(() => parsePolicy({ features: { goto: 'yes' } })).toThrow(PolicyError);
    expect(() => parsePolicy({ features: { goto: 'yes' } })).toThrow(
      expect.objectContaining({ field: 'features.goto' }),
    );
  });

  it('a partial policy keeps every other default; size presets scale the limits', () => {
    const p = parsePolicy({ features: { goto: false } });
    expect(p.features.goto).toBe(false);
    expect(p.features.pointers).toBe(true);
    expect(p.statements.if).toBe(15);
    expect(parsePolicy({}, 'small').limits.maxFuncs).toBeLessThan(parsePolicy({}, 'large').limits.maxFuncs);
  });

  it('disabled features do not appear in generated programs', () => {
    const policy = parsePolicy({ features: { goto: false, pointers: false, unions: false, comma: false } });
    for (let seed = 1; seed <= 10; seed++) {
      const r = generateProgram(seed, policy);
      if (!r.ok) continue;
      const src = emitC(r.program);
      expect(src).not.toMatch(/\bgoto\b/);
      expect(src).not.toMatch(/\bunion\b/);
      expect(src).not.toMatch(/ , /);
      expect(src).not.toMatch(/\*[a-z]|&[gl]_/);
    }
  });
});

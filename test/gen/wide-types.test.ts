// Programs with `__int128` and `_BitInt(N)` (policy features int128 and bitInt): deterministic,
// covered by the census and the program's requirements, and compiled by the compilers CI has
// into binaries that print the expected line, with no warning about the new types.
import { describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { censusOf, programRequires } from '../../src/ir/census.js';
import { interpret } from '../../src/interp/interpret.js';
import { profileBase } from '../../src/mutate/env.js';
import { isVariant, makeVariant } from '../../src/mutate/variant.js';
import { Rng } from '../../src/random/rng.js';
import { reduceIR } from '../../src/reduce/ir/engine.js';
import { generateProgram } from '../../src/repair/generate.js';
import { batchSource, generate, runs, type Case } from '../support/batch.js';

// Without the control-flow shapes (features.cfg): the warning lists below were drawn from these
// seeds' programs, and the shapes change every program (clang's constant bit-field truncations
// and gcc's constant __int128 overflows in code that never runs then appear at other seeds).
// Without vectors too: the seeds' programs as drawn when these types came (vectors are drawn from
// a stream of their own, so the wide types are the same).
const WIDE = parsePolicy({ features: { int128: true, bitInt: true, cfg: false, vectors: false } }, 'small');
const INT128_ONLY = parsePolicy(
  { features: { int128: true, bitInt: false, cfg: false, vectors: false }, choices: { int128Programs: 1 } },
  'small',
);

/** Warnings GCC 14 made errors. */
const GCC14_ERRORS = new RegExp(
  String.raw`\[-W(implicit-function-declaration|implicit-int|int-conversion|incompatible-pointer-types|` +
    String.raw`return-mismatch|declaration-missing-parameter-type)\]`,
);
/** Warning classes Kiln's programs had before these types (about code that may hold them, not about them). */
const OLDER_WARNINGS = new RegExp(
  String.raw`\[-W(self-assign|tautological-[a-z-]+|int-in-bool-context|unused-value|constant-logical-operand|` +
    String.raw`parentheses|switch-bool|unused-but-set-variable)\]`,
);

/** Warnings GCC 14 made errors, and warnings about the new types (other -Wall warnings predate them). */
async function wideWarnings(cc: string, cases: readonly Case[]): Promise<string[]> {
  const { spawnSync } = await import('node:child_process');
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'kiln-wide-'));
  try {
    const file = join(dir, 'p.c');
    writeFileSync(file, batchSource(cases.map((c) => c.program)));
    const r = spawnSync(cc, ['-Wall', '-fsyntax-only', file], { encoding: 'utf8' });
    expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
    return r.stderr
      .split('\n')
      .filter(
        (l) =>
          GCC14_ERRORS.test(l) ||
          (/warning|error/.test(l) && /_BitInt|__int128|bit-field|BITINT/.test(l) && !OLDER_WARNINGS.test(l)),
      )
      .slice(0, 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('__int128 and _BitInt programs', () => {
  const seeds = Array.from({ length: 10 }, (_, i) => i + 1);
  const wide = generate(WIDE, seeds);

  it('are the same bytes for the same seed and policy, and carry their requirements', () => {
    for (const c of wide.slice(0, 4)) {
      const again = generateProgram(c.seed, WIDE, 'csmith');
      expect(again.ok && emitC(again.program)).toBe(emitC(c.program));
    }
    const req = wide.map((c) => programRequires(c.program));
    const bitInt = wide.filter((_, i) => req[i]!.bitIntWidth > 0);
    expect(bitInt.length).toBeGreaterThan(0);
    expect(bitInt.length).toBeLessThan(wide.length);
    for (const [i, c] of wide.entries()) {
      const text = emitC(c.program);
      expect(text.includes('_BitInt(')).toBe(req[i]!.bitIntWidth > 0);
      expect(text.includes('__int128')).toBe(req[i]!.int128);
      const widths = [...text.matchAll(/_BitInt\((\d+)\)/g)].map((m) => Number(m[1]));
      expect(Math.max(0, ...widths)).toBe(req[i]!.bitIntWidth);
      expect(Math.max(0, ...widths)).toBeLessThanOrEqual(WIDE.limits.maxBitIntWidth);
      const census = censusOf(c.program).features;
      expect(census.has('type:bitint')).toBe(req[i]!.bitIntWidth > 0);
    }
    const features = new Set(wide.flatMap((c) => [...censusOf(c.program).features]));
    for (const f of ['type:bitint', 'type:int128', 'bitint:1-8', 'bitint:9-64', 'bitint:65-128', 'op:bitint-arith'])
      expect(features.has(f as never), f).toBe(true);
    // On by default; off, no program has them.
    expect(parsePolicy({}).features).toMatchObject({ int128: true, bitInt: true });
    const off = parsePolicy({ features: { int128: false, bitInt: false } }, 'small');
    for (const c of generate(off, seeds.slice(0, 4)))
      expect(programRequires(c.program)).toMatchObject({ int128: false, bitIntWidth: 0 });
  });

  it('print the expected line under clang-16 at -O0 and -O2, with no warning about the new types', async () => {
    const want = wide.map((c) => c.expected);
    expect(await runs('clang-16', ['-O0'], wide)).toEqual(want);
    expect(await runs('clang-16', ['-O2'], wide)).toEqual(want);
    expect(await wideWarnings('clang-16', wide)).toEqual([]);
  }, 900_000);

  it('with __int128 only, print the expected line under gcc-12 at -O0 and -O2, warning-free', async () => {
    const cases = generate(INT128_ONLY, seeds.slice(0, 6));
    expect(cases.some((c) => programRequires(c.program).int128)).toBe(true);
    const want = cases.map((c) => c.expected);
    expect(await runs('gcc-12', ['-O0'], cases)).toEqual(want);
    expect(await runs('gcc-12', ['-O2'], cases)).toEqual(want);
    expect(await wideWarnings('gcc-12', cases)).toEqual([]);
  }, 900_000);
});

describe('EMI variants and IR reduction of __int128 and _BitInt programs', () => {
  const base = generate(WIDE, [1, 2, 3, 4]).filter((c) => programRequires(c.program).bitIntWidth > 0);

  it('variants are proven by the interpreter and print the base line under clang-16', async () => {
    const variants: Case[] = [];
    for (const c of base.slice(0, 2)) {
      const profile = profileBase(c.program, Rng.seeded(`kiln-emi-profile:${c.seed}`));
      for (const index of [1, 2, 3]) {
        const v = makeVariant(profile, `${c.expected}\n`, String(c.seed), index);
        if (isVariant(v)) variants.push({ seed: c.seed, program: v.program, expected: c.expected });
      }
    }
    expect(variants.length).toBeGreaterThanOrEqual(4);
    expect(await runs('clang-16', ['-O1'], variants)).toEqual(variants.map((v) => v.expected));
  }, 900_000);

  it('the IR reducer keeps valid, UB-free programs that clang-16 compiles to their expected line', async () => {
    const c = base[0]!;
    const bug = (s: string): boolean => /_BitInt\(\d+\)/.test(s) && / \* /.test(s);
    expect(bug(emitC(c.program))).toBe(true);
    const result = await reduceIR(c.program, async (x) => bug(x.source), { jobs: 2 });
    const run = interpret(result.best.program);
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    const expected = run.output.trimEnd();
    expect(await runs('clang-16', ['-O0'], [{ seed: c.seed, program: result.best.program, expected }])).toEqual([
      expected,
    ]);
  }, 900_000);
});

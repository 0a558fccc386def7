// Programs with GNU vectors (policy feature vectors): deterministic, in a measured share of
// programs with every construct the census names, carrying their requirements, byte-identical to
// before with the feature off, and compiled by gcc and clang into binaries that print the
// expected line with no warning about vectors.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { censusOf, programRequires, type Feature } from '../../src/ir/census.js';
import type { Program } from '../../src/ir/nodes.js';
import { walk, walkProgram } from '../../src/ir/visit.js';
import { isPunUnion } from '../../src/ir/vector.js';
import { interpret } from '../../src/interp/interpret.js';
import { reduceIR } from '../../src/reduce/ir/engine.js';
import { generateProgram } from '../../src/repair/generate.js';
import { batchSource, generate, runs, type Case } from '../support/batch.js';

// Vectors alone (no `__int128`, no `_BitInt`, which gcc-12 lacks), and without GCC's
// `__builtin_shuffle`, which clang lacks: every program goes to both compilers.
const VECTORS = parsePolicy(
  { features: { vectors: true, int128: false, bitInt: false }, choices: { vectorBuiltins: { shuffle: 0 } } },
  'small',
);
const SHUFFLE = parsePolicy(
  {
    features: { vectors: true, int128: false, bitInt: false },
    choices: { vectorPrograms: 1, vectorBuiltins: { shuffle: 1 } },
  },
  'small',
);

/** `-Wall` diagnostics about vectors (other warnings predate them: unused values, tautologies, …). */
function vectorWarnings(cc: string, cases: readonly Case[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'kiln-vec-'));
  try {
    const file = join(dir, 'p.c');
    writeFileSync(file, batchSource(cases.map((c) => c.program)));
    const r = spawnSync(cc, ['-Wall', '-fsyntax-only', file], { encoding: 'utf8' });
    expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
    return r.stderr
      .split('\n')
      .filter((l) => /warning|note|error/.test(l) && /vec_|vector|psabi|ABI|__builtin_shuffle/.test(l))
      .slice(0, 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('vector programs', () => {
  const seeds = Array.from({ length: 16 }, (_, i) => i + 1);
  const cases = generate(VECTORS, seeds);

  it('are the same bytes for the same seed, in about 60% of programs, and carry their requirements', () => {
    for (const c of cases.slice(0, 3)) {
      const again = generateProgram(c.seed, VECTORS, 'csmith');
      expect(again.ok && emitC(again.program)).toBe(emitC(c.program));
    }
    const withVectors = cases.filter((c) => programRequires(c.program).vectors);
    // choices.vectorPrograms is 0.6: measured 9 of these 16 seeds.
    expect(withVectors.length).toBeGreaterThanOrEqual(5);
    expect(withVectors.length).toBeLessThan(cases.length);
    for (const c of cases) {
      const text = emitC(c.program);
      const req = programRequires(c.program).vectors;
      expect(text.includes('vector_size(')).toBe(!!req);
      expect(censusOf(c.program).features.has('type:vector')).toBe(!!req);
      expect(text.includes('__builtin_shufflevector(')).toBe(!!req?.shufflevector);
      expect(text.includes('__builtin_convertvector(')).toBe(!!req?.convertvector);
      expect(req?.shuffle ?? false).toBe(false);
    }
    // Every construct the census names, except GCC's __builtin_shuffle (off in this policy).
    const features = new Set(cases.flatMap((c) => [...censusOf(c.program).features]));
    const vectorFeatures = ['type:vector', 'vector:in-record', 'vector:array', 'vector:param', 'op:vector-arith'];
    vectorFeatures.push('op:vector-broadcast', 'op:vector-compare', 'op:vector-lane', 'op:vector-cast');
    vectorFeatures.push('op:vector-assign', 'vector:shufflevector', 'vector:convertvector', 'vector:pun-union');
    for (const f of vectorFeatures) expect(features.has(f as Feature), f).toBe(true);
  });

  it('off, or on with vectorPrograms 0, every program is the one without vectors', () => {
    expect(parsePolicy({}).features.vectors).toBe(true);
    const plain = generate(parsePolicy({ features: { vectors: false } }, 'small'), seeds.slice(0, 4));
    const none = generate(parsePolicy({ choices: { vectorPrograms: 0 } }, 'small'), [1, 2, 3, 4]);
    expect(none.map((c) => emitC(c.program))).toEqual(plain.map((c) => emitC(c.program)));
    for (const c of plain) expect(programRequires(c.program).vectors).toBeUndefined();
  });

  it('print the expected line under gcc-12 and clang-16 at -O0 and -O2, with no warning about vectors', async () => {
    const want = cases.map((c) => c.expected);
    for (const cc of ['gcc-12', 'clang-16']) {
      for (const o of ['-O0', '-O2']) expect(await runs(cc, [o], cases), `${cc} ${o}`).toEqual(want);
      expect(vectorWarnings(cc, cases), cc).toEqual([]);
    }
  }, 900_000);

  it("with GCC's __builtin_shuffle, print the expected line under gcc-12", async () => {
    const shuffled = generate(SHUFFLE, seeds.slice(0, 8)).filter((c) => programRequires(c.program).vectors?.shuffle);
    expect(shuffled.length).toBeGreaterThanOrEqual(3);
    const want = shuffled.map((c) => c.expected);
    expect(await runs('gcc-12', ['-O2'], shuffled)).toEqual(want);
    expect(vectorWarnings('gcc-12', shuffled)).toEqual([]);
  }, 900_000);
});

// Floating lanes with features.floats: values under Kiln's exactness rule, as floating scalars.
describe('vectors of float and double lanes', () => {
  const FLOATS = parsePolicy(
    {
      features: { vectors: true, floats: true, int128: false, bitInt: false },
      choices: { vectorPrograms: 1, vectorBuiltins: { shuffle: 0 } },
    },
    'small',
  );
  // Seeds 17-32: seed 10 hits LLVM's phi scalarisation bug, which clang 14 to 21 miscompile at
  // -O1 and above (docs/bugs-found.md; fixed for clang 22).
  const cases = generate(
    FLOATS,
    Array.from({ length: 16 }, (_, i) => i + 17),
  );
  const floating = cases.filter((c) => censusOf(c.program).features.has('vector:float'));

  it('appear only with features.floats, with their operations and conversions', () => {
    const plain = generate(VECTORS, [1, 2, 3, 4, 5, 6, 7, 8]);
    for (const c of plain) expect(censusOf(c.program).features.has('vector:float')).toBe(false);
    expect(floating.length).toBeGreaterThanOrEqual(4);
    const text = floating.map((c) => emitC(c.program)).join('\n');
    expect(text).toMatch(/__builtin_convertvector\([^;]*vec_f(32|64)x\d+\)/);
    // A comparison of floating lanes, and floating lanes read as integers.
    expect(text).toMatch(/typedef (float|double) vec_f/);
    expect(
      floating.some((c) =>
        hasNode(c.program, (n) => n.kind === 'binary' && isFloatOperand(n.left) && /[<>=!]/.test(n.op)),
      ),
    ).toBe(true);
    expect(
      floating.some((c) =>
        hasNode(c.program, (n) => n.kind === 'cast' && n.type.kind === 'vector' && isFloatOperand(n.operand)),
      ),
    ).toBe(true);
  });

  it('print the expected line under gcc-12 and clang-16 at -O0 and -O2, with no warning about vectors', async () => {
    const want = floating.map((c) => c.expected);
    for (const cc of ['gcc-12', 'clang-16']) {
      for (const o of ['-O0', '-O2']) expect(await runs(cc, [o], floating), `${cc} ${o}`).toEqual(want);
      expect(vectorWarnings(cc, floating), cc).toEqual([]);
    }
  }, 900_000);
});

/** Whether a node of the program satisfies `ok`. */
function hasNode(p: Program, ok: (n: Parameters<Parameters<typeof walkProgram>[1]>[0]) => boolean): boolean {
  let found = false;
  walkProgram(p, (n) => {
    if (ok(n)) found = true;
  });
  return found;
}

/** Whether an expression is a vector of floating lanes. */
function isFloatOperand(e: { type: { kind: string; of?: unknown } }): boolean {
  return e.type.kind === 'vector' && (e.type.of as { kind: string }).kind === 'float';
}

describe('IR reduction of vector programs', () => {
  it('keeps valid, UB-free programs that gcc-12 and clang-16 compile to their expected line', async () => {
    const c = generate(VECTORS, [1, 2, 3, 4, 5, 6]).find((x) => programRequires(x.program).vectors?.shufflevector)!;
    const bug = (s: string): boolean => /__builtin_shufflevector\(/.test(s) && / \* /.test(s);
    expect(bug(emitC(c.program))).toBe(true);
    const result = await reduceIR(c.program, async (x) => bug(x.source), { jobs: 2 });
    const small = emitC(result.best.program);
    expect(small.length).toBeLessThan(emitC(c.program).length / 3);
    const run = interpret(result.best.program);
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    const expected = run.output.trimEnd();
    for (const cc of ['gcc-12', 'clang-16'])
      expect(await runs(cc, ['-O0'], [{ seed: c.seed, program: result.best.program, expected }]), cc).toEqual([
        expected,
      ]);
  }, 900_000);
});

// Loops that mix scalar and vector code over the same objects: the vector-loop policy's
// element-wise bodies store the lanes of vector variables and the members of unions punning a
// vector with an array, one lane per iteration, which whole-vector statements also read and write.
describe('element-wise loops over lanes', () => {
  const LANES = parsePolicy(
    {
      features: { vectors: true, int128: false, bitInt: false },
      statements: { arrayLoop: 40 },
      policies: { vectorLoops: 1 },
      choices: { vectorPrograms: 1, vectorShare: 0.5, vectorBuiltins: { shuffle: 0 } },
    },
    'small',
  );
  // Seed 10 stores pun-union lanes (5 of seeds 1-40 do; pun unions are one variable in a few).
  const cases = generate(LANES, [1, 2, 3, 4, 5, 6, 7, 8, 10]);

  /** Stores `x[i] = …` in an element-wise loop over `i` whose `x` is a vector object or a pun union's member. */
  function laneStores(p: Program): { vector: number; pun: number } {
    const n = { vector: 0, pun: 0 };
    walkProgram(p, (loop) => {
      if (loop.kind !== 'for' || loop.init?.kind !== 'assign' || loop.init.target.kind !== 'var') return;
      const iv = loop.init.target.decl;
      // The element-wise bodies only: plain assignments, no call (Csmith's loops store lanes too).
      let calls = false;
      walk(loop.body, (s) => {
        calls ||= s.kind === 'call';
      });
      if (calls || !loop.body.stmts.every((s) => s.kind === 'expr')) return;
      walk(loop.body, (s) => {
        if (s.kind !== 'assign' || s.target.kind !== 'index') return;
        const { base, index } = s.target;
        if (index.kind !== 'var' || index.decl !== iv) return;
        if (base.kind === 'field' && base.base.type.kind === 'union' && isPunUnion(base.base.type)) n.pun++;
        else if (base.type.kind === 'vector') n.vector++;
      });
    });
    return n;
  }

  it('store vector and pun-union lanes; gcc-12 and clang-16 print the expected line at -O3', async () => {
    const stores = cases.map((c) => laneStores(c.program));
    // Measured: 79 lane stores in 6 of the 9 programs (2 before lanes were targets of these loops).
    expect(stores.filter((x) => x.vector > 0).length).toBeGreaterThanOrEqual(3);
    expect(stores.reduce((a, x) => a + x.vector + x.pun, 0)).toBeGreaterThanOrEqual(20);
    expect(stores.some((x) => x.pun > 0)).toBe(true);
    const want = cases.map((c) => c.expected);
    for (const cc of ['gcc-12', 'clang-16']) expect(await runs(cc, ['-O3'], cases), cc).toEqual(want);
  }, 900_000);
});

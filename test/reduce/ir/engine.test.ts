// The IR reducer with cheap, compiler-free interestingness tests: it must keep what the test
// needs, never accept a candidate with UB (every candidate is re-executed), and shrink a lot.
import { describe, expect, it } from 'vitest';
import { C } from '../../../src/c/types.js';
import { emitC } from '../../../src/emit/c.js';
import { CSMITH_POLICY } from '../../../src/gen/policy.js';
import { IRBuilder } from '../../../src/ir/build.js';
import { interpret } from '../../../src/interp/interpret.js';
import { reduceIR, NotInterestingError } from '../../../src/reduce/ir/engine.js';
import { irPasses } from '../../../src/reduce/ir/passes.js';
import { generateProgram } from '../../../src/repair/generate.js';

const nonEmpty = (s: string): number => s.split('\n').filter((l) => l.trim()).length;

describe('IR reducer', () => {
  it('shrinks a generated program to what the test needs, and every kept candidate is UB-free', async () => {
    // "Bug": a left shift and a global whose checksum contribution is non-zero. The first
    // program from seed 12 on that has both (so a generator change does not void the test).
    const bug = (source: string): boolean => / << /.test(source) && /static [a-z_0-9 ]+g_\d+ = -?[1-9]/.test(source);
    let r = generateProgram(12, CSMITH_POLICY);
    for (let seed = 13; seed < 62 && !(r.ok && bug(emitC(r.program))); seed++) r = generateProgram(seed, CSMITH_POLICY);
    expect(r.ok && bug(emitC(r.program)), 'no program of seeds 12-61 has a left shift and a non-zero global').toBe(
      true,
    );
    if (!r.ok) return;
    const seen: string[] = [];
    const result = await reduceIR(
      r.program,
      async (c) => {
        seen.push(c.source);
        return bug(c.source);
      },
      { jobs: 2 },
    );
    const src = result.best.source;
    expect(/ << /.test(src)).toBe(true);
    const original = seen[0]!; // the test first sees the original program
    expect(nonEmpty(src)).toBeLessThan(nonEmpty(original) / 4);
    // The kept program runs cleanly in the interpreter and prints what its first line says.
    const run = interpret(result.best.program);
    expect(run.ok).toBe(true);
    if (run.ok) expect(src.startsWith(`/* kiln: expected "${run.output.trimEnd()}" */`)).toBe(true);
    expect(result.stats.committed).toBeGreaterThan(10);
  }, 300_000);

  it('never keeps a candidate the interpreter rejects (UB-free by construction)', async () => {
    // x = a / b with b = 1: replacing b by 0 would make the division UB; the test would accept it,
    // so only the interpreter stands between the reducer and a UB program.
    const b = new IRBuilder();
    const a = b.global('a', C.int32, b.lit(7));
    const d = b.global('d', C.int32, b.lit(1));
    const x = b.global('x', C.int32, b.lit(0));
    const main = b.func(
      'main',
      C.int,
      [],
      b.block([b.stmt(b.assign(b.v(x), b.bin('/', b.v(a), b.v(d)))), b.hash(b.v(x))]),
    );
    const p = b.program({ globals: [a, d, x], funcs: [main], main });
    const result = await reduceIR(p, async (c) => / \/ /.test(c.source), { jobs: 1 });
    expect(result.best.source).toMatch(/ \/ /);
    expect(interpret(result.best.program).ok).toBe(true);
    expect(result.stats.invalid).toBeGreaterThan(0);
  });

  it('replaces expressions by their values in chunks: far fewer tests than sites when all succeed', async () => {
    // 48 statements x_i = g_i + 1: 96 sites (g_i, g_i + 1) that each took one value. One test per
    // site would cost 96 tests (a minute each for a compile-time hog near its limit).
    const b = new IRBuilder();
    const globals = Array.from({ length: 48 }, (_, i) => b.global(`g${i}`, C.int32, b.lit(BigInt(i + 3))));
    const outs = Array.from({ length: 48 }, (_, i) => b.global(`x${i}`, C.int32, b.lit(0n)));
    const body = globals.map((g, i) => b.stmt(b.assign(b.v(outs[i]!), b.bin('+', b.v(g), b.lit(1n)))));
    const main = b.func('main', C.int, [], b.block([...body, ...outs.map((x) => b.hash(b.v(x)))]));
    const p = b.program({ globals: [...globals, ...outs], funcs: [main], main });
    const expected = interpret(p);
    if (!expected.ok) throw new Error('the test program is not UB-free');
    const head = `/* kiln: expected "${expected.output.trimEnd()}" */`;
    const result = await reduceIR(p, async (c) => c.source.startsWith(head), {
      jobs: 1,
      passes: irPasses().filter((x) => x.name === 'replace-by-value'),
    });
    // Every site became its value (the assignments too: each took one value) ...
    expect(result.best.source).not.toMatch(/ \+ 1/);
    expect(result.best.source).toMatch(/^\s+51;$/m);
    // ... in a handful of tests: the first candidate (half the sites) and its successors succeed.
    expect(result.stats.tested).toBeLessThan(12);
  });

  it('without fine edits, offers chunks of expressions only and keeps constants (for costly tests)', async () => {
    const r = generateProgram(3, CSMITH_POLICY);
    if (!r.ok) throw new Error('seed 3 discarded');
    const fine = irPasses();
    const coarse = irPasses({ fine: false });
    expect(fine.map((x) => x.name)).toContain('shrink-constants');
    expect(coarse.map((x) => x.name)).not.toContain('shrink-constants');
    const { checkCandidate } = await import('../../../src/reduce/ir/candidate.js');
    const c = checkCandidate(r.program, { maxSteps: 2_000_000 });
    if (!c) throw new Error('seed 3 is not a valid candidate');
    for (const name of ['replace-by-value', 'replace-by-operand']) {
      const nf = fine.find((x) => x.name === name)!.candidates(c).length;
      const nc = coarse.find((x) => x.name === name)!.candidates(c).length;
      // ddmin levels down to chunks of 8: a quarter as many candidates as sites, against one or more per site.
      expect(nc, name).toBeGreaterThan(4);
      expect(nc * 4, name).toBeLessThan(nf);
    }
  });

  it('rejects a test that does not accept the original', async () => {
    const r = generateProgram(3, CSMITH_POLICY);
    if (!r.ok) throw new Error('seed 3 discarded');
    await expect(reduceIR(r.program, async () => false)).rejects.toBeInstanceOf(NotInterestingError);
  });
});

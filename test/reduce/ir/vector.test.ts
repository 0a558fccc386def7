// The IR reducer's scalarise-vectors pass: a whole-vector statement becomes one scalar statement
// per lane when the output does not need the vector operation, with the same expected line (the
// scalar lanes compute in the promoted type, which equals the lane for UB-free runs, comparisons
// included), and gcc and clang print that line for the reduced program.
import { describe, expect, it } from 'vitest';
import { C } from '../../../src/c/types.js';
import { emitC } from '../../../src/emit/c.js';
import { interpret } from '../../../src/interp/interpret.js';
import { IRBuilder } from '../../../src/ir/build.js';
import type { Program } from '../../../src/ir/nodes.js';
import type { VectorT } from '../../../src/ir/types.js';
import { maskType, vecBinary, vecLanes, vectorOf, vecUnary } from '../../../src/ir/vector.js';
import { reduceIR } from '../../../src/reduce/ir/engine.js';
import { checkCandidate } from '../../../src/reduce/ir/candidate.js';
import { irPasses } from '../../../src/reduce/ir/passes.js';
import { compileC, runExe } from '../../support/cc.js';

function expectedOf(p: Program): string {
  const r = interpret(p);
  if (!r.ok) throw new Error(`UB: ${r.ub.kind}`);
  return r.output.trimEnd();
}

/** `r1 = x * y + 3; r2 = -(x >> {1, 2, …}); r3 = (x < y);` over uint8 and int16 lanes, every lane hashed. */
function program(): Program {
  const b = new IRBuilder();
  const u8 = vectorOf(C.uint8, 8);
  const i16 = vectorOf(C.int16, 4);
  const x = b.global('x', u8, b.list([250, 3, 7, 128, 0, 1, 99, 200].map((v) => b.lit(v, C.uint8))));
  const y = b.global('y', u8, b.list([9, 200, 7, 2, 255, 1, 3, 100].map((v) => b.lit(v, C.uint8))));
  const s = b.global('s', i16, b.list([-300, 1000, 7, -1].map((v) => b.lit(v, C.int16))));
  const r1 = b.global('r1', u8, undefined);
  const r2 = b.global('r2', i16, undefined);
  const r3 = b.global('r3', maskType(u8), undefined);
  const counts = vecLanes(
    b,
    i16,
    [1, 2, 3, 4].map((v) => b.lit(v, C.int16)),
  );
  const stmts = [
    b.stmt(b.assign(b.v(r1), vecBinary(b, '+', vecBinary(b, '*', b.v(x), b.v(y)), b.lit(3, C.uint8)))),
    b.stmt(b.assign(b.v(r2), vecUnary(b, '-', vecBinary(b, '>>', b.v(s), counts)))),
    b.stmt(b.assign(b.v(r3), vecBinary(b, '<', b.v(x), b.v(y)))),
  ];
  const hashes = [r1, r2, r3].flatMap((r) =>
    Array.from({ length: (r.type as VectorT).lanes }, (_, i) => b.hash(b.idx(b.v(r), b.lit(i)))),
  );
  const main = b.func('main', C.int, [], b.block([...stmts, ...hashes]), undefined, false);
  return b.program({ globals: [x, y, s, r1, r2, r3], funcs: [main], main });
}

describe('scalarise-vectors', () => {
  it('offers every statement as lane statements with the same output, and single lanes', () => {
    const p = program();
    const want = expectedOf(p);
    const [pass] = irPasses().filter((x) => x.name === 'scalarise-vectors');
    const base = checkCandidate(p, { maxSteps: 100_000 })!;
    const made = pass!.candidates(base).map((c) => c());
    // Per statement: all lanes, then each lane alone (8 + 4 + 8 lanes).
    expect(made.length).toBe(3 + 8 + 4 + 8);
    const [all1, , , , , , , , , all2] = made;
    for (const full of [all1, all2, made[14]]) {
      const c = checkCandidate(full!, { maxSteps: 100_000 });
      expect(c?.expected).toBe(want);
    }
    expect(emitC(all1!)).toMatch(/r1\[7\] = \(\(uint8_t\)\(\(x\[7\] \* y\[7\]\) \+ /);
    expect(emitC(made[14]!)).toMatch(/r3\[0\] = \(\(int8_t\)\(-\(x\[0\] < y\[0\]\)\)\)/);
  });

  it('the engine keeps the vector statement a test needs and takes a lane where it is smaller', async () => {
    const p = program();
    const passes = irPasses().filter((x) => x.name === 'scalarise-vectors');
    const keep = await reduceIR(p, async (c) => c.source.includes('(x * y)'), { jobs: 1, passes });
    const kept = emitC(keep.best.program);
    expect(kept).toMatch(/\(x \* y\)/);
    // `r2 = (-(s >> ((vec_i16x4){1, 2, 3, 4})))` is longer than its lane 0 alone; r3's mask is not.
    expect(kept).toMatch(/r2\[0\] = \(\(int16_t\)\(-\(s\[0\] >> 1\)\)\)/);
    expect(kept).toMatch(/r3 = /);
    const want = expectedOf(keep.best.program);
    for (const cc of ['gcc-12', 'clang-16']) {
      const bin = await compileC(kept, { cc, flags: ['-O2'] });
      try {
        expect((await runExe(bin.exe, [], 10_000)).stdout.trimEnd(), cc).toBe(want);
      } finally {
        bin.cleanup();
      }
    }
  }, 120_000);
});

// GNU labels as values (`goto *tbl[index]`, the IR's `igoto`): the interpreter jumps to the
// label the index selects, counts each dispatch in the profile, evaluates the index as a full
// expression, and an index outside the table is a read out of bounds.
import { describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { interpret } from '../../src/interp/interpret.js';
import { IRBuilder } from '../../src/ir/build.js';
import { structuralError } from '../../src/ir/validate.js';
import { dispatchProgram } from '../support/igoto.js';

describe('indirect goto', () => {
  it('runs a threaded dispatch loop through its table and counts each dispatch', () => {
    // 1: +3, 2: ×2, 0: end. ((0 + 3) × 2 + 3) × 2 × 2 = 36, after 6 opcodes.
    const d = dispatchProgram([1, 2, 1, 2, 2, 0], 36n);
    expect(structuralError(d.program)).toBeUndefined();
    const r = interpret(d.program);
    if (!r.ok) throw new Error(`UB: ${r.ub.kind} at ${r.ub.node}`);
    expect(r.output.split('\n')[0]).toBe('@OK@');
    const counts = d.igotos.map((s) => r.profile.stmtCounts.get(s.id) ?? 0);
    // The first dispatch once, the add handler's twice, the double handler's three times.
    expect(counts).toEqual([1, 2, 3]);
    // The same program with another opcode sequence computes another value.
    const other = interpret(dispatchProgram([2, 1, 1, 0], 6n).program);
    expect(other.ok && other.output.split('\n')[0]).toBe('@OK@');
  });

  it('an index outside the table is out-of-bounds at the igoto', () => {
    for (const bad of [3, 7, -1]) {
      const d = dispatchProgram([1, bad, 0], 3n);
      const r = interpret(d.program);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      // The first dispatch (opcode 1) is fine; the add handler's dispatch reads outside.
      expect(r.ub.kind).toBe('out-of-bounds');
      expect(r.ub.node).toBe(d.igotos[1]!.id);
      expect(r.ub.detail).toMatchObject({ index: BigInt(bad), length: 3 });
    }
  });

  it('collect mode goes on at the wrapped index, (uint32_t)i % 3', () => {
    // Opcode 4 wraps to 1 (add): 3, then 6, then the end.
    const d = dispatchProgram([1, 4, 0], 6n);
    const r = interpret(d.program, { collect: true });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reports.map((x) => [x.kind, x.node])).toEqual([['out-of-bounds', d.igotos[1]!.id]]);
    expect(r.profile.stmtCounts.get(d.igotos[1]!.id)).toBe(2);
  });

  it('evaluates the index as a full expression (unsequenced accesses are UB)', () => {
    // ops[pc++] + pc: pc written and read without a sequence point between.
    const d = dispatchProgram([0, 0], 0n, (b, ops, pc) =>
      b.bin('+', b.idx(ops, b.incdec('++', pc, false)), b.cast(C.int32, b.copy(pc))),
    );
    const r = interpret(d.program);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.ub.kind).toBe('unsequenced-access');
  });

  it('validation: every table entry is a label of the same function, and the table is not empty', () => {
    const b = new IRBuilder();
    const l = b.label('lbl_1');
    const stray = b.label('lbl_2');
    const ok = b.func('main', C.int, [], b.block([b.igoto([l], b.lit(0)), l, b.ret(b.lit(0))]), undefined, false);
    expect(structuralError(b.program({ globals: [], funcs: [ok], main: ok }))).toBeUndefined();
    const other = b.func('f', C.int, [], b.block([stray, b.ret(b.lit(0))]));
    const bad = b.func('main', C.int, [], b.block([b.igoto([l, stray], b.lit(0)), l, b.ret(b.lit(0))]), 99, false);
    expect(structuralError(b.program({ globals: [], funcs: [other, bad], main: bad }))).toMatch(
      /indirect goto to a missing label/,
    );
    expect(() => b.igoto([], b.lit(0))).toThrow(/at least one label/);
  });
});

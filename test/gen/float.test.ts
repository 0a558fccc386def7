// Floating point under Kiln's exactness rule (Nagai et al.): values stay integers the mantissa
// holds, conversions report what would round or overflow, constants print exactly, and the
// checksum and checks of floating values mean the same in the interpreter and in C.
import { describe, expect, it } from 'vitest';
import { converter, DOUBLE_EXACT_LIMIT, FLOAT_EXACT_LIMIT } from '../../src/c/convert.js';
import { evalBinary } from '../../src/c/eval.js';
import { C } from '../../src/c/types.js';
import { UBSignal } from '../../src/c/ub.js';
import { emitC, printConst } from '../../src/emit/c.js';
import { IRBuilder } from '../../src/ir/build.js';
import { checkTarget, type Program } from '../../src/ir/nodes.js';
import { interpret } from '../../src/interp/interpret.js';
import { compileAndRun, requireTool } from '../support/cc.js';

function ubOf(f: () => unknown): string | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (e instanceof UBSignal) return e.kind;
    throw e;
  }
}

describe('floating conversions', () => {
  it('integer to float is exact up to 2^24 and reported beyond; to double up to 2^53', () => {
    const toF = converter(C.int, C.float);
    expect(toF(FLOAT_EXACT_LIMIT)).toBe(FLOAT_EXACT_LIMIT);
    expect(toF(-FLOAT_EXACT_LIMIT)).toBe(-FLOAT_EXACT_LIMIT);
    expect(ubOf(() => toF(FLOAT_EXACT_LIMIT + 1))).toBe('float-inexact');
    expect(ubOf(() => toF(FLOAT_EXACT_LIMIT * 2))).toBe('float-inexact');
    const toD = converter(C.llong, C.double);
    expect(toD(BigInt(DOUBLE_EXACT_LIMIT))).toBe(DOUBLE_EXACT_LIMIT);
    expect(ubOf(() => toD(BigInt(DOUBLE_EXACT_LIMIT) + 1n))).toBe('float-inexact');
    expect(ubOf(() => converter(C.ullong, C.double)((1n << 64n) - 1n))).toBe('float-inexact');
    expect(ubOf(() => converter(C.double, C.float)(2 ** 25))).toBe('float-inexact');
    expect(converter(C.double, C.float)(-(2 ** 24))).toBe(-(2 ** 24));
  });

  it('floating to integer truncates in range and reports out of range', () => {
    expect(converter(C.double, C.uchar)(255)).toBe(255);
    expect(ubOf(() => converter(C.double, C.uchar)(256))).toBe('float-to-int-overflow');
    expect(ubOf(() => converter(C.double, C.uint)(-1))).toBe('float-to-int-overflow');
    expect(converter(C.float, C.long)(-(2 ** 24))).toBe(-(2n ** 24n));
  });

  it('mixed operations report an integer operand the floating type cannot hold', () => {
    const r = evalBinary('+', { type: C.int, value: 2 ** 24 + 1 }, { type: C.float, value: 1 });
    expect(r).toEqual({ ok: false, ub: 'float-inexact' });
    const ok = evalBinary('+', { type: C.int, value: 2 ** 24 + 1 }, { type: C.double, value: 1 });
    expect(ok).toEqual({ ok: true, type: C.double, value: 2 ** 24 + 2 });
    expect(evalBinary('/', { type: C.double, value: 7 }, { type: C.double, value: 2 })).toEqual({
      ok: false,
      ub: 'float-inexact',
    });
  });

  it('the interpreter reports an inexact implicit conversion at its operator', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int, b.lit(2 ** 24 + 1, C.int));
    const y = b.global('y', C.float, b.lit(1, C.float));
    const sum = b.bin('+', b.v(x), b.v(y));
    const main = b.func('main', C.int, [], b.block([b.hash(sum)]), undefined, false);
    const r = interpret(b.program({ globals: [x, y], funcs: [main], main }));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.ub).toMatchObject({ kind: 'float-inexact', node: sum.id });
  });
});

describe('floating constants and checks in C', () => {
  const konst = (value: number, t = C.double) => printConst({ kind: 'const', id: 0, type: t, value });

  it('prints integers in decimal and other values as exact hexadecimal constants', () => {
    expect(konst(3)).toBe('3.0');
    expect(konst(3, C.float)).toBe('3.0f');
    expect(konst(-16777216, C.float)).toBe('(-16777216.0f)');
    expect(konst(0.5)).toBe('0x1p-1');
    expect(konst(-2.75)).toBe('(-0xbp-2)');
    expect(konst(2 ** 60)).toBe('0x1p60');
    expect(konst(Number.MIN_VALUE)).toBe('0x1p-1074');
  });

  it('checkTarget refuses values the checked type cannot hold', () => {
    expect(checkTarget(C.int, 5n)).toBe(5n);
    expect(checkTarget(C.int, 1n << 40n)).toBeUndefined();
    expect(checkTarget(C.uint, -1n)).toBeUndefined();
    expect(checkTarget(C.float, 2 ** 24 + 1)).toBeUndefined();
    expect(checkTarget(C.double, 2 ** 24 + 1)).toBe(2 ** 24 + 1);
  });

  it('constants, checks and the checksum of floating values agree between gcc and the interpreter', async () => {
    requireTool('gcc');
    const b = new IRBuilder();
    const values: [number, typeof C.float][] = [
      [0.5, C.double],
      [-2.75, C.double],
      [2 ** 60, C.double],
      [2 ** 53, C.double],
      [-(2 ** 24), C.float],
      [0.1, C.double],
      [1e300, C.double],
      [Math.fround(0.1), C.float],
    ];
    const globals = values.map(([v, t], i) => b.global(`f${i}`, t, b.lit(v, t)));
    const stmts = [
      ...globals.map((g, i) => b.check(b.v(g), values[i]![0])),
      b.check(b.v(globals[0]!), 0.25),
      b.check(b.v(globals[4]!), 2 ** 24 + 1), // not a float: always @NG@
      // Hashed values must be integers the int64_t conversion holds.
      b.hash(b.v(globals[2]!)),
      b.hash(b.v(globals[4]!)),
    ];
    const main = b.func('main', C.int, [], b.block(stmts), undefined, false);
    const p: Program = b.program({ globals, funcs: [main], main });
    const r = interpret(p);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.output.split('\n').slice(0, -2)).toEqual([...values.map(() => '@OK@'), '@NG@', '@NG@']);
    const run = await compileAndRun(emitC(p), { flags: ['-O2'] });
    expect(run.stdout).toBe(r.output);
  });
});

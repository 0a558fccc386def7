// `__int128` and `_BitInt(N)` in src/c, against real compilers and an exact model.
//
// Part 1: fast-check draws operations on operands of bit-precise, 128-bit and standard types
// (mixed, so every rank rule meets every other), keeps those Kiln evaluates without UB, and
// prints each into one C program: the result's type is checked with `_Generic` against the type
// Kiln computed, its value as the 64-bit pieces of its unsigned representation. `_BitInt` cases
// run on clang-16, `__int128` ones (no `_BitInt`) on gcc-12, the compilers CI has.
//
// Part 2 (no compiler): every operator of bit-precise types against an exact BigInt model:
// never promoted, signed results out of range are UB, unsigned ones reduce modulo 2^N.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromBigInt, toBigInt } from '../../src/c/convert.js';
import {
  binaryResultType,
  evalBinary,
  evalCast,
  evalUnary,
  unaryResultType,
  type EvalResult,
} from '../../src/c/eval.js';
import type { ArithBinaryOp, CompareOp } from '../../src/c/ops.js';
import { C, bitInt, intMax, intMin, typeName, type IntType } from '../../src/c/types.js';
import { printConst } from '../../src/emit/c.js';
import { compileC, runExe } from '../support/cc.js';

type Op = ArithBinaryOp | CompareOp;
const OPS: readonly Op[] = ['+', '-', '*', '/', '%', '<<', '>>', '&', '|', '^', '<', '>', '<=', '>=', '==', '!='];

// Widths at and around the representation boundaries (32, 64, 128) and odd ones.
const WIDTHS = [1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 37, 63, 64, 65, 100, 127, 128, 129, 200, 256];
const BIT_INTS: IntType[] = WIDTHS.flatMap((n) => (n >= 2 ? [bitInt(n, true), bitInt(n, false)] : [bitInt(n, false)]));
const STANDARD: IntType[] = [C.schar, C.uchar, C.short, C.ushort, C.int, C.uint, C.long, C.ulong, C.llong, C.ullong];
const INT128: IntType[] = [C.int128, C.uint128];

function valueArb(t: IntType): fc.Arbitrary<bigint> {
  const lo = intMin(t);
  const hi = intMax(t);
  const edges = [lo, hi, 0n, 1n, lo + 1n, hi - 1n].filter((v) => v >= lo && v <= hi);
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min: lo, max: hi }) },
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
    { weight: 2, arbitrary: fc.bigInt({ min: lo > -20n ? lo : -20n, max: hi < 20n ? hi : 20n }) },
  );
}

interface Case {
  readonly text: string;
  readonly type: IntType;
  readonly value: bigint;
}

const typed = (t: IntType, v: bigint) => ({ type: t, value: fromBigInt(v, t) });

/** An operand of exactly type `t` in C: a bit-precise or 128-bit constant casts itself, others get a cast. */
function operand(t: IntType, v: bigint): string {
  const lit = printConst({ kind: 'const', id: -1, type: t, value: v });
  return t.bitPrecise || t.bits === 128 ? lit : `((${typeName(t)})${lit})`;
}

/** Draws cases over `types` and keeps the defined ones (value and type from Kiln). */
function cases(types: readonly IntType[], seed: number, count: number): Case[] {
  const typeArb = fc.constantFrom(...types);
  const binary = fc
    .tuple(fc.constantFrom(...OPS), typeArb, typeArb)
    .chain(([op, a, b]) =>
      fc.tuple(
        fc.constant(op),
        fc.constant(a),
        fc.constant(b),
        valueArb(a),
        op === '<<' || op === '>>'
          ? fc.bigInt({ min: 0n, max: BigInt(Math.min(300, Number(intMax(b)))) })
          : valueArb(b),
      ),
    )
    .map(([op, a, b, x, y]): [string, EvalResult] => [
      `(${operand(a, x)} ${op} ${operand(b, y)})`,
      evalBinary(op, typed(a, x), typed(b, y)),
    ]);
  const unary = fc
    .tuple(fc.constantFrom('-' as const, '~' as const), typeArb)
    .chain(([op, a]) => fc.tuple(fc.constant(op), fc.constant(a), valueArb(a)))
    .map(([op, a, x]): [string, EvalResult] => [`(${op}${operand(a, x)})`, evalUnary(op, typed(a, x))]);
  const cast = fc
    .tuple(typeArb, typeArb)
    .chain(([a, b]) => fc.tuple(fc.constant(a), fc.constant(b), valueArb(a)))
    .map(([a, b, x]): [string, EvalResult] => [`((${typeName(b)})${operand(a, x)})`, evalCast(typed(a, x), b)]);
  const drawn = fc.sample(fc.oneof({ weight: 6, arbitrary: binary }, unary, cast), { seed, numRuns: count });
  const out: Case[] = [];
  for (const [text, r] of drawn) {
    if (!r.ok || r.type.kind !== 'int') continue;
    out.push({ text, type: r.type, value: toBigInt(r.value) });
  }
  return out;
}

/**
 * One C program printing, per case, whether `_Generic` agrees with Kiln's result type and the
 * value's unsigned representation in 64-bit pieces (`unsigned _BitInt(W)`, or `unsigned __int128`
 * when the compiler has no `_BitInt`).
 */
function program(list: readonly Case[], bitInts: boolean): string {
  const lines = [
    '#include <stdio.h>',
    'static void piece(unsigned long long x) { printf("%016llx", x); }',
    'int main(void) {',
  ];
  for (const c of list) {
    const w = bitInts ? Math.max(128, Math.ceil(c.type.bits / 64) * 64) : 128;
    const u = bitInts ? `unsigned _BitInt(${w})` : 'unsigned __int128';
    lines.push(
      `  { ${u} u = (${u})${c.text}; printf("%d ", _Generic(${c.text}, ${typeName(c.type)}: 1, default: 0));`,
      `    for (int k = ${w - 64}; k >= 0; k -= 64) piece((unsigned long long)(u >> k)); printf("\\n"); }`,
    );
  }
  lines.push('  return 0;', '}');
  return lines.join('\n');
}

function expectedLine(c: Case, bitInts: boolean): string {
  const w = bitInts ? Math.max(128, Math.ceil(c.type.bits / 64) * 64) : 128;
  return `1 ${BigInt.asUintN(w, c.value)
    .toString(16)
    .padStart(w / 4, '0')}`;
}

async function check(cc: string, list: readonly Case[], bitInts: boolean): Promise<void> {
  const bin = await compileC(program(list, bitInts), { cc, flags: ['-O0'], timeoutMs: 600_000 });
  try {
    const r = await runExe(bin.exe, [], 60_000);
    expect(r.status).toBe(0);
    const got = r.stdout.trimEnd().split('\n');
    const wrong = list
      .map((c, i) => ({ c, got: got[i], want: expectedLine(c, bitInts) }))
      .filter((x) => x.got !== x.want)
      .map((x) => `${x.c.text}: ${typeName(x.c.type)} ${x.want}, ${cc} ${x.got}`);
    expect(wrong.slice(0, 10)).toEqual([]);
    expect(got.length).toBe(list.length);
  } finally {
    bin.cleanup();
  }
}

describe('__int128 and _BitInt against compilers', () => {
  it('_BitInt of every width class, mixed with standard types and __int128 (clang-16)', async () => {
    const list = cases([...BIT_INTS, ...BIT_INTS, ...STANDARD, ...INT128], 20261202, 2500);
    expect(list.length).toBeGreaterThan(1500);
    await check('clang-16', list, true);
  }, 900_000);

  it('__int128 mixed with the standard types (gcc-12)', async () => {
    const list = cases([...INT128, ...INT128, ...STANDARD], 20261203, 1500);
    expect(list.length).toBeGreaterThan(1000);
    await check('gcc-12', list, false);
  }, 600_000);
});

describe('bit-precise arithmetic against an exact model', () => {
  const exact = (op: Op, x: bigint, y: bigint): bigint | undefined => {
    switch (op) {
      case '+':
        return x + y;
      case '-':
        return x - y;
      case '*':
        return x * y;
      case '/':
        return y === 0n ? undefined : x / y;
      case '%':
        return y === 0n ? undefined : x % y;
      case '&':
        return x & y;
      case '|':
        return x | y;
      case '^':
        return x ^ y;
      default:
        return undefined;
    }
  };

  it('same-type operations stay in the type: UB outside a signed range, modulo 2^N unsigned', () => {
    const arb = fc
      .tuple(fc.constantFrom(...BIT_INTS), fc.constantFrom<Op>('+', '-', '*', '/', '%', '&', '|', '^', '<<'))
      .chain(([t, op]) => fc.tuple(fc.constant(t), fc.constant(op), valueArb(t), valueArb(t)));
    fc.assert(
      fc.property(arb, ([t, op, x, y]) => {
        const r = evalBinary(op, typed(t, x), typed(t, y));
        expect(binaryResultType(op, t, t)).toBe(t);
        if (op === '<<') {
          if (y < 0n || y >= BigInt(t.bits)) {
            expect(r.ok).toBe(false);
            return;
          }
          const m = x * (1n << y);
          if (!t.signed) {
            expect(r.ok && toBigInt(r.value)).toBe(BigInt.asUintN(t.bits, m));
            return;
          }
          if (x < 0n || m > intMax(t)) {
            expect(r.ok).toBe(false);
            return;
          }
          expect(r.ok && toBigInt(r.value)).toBe(m);
          return;
        }
        const m = exact(op, x, y);
        if (m === undefined) {
          expect(r.ok).toBe(false);
          return;
        }
        if (t.signed && (m < intMin(t) || m > intMax(t))) {
          expect(r.ok).toBe(false);
          return;
        }
        expect(r.ok && r.type).toBe(t);
        expect(r.ok && toBigInt(r.value)).toBe(t.signed ? m : BigInt.asUintN(t.bits, m));
      }),
      { seed: 7, numRuns: 4000 },
    );
  });

  it('bit-precise operands are never promoted; unary operators keep the type', () => {
    const u7 = bitInt(7, false);
    expect(binaryResultType('+', u7, u7)).toBe(u7);
    expect(unaryResultType('-', u7)).toBe(u7);
    const r = evalUnary('-', typed(u7, 1n));
    expect(r.ok && r.value).toBe(127);
    // Against int, rank goes by width: _BitInt(7) + int is int, _BitInt(40) + int is _BitInt(40).
    expect(binaryResultType('+', bitInt(7, true), C.int)).toBe(C.int);
    expect(binaryResultType('+', bitInt(40, true), C.int)).toBe(bitInt(40, true));
    // Same width: the standard type ranks higher, so unsigned _BitInt(32) + int is unsigned int.
    expect(binaryResultType('+', bitInt(32, false), C.int)).toBe(C.uint);
    expect(binaryResultType('+', C.int128, C.llong)).toBe(C.int128);
    expect(binaryResultType('+', C.int128, C.ullong)).toBe(C.int128);
    expect(binaryResultType('+', C.int128, bitInt(128, false))).toBe(C.uint128);
  });
});

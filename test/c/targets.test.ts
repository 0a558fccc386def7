// Target models as data (src/c/target.ts): the table itself, and src/c's arithmetic on the two
// ways a model departs from x86-64 that change values: unsigned plain char (exhaustive over all
// 8-bit operand pairs, against gcc and clang built with -funsigned-char, which is exactly what
// those targets' ABIs say) and 32-bit long (boundary values, against m68k-linux-gnu-gcc-12 run
// under qemu-m68k, the cross target of the test profile). The functions under test are called
// without a types table, as the IR builder calls them: the operand types carry the model.
import { describe, expect, it } from 'vitest';
import { BINARY_OPS, UNARY_OPS, isShift, type BinaryOp } from '../../src/c/ops.js';
import { LP64, TARGETS, targetByName } from '../../src/c/target.js';
import { C, toSigned, toUnsigned, typesOf, usualArithmeticInt, type IntType } from '../../src/c/types.js';
import { checkCombos, makeValueList, type Combo, type ValueList } from './support/combos.js';
import { boundaryValues, isCoreValue, shiftCountValues } from './support/values.js';

describe('target models', () => {
  it('name each ABI its widths, char sign, byte order and alignments', () => {
    // Read off each psABI (and checked with the cross compilers: see bench/cross.ts's probe).
    const expected: Record<
      string,
      [long: number, ptr: number, charSigned: boolean, endian: string, alignInt: number, alignLongLong: number]
    > = {
      x86_64: [64, 64, true, 'little', 4, 8],
      i686: [32, 32, true, 'little', 4, 4],
      m68k: [32, 32, true, 'big', 2, 2],
      powerpc: [32, 32, false, 'big', 4, 8],
      aarch64: [64, 64, false, 'little', 4, 8],
      riscv64: [64, 64, false, 'little', 4, 8],
      arm: [32, 32, false, 'little', 4, 8],
      s390x: [64, 64, false, 'big', 4, 8],
      mips: [32, 32, true, 'big', 4, 8],
      alpha: [64, 64, true, 'little', 4, 8],
      hppa: [32, 32, true, 'big', 4, 8],
      powerpc64le: [64, 64, false, 'little', 4, 8],
      loongarch64: [64, 64, true, 'little', 4, 8],
    };
    expect(TARGETS.map((t) => t.name)).toEqual(Object.keys(expected));
    for (const t of TARGETS) {
      const [long, ptr, charSigned, endian, alignInt, alignLongLong] = expected[t.name]!;
      expect([t.longBits, t.pointerBits, t.charSigned, t.endian, t.align.int, t.align.longLong], t.name).toEqual([
        long,
        ptr,
        charSigned,
        endian,
        alignInt,
        alignLongLong,
      ]);
      // Kiln's arithmetic assumes these on every model (int is the promotion target everywhere).
      expect([t.charBits, t.shortBits, t.intBits, t.longLongBits], t.name).toEqual([8, 16, 32, 64]);
      expect(t.stdint[64], t.name).toBe(t.longBits === 64 ? 'long' : 'long long');
      expect(targetByName(t.triplet)).toBe(t);
    }
    expect(typesOf(LP64)).toBe(C);
    expect(targetByName('sh4')).toBeUndefined();
  });

  it('give each model its own types: plain char sign, long width, int64_t rank', () => {
    const m68k = typesOf('m68k');
    const arm = typesOf('arm');
    const aarch64 = typesOf('aarch64');
    expect([m68k.long.bits, m68k.ulong.bits, m68k.int64.rank, m68k.int64.bits]).toEqual([32, 32, 5, 64]);
    expect([C.long.bits, C.int64.rank]).toEqual([64, 4]);
    expect([arm.char.signed, aarch64.char.signed, m68k.char.signed, C.char.signed]).toEqual([false, false, true, true]);
    // Counterparts keep the model's width even when the default table is passed (or none).
    expect(toUnsigned(m68k.long)).toMatchObject({ name: 'unsigned long', bits: 32, rank: 4 });
    expect(toSigned(m68k.ulong)).toMatchObject({ name: 'long', bits: 32, rank: 4 });
    expect(toUnsigned(m68k.int64)).toMatchObject({ name: 'uint64_t', bits: 64, rank: 5 });
    // ILP32: long and unsigned int have one width, so their common type is unsigned long (32 bits);
    // long long holds every unsigned long value, so it wins over unsigned long.
    expect(usualArithmeticInt(m68k.long, m68k.uint)).toMatchObject({ name: 'unsigned long', bits: 32 });
    expect(usualArithmeticInt(m68k.ulong, m68k.llong)).toMatchObject({ name: 'long long', bits: 64 });
    expect(usualArithmeticInt(C.ulong, C.llong)).toMatchObject({ name: 'unsigned long long', bits: 64 });
  });
});

/** Every value of an 8-bit type in ascending order. */
function all8(t: IntType): ValueList {
  const lo = t.signed ? -128 : 0;
  return makeValueList(
    t,
    Array.from({ length: 256 }, (_, i) => BigInt(lo + i)),
  );
}

describe('src/c against C: unsigned plain char (arm, aarch64, powerpc, riscv64, s390x)', () => {
  const U = typesOf('aarch64');
  const TYPES8 = [U.char, U.schar, U.uchar, U.int8, U.uint8];
  const LISTS = new Map(TYPES8.map((t) => [t, all8(t)]));
  const CONFIGS = [
    { cc: 'gcc', flags: ['-std=c11', '-O0', '-funsigned-char'] },
    { cc: 'clang', flags: ['-std=c11', '-O2', '-funsigned-char'] },
  ];

  it('every binary operator × every pairing with plain char ' +
    '× 65536 value pairs, unary operators and casts', async () => {
    expect(LISTS.get(U.char)!.values[0]).toBe(0n);
    const combos: Combo[] = [];
    for (const op of BINARY_OPS)
      for (const ta of TYPES8)
        for (const tb of TYPES8)
          if (ta === U.char || tb === U.char)
            combos.push({
              kind: 'binary',
              op,
              a: LISTS.get(ta)!,
              b: LISTS.get(tb)!,
              sel: { stride: 1, mulBorder: false },
            });
    for (const op of UNARY_OPS) combos.push({ kind: 'unary', op, a: LISTS.get(U.char)! });
    for (const t of U.allInts)
      combos.push(
        { kind: 'cast', a: makeValueList(t, boundaryValues(t)), to: U.char },
        { kind: 'cast', a: LISTS.get(U.char)!, to: t },
      );
    const rep = await checkCombos(combos, CONFIGS);
    expect(rep.cases).toBeGreaterThan(18 * 9 * 65536);
    console.log(
      `unsigned char: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB) ${JSON.stringify(rep.ms)}`,
    );
  }, 600_000);
});

describe('src/c against C: 32-bit long (ILP32, m68k under qemu-m68k)', () => {
  const M = typesOf('m68k');
  const CONFIGS = [
    { cc: 'm68k-linux-gnu-gcc-12', flags: ['-std=c11', '-O0'], run: ['qemu-m68k', '-L', '/usr/m68k-linux-gnu'] },
    { cc: 'm68k-linux-gnu-gcc-12', flags: ['-std=c11', '-O2'], run: ['qemu-m68k', '-L', '/usr/m68k-linux-gnu'] },
  ];
  const VALUES = new Map(M.allInts.map((t) => [t, makeValueList(t, boundaryValues(t), (v) => isCoreValue(t, v))]));
  const COUNTS = new Map(
    M.allInts.map((t) => [t, makeValueList(t, shiftCountValues(t), (v) => isCoreValue(t, v) || (v >= 0n && v <= 65n))]),
  );
  const combo = (op: BinaryOp, ta: IntType, tb: IntType): Combo => {
    const a = VALUES.get(ta)!;
    const b = (isShift(op) ? COUNTS : VALUES).get(tb)!;
    return {
      kind: 'binary',
      op,
      a,
      b,
      sel: {
        stride: Math.max(1, Math.ceil((a.values.length * b.values.length) / 600)),
        mulBorder: op === '*',
        core: 'either',
      },
    };
  };

  it('every binary operator × every pairing of long/unsigned ' +
    'long/int64_t/uint64_t with all 19 spellings, unary operators and casts', async () => {
    const wide = [M.long, M.ulong, M.int64, M.uint64];
    const combos: Combo[] = [];
    for (const op of BINARY_OPS)
      for (const ta of M.allInts)
        for (const tb of M.allInts) if (wide.includes(ta) || wide.includes(tb)) combos.push(combo(op, ta, tb));
    for (const op of UNARY_OPS) for (const t of wide) combos.push({ kind: 'unary', op, a: VALUES.get(t)! });
    for (const t of M.allInts)
      for (const w of wide)
        combos.push({ kind: 'cast', a: VALUES.get(t)!, to: w }, { kind: 'cast', a: VALUES.get(w)!, to: t });
    const rep = await checkCombos(combos, CONFIGS);
    console.log(`m68k long: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB) ${JSON.stringify(rep.ms)}`);
    const typeOf = (op: string, a: string, b: string): string | undefined =>
      rep.lines.map((l) => l.split('\t')).find((f) => f[0] === op && f[1] === a && f[2] === b)?.[3];
    // The ILP32 rules, read back from the cross compiler's _Generic column (Kiln had to match them).
    expect(typeOf('+', 'long', 'unsigned int')).toBe('unsigned long');
    expect(typeOf('+', 'unsigned long', 'long long')).toBe('long long');
    expect(typeOf('+', 'int64_t', 'unsigned long')).toBe('long long');
  }, 600_000);
});

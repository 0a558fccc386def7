// Exhaustive proof of src/c on 8-bit operands: every binary operator, every ordered pair of
// the five 8-bit spellings (char, signed char, unsigned char, int8_t, uint8_t: 25 pairs;
// int8_t/uint8_t are typedefs of signed/unsigned char on glibc, but they are kept as
// separate spellings because Kiln models them as separate IntType objects), all 256 × 256
// value pairs, and every unary operator on every value. The C oracle (support/oracle.ts)
// decides UB with compiler builtins and explicit checks, computes each defined result with
// the C operator, and hashes all outcomes per combo; it is built with gcc -O0, gcc -O2 and
// clang -O2, which must agree with each other before they are compared with Kiln.
import { describe, expect, it } from 'vitest';
import { BINARY_OPS, UNARY_OPS } from '../../src/c/ops.js';
import { C, type IntType } from '../../src/c/types.js';
import { checkCombos, makeValueList, type Combo, type ValueList } from './support/combos.js';

const TYPES8: readonly IntType[] = [C.char, C.schar, C.uchar, C.int8, C.uint8];

/** Every value of an 8-bit type in ascending order (the C side iterates the same array). */
function allValues(t: IntType): ValueList {
  const lo = t.signed ? -128 : 0;
  return makeValueList(
    t,
    Array.from({ length: 256 }, (_, i) => BigInt(lo + i)),
  );
}

const LISTS = new Map(TYPES8.map((t) => [t, allValues(t)]));
const CONFIGS = [
  { cc: 'gcc', flags: ['-std=c11', '-O0'] },
  { cc: 'gcc', flags: ['-std=c11', '-O2'] },
  { cc: 'clang', flags: ['-std=c11', '-O2'] },
];

describe('src/c against C: exhaustive 8-bit operands', () => {
  it('the operand types are the 8-bit spellings with the expected signedness', () => {
    // Guards the enumeration itself: 5 spellings, 8 bits, 256 distinct values each.
    expect(TYPES8.map((t) => t.bits)).toEqual([8, 8, 8, 8, 8]);
    for (const l of LISTS.values()) expect(new Set(l.values).size).toBe(256);
  });

  // The 9 pairs of the three distinct types (char, signed char, unsigned char) get all 65536 value
  // pairs; the 16 pairs with an exact-width spelling, which aliases one of them, every 5th pair
  // plus the core values (0, ±1, the limits): they check that Kiln's separate type objects behave
  // as the types they alias, which a difference in rank or promotion would break on most pairs.
  // (All 25 in full took three times as long.)
  it('every binary operator × 25 type pairs × 65536 value pairs (a fifth for the exact-width spellings)', async () => {
    const distinct = new Set<IntType>([C.char, C.schar, C.uchar]);
    const combos: Combo[] = [];
    for (const op of BINARY_OPS)
      for (const ta of TYPES8)
        for (const tb of TYPES8)
          combos.push({
            kind: 'binary',
            op,
            a: LISTS.get(ta)!,
            b: LISTS.get(tb)!,
            sel: { stride: distinct.has(ta) && distinct.has(tb) ? 1 : 5, mulBorder: false },
          });
    expect(combos.length).toBe(18 * 25);
    const t0 = Date.now();
    const rep = await checkCombos(combos, CONFIGS);
    expect(rep.cases).toBeGreaterThan(18 * 9 * 65536 + 18 * 16 * (65536 / 5));
    expect(rep.cases).toBeLessThan(18 * 25 * 65536);
    console.log(
      `exhaustive8 binary: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB) ` +
        `in ${Date.now() - t0} ms ${JSON.stringify(rep.ms)}`,
    );
  }, 300_000);

  it('every unary operator × 5 types × 256 values', async () => {
    const combos: Combo[] = [];
    for (const op of UNARY_OPS) for (const t of TYPES8) combos.push({ kind: 'unary', op, a: LISTS.get(t)! });
    const rep = await checkCombos(combos, CONFIGS);
    expect(rep.cases).toBe(4 * 5 * 256);
    console.log(`exhaustive8 unary: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB)`);
  });
});

// src/c against C on boundary values of the 16-, 32- and 64-bit types (and the 8-bit types
// as partners): 0, ±1, every ±2^k with its neighbours ±2^k±1, MIN, MIN+1, MAX-1, MAX.
//
// Coverage (counts are printed by each test; at the time of writing 10,648,493 cases for the
// classic pairs, 1,872,435 for the alias pairs, 61,755 for unary operators and casts):
// - Every binary operator × every ordered pair of the 11 classic types. The full cross
//   product of boundary values is ~2.7M pairs per operator, too many for the time budget, so
//   each pairing keeps (deterministically, identically in C and JS; see Selection in
//   support/combos.ts): every pair with a core value (MIN, MIN+1, -2..2, MAX-1, MAX) on
//   either side, every pair with (i + j) % stride == 0 where stride targets ~CLASSIC_TARGET
//   extra pairs, and for `*` every pair of magnitudes 2^e1 × 2^e2 with e1 + e2 at the
//   overflow border. Right operands of shifts also range over every count 0..65 (all core).
// - Exact-width aliases: every operator × every ordered pair with at least one of
//   int8_t … uint64_t (240 pairings), core × core pairs plus ~ALIAS_TARGET strided pairs.
//   Result types are compared by name with `_Generic`, so int64_t + long long must be
//   long long, uint64_t + long long unsigned long long, and so on.
// - Every unary operator on every boundary value of all 19 spellings.
// - `converter` (through evalCast) from each of the 19 spellings to each, on every boundary
//   value of the source type, against C casts.
// The oracle is built with gcc -O0 and clang -O0, which must agree before Kiln is compared.
import { describe, expect, it } from 'vitest';
import { BINARY_OPS, UNARY_OPS, isShift, type BinaryOp } from '../../src/c/ops.js';
import { C, type IntType } from '../../src/c/types.js';
import { checkCombos, makeValueList, type Combo, type ValueList } from './support/combos.js';
import { boundaryValues, isCoreValue, shiftCountValues } from './support/values.js';

const CLASSIC_TARGET = 2500;
const ALIAS_TARGET = 300;
const CONFIGS = [
  { cc: 'gcc', flags: ['-std=c11', '-O0'] },
  { cc: 'clang', flags: ['-std=c11', '-O0'] },
];

const VALUES = new Map<IntType, ValueList>(
  C.allInts.map((t) => [t, makeValueList(t, boundaryValues(t), (v) => isCoreValue(t, v))]),
);
const COUNTS = new Map<IntType, ValueList>(
  C.allInts.map((t) => [t, makeValueList(t, shiftCountValues(t), (v) => isCoreValue(t, v) || (v >= 0n && v <= 65n))]),
);

/** The `_Generic` result type the C oracle printed for `(a) op (b)`. */
function resultTypeOf(lines: readonly string[], op: string, a: string, b: string): string | undefined {
  return lines.map((l) => l.split('\t')).find((f) => f[0] === op && f[1] === a && f[2] === b)?.[3];
}

function binaryCombo(op: BinaryOp, ta: IntType, tb: IntType, target: number, core: 'either' | 'both'): Combo {
  const a = VALUES.get(ta)!;
  const b = (isShift(op) ? COUNTS : VALUES).get(tb)!;
  const stride = Math.max(1, Math.ceil((a.values.length * b.values.length) / target));
  return { kind: 'binary', op, a, b, sel: { stride, mulBorder: op === '*', core } };
}

describe('src/c against C: boundary values of every integer type', () => {
  it('boundary value sets contain the required values', () => {
    for (const t of C.allInts) {
      const vs = new Set(VALUES.get(t)!.values);
      const lo = t.signed ? -(1n << BigInt(t.bits - 1)) : 0n;
      const hi = t.signed ? (1n << BigInt(t.bits - 1)) - 1n : (1n << BigInt(t.bits)) - 1n;
      for (const v of [0n, 1n, lo, lo + 1n, hi, hi - 1n]) expect(vs.has(v), `${t.name} ${v}`).toBe(true);
      for (let k = 1n; k < BigInt(t.bits); k++) {
        for (const v of [1n << k, (1n << k) - 1n, (1n << k) + 1n, -(1n << k), -(1n << k) + 1n, -(1n << k) - 1n]) {
          if (v >= lo && v <= hi) expect(vs.has(v), `${t.name} ${v}`).toBe(true);
        }
      }
    }
  });

  it('every binary operator × every pair of the 11 classic types', async () => {
    const combos: Combo[] = [];
    for (const op of BINARY_OPS)
      for (const ta of C.classic)
        for (const tb of C.classic) combos.push(binaryCombo(op, ta, tb, CLASSIC_TARGET, 'either'));
    expect(combos.length).toBe(18 * 121);
    const t0 = Date.now();
    const rep = await checkCombos(combos, CONFIGS);
    console.log(
      `boundary classic pairs: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB) ` +
        `in ${Date.now() - t0} ms ${JSON.stringify(rep.ms)}`,
    );
    expect(rep.cases).toBeGreaterThan(1_000_000);
    // LP64's trap, read back from the oracle's _Generic column (Kiln already had to match it).
    expect(resultTypeOf(rep.lines, '+', 'unsigned long', 'long long')).toBe('unsigned long long');
    expect(resultTypeOf(rep.lines, '+', 'unsigned int', 'long')).toBe('long');
  }, 300_000);

  it('exact-width aliases behave as their classic types (every operator, every pairing with an alias)', async () => {
    const combos: Combo[] = [];
    const isExact = (t: IntType): boolean => C.exact.includes(t);
    for (const op of BINARY_OPS)
      for (const ta of C.allInts)
        for (const tb of C.allInts)
          if (isExact(ta) || isExact(tb)) combos.push(binaryCombo(op, ta, tb, ALIAS_TARGET, 'both'));
    expect(combos.length).toBe(18 * (19 * 19 - 11 * 11));
    const t0 = Date.now();
    const rep = await checkCombos(combos, CONFIGS);
    console.log(
      `boundary alias pairs: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB) ` +
        `in ${Date.now() - t0} ms ${JSON.stringify(rep.ms)}`,
    );
    // Examples read back from the oracle's _Generic result type column (Kiln already had to match it).
    expect(resultTypeOf(rep.lines, '+', 'int64_t', 'long long')).toBe('long long');
    expect(resultTypeOf(rep.lines, '+', 'uint64_t', 'long long')).toBe('unsigned long long');
    expect(resultTypeOf(rep.lines, '+', 'long long', 'uint64_t')).toBe('unsigned long long');
    expect(resultTypeOf(rep.lines, '*', 'int64_t', 'long')).toBe('long');
  }, 300_000);

  it('every unary operator and every conversion on all 19 spellings', async () => {
    const combos: Combo[] = [];
    for (const op of UNARY_OPS) for (const t of C.allInts) combos.push({ kind: 'unary', op, a: VALUES.get(t)! });
    for (const from of C.allInts) for (const to of C.allInts) combos.push({ kind: 'cast', a: VALUES.get(from)!, to });
    const t0 = Date.now();
    const rep = await checkCombos(combos, CONFIGS);
    console.log(
      `boundary unary+casts: ${rep.combos} combos, ${rep.cases} cases (${rep.ubCases} UB) ` +
        `in ${Date.now() - t0} ms ${JSON.stringify(rep.ms)}`,
    );
    expect(rep.combos).toBe(4 * 19 + 19 * 19);
  });
});

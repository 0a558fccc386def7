// Property tests of src/c.
//
// Part 1 (C oracle): fast-check draws cases with fixed seeds at every width — both operands
// 8-bit, 16-bit, 32-bit, 64-bit (signed, unsigned and mixed spellings of that width), plus
// freely mixed widths, unary operators and casts. Each batch is emitted as data into one C
// program (alternately compiled by gcc and clang at -O0), run once, and every case's value,
// UB category and `_Generic` result type is compared with Kiln.
//
// Part 2 (no compiler): algebraic properties of the type model and the conversion kernels,
// and an exact BigInt reference model of C11 6.5 that evalBinary/evalUnary must match.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  binaryOperationType,
  binaryResultType,
  evalBinary,
  evalUnary,
  unaryResultType,
  type EvalResult,
} from '../../src/c/eval.js';
import { converter } from '../../src/c/convert.js';
import { BINARY_OPS, UNARY_OPS, isShift, type BinaryOp, type UnaryOp } from '../../src/c/ops.js';
import { C, promote, usualArithmetic, type IntType } from '../../src/c/types.js';
import { compileC, runExe } from '../support/cc.js';
import { caseText, chunkFunctions, kilnEval, kilnType, oracleBlock, type Case } from './support/cases.js';
import {
  ORACLE_HEADER,
  categoryName,
  categoryOf,
  jsValue,
  kilnCanonicalName,
  representationError,
  valueHex,
} from './support/oracle.js';
import { boundaryValues, maxOf, minOf } from './support/values.js';

const SEED = 20240611;
const BATCH = 1500;

const ofWidth = (bits: number): IntType[] => C.allInts.filter((t) => t.bits === bits);

function valueArb(t: IntType): fc.Arbitrary<bigint> {
  const lo = minOf(t);
  const hi = maxOf(t);
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min: lo, max: hi }) },
    { weight: 2, arbitrary: fc.constantFrom(...boundaryValues(t)) },
    { weight: 1, arbitrary: fc.bigInt({ min: lo > -70n ? lo : -70n, max: hi < 70n ? hi : 70n }) },
  );
}

/** Right operands of shifts: mostly counts around the widths, sometimes anything. */
function countArb(t: IntType): fc.Arbitrary<bigint> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.bigInt({ min: t.signed ? -2n : 0n, max: 66n < maxOf(t) ? 66n : maxOf(t) }) },
    { weight: 1, arbitrary: valueArb(t) },
  );
}

function binaryCaseArb(as: readonly IntType[], bs: readonly IntType[]): fc.Arbitrary<Case> {
  return fc
    .tuple(fc.constantFrom(...BINARY_OPS), fc.constantFrom(...as), fc.constantFrom(...bs))
    .chain(([op, ta, tb]) =>
      fc
        .tuple(valueArb(ta), isShift(op) ? countArb(tb) : valueArb(tb))
        .map(([a, b]): Case => ({ kind: 'binary', op, ta, tb, a, b })),
    );
}

function unaryCaseArb(): fc.Arbitrary<Case> {
  return fc
    .tuple(fc.constantFrom(...UNARY_OPS), fc.constantFrom(...C.allInts))
    .chain(([op, ta]) => valueArb(ta).map((a): Case => ({ kind: 'unary', op, ta, a })));
}

function castCaseArb(): fc.Arbitrary<Case> {
  return fc
    .tuple(fc.constantFrom(...C.allInts), fc.constantFrom(...C.allInts))
    .chain(([ta, to]) => valueArb(ta).map((a): Case => ({ kind: 'cast', ta, to, a })));
}

/** Runs a batch through the C oracle and compares every case with Kiln. */
async function checkBatch(label: string, cases: readonly Case[], cc: string): Promise<void> {
  const blocks = cases.map((c, i) => oracleBlock(c, i));
  const { src, names } = chunkFunctions(blocks);
  const main = `int main(void) {\n${names.map((n) => `  ${n}();`).join('\n')}\n  return 0;\n}\n`;
  const program = `${ORACLE_HEADER}\n${src}\n${main}`;
  const bin = await compileC(program, { cc, flags: ['-std=c11', '-O0'] });
  try {
    const r = await runExe(bin.exe);
    expect(r.status, `${label}: oracle failed ${r.stderr.slice(0, 1000)}`).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(cases.length);
    const diffs: string[] = [];
    let ub = 0;
    cases.forEach((c, i) => {
      const [idx, kind, bits, type] = lines[i]!.split('\t');
      expect(Number(idx)).toBe(i);
      const cat = Number(kind);
      if (cat !== 0) ub++;
      const k = kilnEval(c);
      const kc = categoryOf(k);
      const st = kilnType(c);
      const cText = `${cat === 0 ? `0x${bits}` : `UB ${categoryName(cat)}`} : ${type}`;
      const kText =
        `${kc === 0 ? `0x${valueHex((k as { value: number | bigint }).value)}` : `UB ${k.ok ? '' : k.ub}`} ` +
        `: ${kilnCanonicalName(st)}`;
      if (cText !== kText) diffs.push(`${caseText(c)}: C says ${cText}; Kiln says ${kText}`);
      if (k.ok && k.type.kind === 'int') {
        const bad = representationError(k.value, k.type);
        if (bad) diffs.push(`${caseText(c)}: ${bad}`);
        if (kilnCanonicalName(k.type) !== kilnCanonicalName(st))
          diffs.push(`${caseText(c)}: evaluated type ${k.type.name}, static type ${st.name}`);
      }
    });
    expect(
      diffs.length,
      `${label} (seed ${SEED}, ${cc}): ${diffs.length} of ${cases.length} cases ` +
        `differ:\n${diffs.slice(0, 15).join('\n')}`,
    ).toBe(0);
    console.log(`properties ${label}: ${cases.length} cases (${ub} UB) agree with ${cc}`);
  } finally {
    bin.cleanup();
  }
}

describe('src/c against C on fast-check cases (fixed seed)', () => {
  const batches: { label: string; cases: () => Case[]; cc: string }[] = [
    ...[8, 16, 32, 64].map((bits, k) => ({
      label: `${bits}-bit operands`,
      cases: () => fc.sample(binaryCaseArb(ofWidth(bits), ofWidth(bits)), { seed: SEED + bits, numRuns: BATCH }),
      cc: k % 2 === 0 ? 'gcc' : 'clang',
    })),
    {
      label: 'mixed widths',
      cases: () => fc.sample(binaryCaseArb(C.allInts, C.allInts), { seed: SEED + 1, numRuns: BATCH }),
      cc: 'gcc',
    },
    {
      label: 'unary operators and casts',
      cases: () => [
        ...fc.sample(unaryCaseArb(), { seed: SEED + 2, numRuns: 700 }),
        ...fc.sample(castCaseArb(), { seed: SEED + 3, numRuns: 800 }),
      ],
      cc: 'clang',
    },
  ];
  for (const b of batches) {
    it(`${b.label}: value, UB category and result type agree (${b.cc})`, async () => {
      const cases = b.cases();
      // The draw must really cover the batch: every operator, every signedness pairing.
      const bin = cases.filter((c): c is Extract<Case, { kind: 'binary' }> => c.kind === 'binary');
      if (bin.length) {
        expect(new Set(bin.map((c) => c.op)).size).toBe(BINARY_OPS.length);
        expect(new Set(bin.map((c) => `${c.ta.signed}/${c.tb.signed}`)).size).toBe(4);
      } else {
        expect(new Set(cases.map((c) => (c.kind === 'unary' ? c.op : 'cast'))).size).toBe(UNARY_OPS.length + 1);
      }
      await checkBatch(b.label, cases, b.cc);
    }, 240_000);
  }
});

// ---------------------------------------------------------------------------------------
// Part 2: no compiler.

const anyType = fc.constantFrom(...C.allInts);
const typedValue = anyType.chain((t) => valueArb(t).map((v) => ({ t, v })));
const sameCanon = (a: IntType, b: IntType): boolean => kilnCanonicalName(a) === kilnCanonicalName(b);
const asType = (v: bigint, t: IntType): bigint => (t.signed ? BigInt.asIntN(t.bits, v) : BigInt.asUintN(t.bits, v));
const big = (v: number | bigint): bigint => (typeof v === 'bigint' ? v : BigInt(v));
const RUNS = { seed: SEED, numRuns: 4000 };

/**
 * Exact reference semantics (C11 6.3, 6.5.3.3, 6.5.5–6.5.14) on BigInts; types from Kiln's model (proved against C
 * elsewhere).
 */
function reference(
  op: BinaryOp,
  ta: IntType,
  a: bigint,
  tb: IntType,
  b: bigint,
): { ub: string } | { value: bigint; type: IntType } {
  if (op === '&&') return { value: a !== 0n && b !== 0n ? 1n : 0n, type: C.int };
  if (op === '||') return { value: a !== 0n || b !== 0n ? 1n : 0n, type: C.int };
  if (op === '<<' || op === '>>') {
    const lt = promote(ta);
    if (b < 0n) return { ub: 'shift-count-negative' };
    if (b >= BigInt(lt.bits)) return { ub: 'shift-count-too-large' };
    if (op === '>>') return { value: a >> b, type: lt }; // GCC: arithmetic shift of negative values
    if (!lt.signed) return { value: BigInt.asUintN(lt.bits, a << b), type: lt };
    if (a < 0n) return { ub: 'shift-negative-value' };
    const r = a << b;
    return r > maxOf(lt) ? { ub: 'shift-overflow' } : { value: r, type: lt };
  }
  const u = usualArithmetic(ta, tb);
  if (u.kind !== 'int') throw new Error('integer operands, floating common type');
  const x = asType(a, u);
  const y = asType(b, u);
  const inRange = (m: bigint): { ub: string } | { value: bigint; type: IntType } =>
    u.signed
      ? m < minOf(u) || m > maxOf(u)
        ? { ub: 'signed-overflow' }
        : { value: m, type: u }
      : { value: asType(m, u), type: u };
  switch (op) {
    case '+':
      return inRange(x + y);
    case '-':
      return inRange(x - y);
    case '*':
      return inRange(x * y);
    case '/':
    case '%':
      if (y === 0n) return { ub: 'division-by-zero' };
      if (u.signed && x === minOf(u) && y === -1n)
        return { ub: op === '/' ? 'division-overflow' : 'remainder-overflow' };
      return { value: op === '/' ? x / y : x % y, type: u };
    case '&':
      return { value: asType(x & y, u), type: u };
    case '|':
      return { value: asType(x | y, u), type: u };
    case '^':
      return { value: asType(x ^ y, u), type: u };
    case '<':
      return { value: x < y ? 1n : 0n, type: C.int };
    case '>':
      return { value: x > y ? 1n : 0n, type: C.int };
    case '<=':
      return { value: x <= y ? 1n : 0n, type: C.int };
    case '>=':
      return { value: x >= y ? 1n : 0n, type: C.int };
    case '==':
      return { value: x === y ? 1n : 0n, type: C.int };
    case '!=':
      return { value: x !== y ? 1n : 0n, type: C.int };
  }
}

function referenceUnary(op: UnaryOp, t: IntType, a: bigint): { ub: string } | { value: bigint; type: IntType } {
  const p = promote(t);
  if (op === '!') return { value: a === 0n ? 1n : 0n, type: C.int };
  if (op === '+') return { value: a, type: p };
  if (op === '~') return { value: asType(~a, p), type: p };
  if (p.signed && -a > maxOf(p)) return { ub: 'signed-overflow' };
  return { value: asType(-a, p), type: p };
}

function sameOutcome(k: EvalResult, r: { ub: string } | { value: bigint; type: IntType }): boolean {
  if ('ub' in r) return !k.ok && k.ub === r.ub;
  return (
    k.ok &&
    k.type.kind === 'int' &&
    big(k.value) === r.value &&
    sameCanon(k.type, r.type) &&
    representationError(k.value, k.type) === undefined
  );
}

function show(k: EvalResult): string {
  return k.ok ? `${String(k.value)} : ${k.type.name}` : `UB ${k.ub}`;
}

describe('src/c properties without a compiler', () => {
  it('converter agrees with reduction modulo 2^N and uses the right representation', () => {
    fc.assert(
      fc.property(typedValue, anyType, ({ t, v }, to) => {
        const out = converter(t, to)(jsValue(v, t));
        expect(representationError(out, to)).toBeUndefined();
        expect(big(out)).toBe(asType(v, to));
      }),
      RUNS,
    );
  });

  it('converter round trips through any type at least as wide', () => {
    fc.assert(
      fc.property(typedValue, anyType, ({ t, v }, via) => {
        fc.pre(via.bits >= t.bits);
        const there = converter(t, via)(jsValue(v, t));
        expect(big(converter(via, t)(there))).toBe(v);
      }),
      RUNS,
    );
  });

  it('conversion through a wider type equals the direct conversion; identity on representable values', () => {
    fc.assert(
      fc.property(typedValue, anyType, anyType, ({ t, v }, mid, to) => {
        fc.pre(mid.bits >= to.bits);
        const direct = converter(t, to)(jsValue(v, t));
        expect(big(converter(mid, to)(converter(t, mid)(jsValue(v, t))))).toBe(big(direct));
        if (v >= minOf(to) && v <= maxOf(to)) expect(big(direct)).toBe(v);
      }),
      RUNS,
    );
  });

  it('usualArithmetic is symmetric and idempotent, and never below int or either promoted operand', () => {
    fc.assert(
      fc.property(anyType, anyType, (a, b) => {
        const u = usualArithmetic(a, b);
        const v = usualArithmetic(b, a);
        if (u.kind !== 'int' || v.kind !== 'int') throw new Error('integer operands, floating common type');
        expect(sameCanon(u, v), `${a.name}, ${b.name}: ${u.name} vs ${v.name}`).toBe(true);
        for (const w of [usualArithmetic(u, u), usualArithmetic(u, a), usualArithmetic(b, u)]) {
          expect(w.kind === 'int' && sameCanon(w, u), `${a.name}, ${b.name}`).toBe(true);
        }
        expect(u.rank).toBeGreaterThanOrEqual(C.int.rank);
        expect(u.rank).toBeGreaterThanOrEqual(Math.max(promote(a).rank, promote(b).rank));
        expect(u.bits).toBeGreaterThanOrEqual(Math.max(a.bits, b.bits));
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it('promote(t) has rank ≥ int, is idempotent, and holds every value of t', () => {
    fc.assert(
      fc.property(anyType, (t) => {
        const p = promote(t);
        expect(p.rank).toBeGreaterThanOrEqual(C.int.rank);
        expect(promote(p)).toBe(p);
        expect(minOf(p) <= minOf(t) && maxOf(p) >= maxOf(t)).toBe(true);
        if (t.rank >= C.int.rank) expect(p).toBe(t);
      }),
      { seed: SEED, numRuns: 500 },
    );
  });

  it('evalBinary with an unsigned operation type only reports division-by-zero or shift-count UB', () => {
    const op = fc.constantFrom(...BINARY_OPS);
    fc.assert(
      fc.property(op, typedValue, typedValue, (o, x, y) => {
        const opType = binaryOperationType(o, x.t, y.t);
        fc.pre(opType.kind === 'int' && !opType.signed);
        const r = evalBinary(o, { type: x.t, value: jsValue(x.v, x.t) }, { type: y.t, value: jsValue(y.v, y.t) });
        const allowed = isShift(o) ? ['shift-count-negative', 'shift-count-too-large'] : ['division-by-zero'];
        if (!r.ok) expect(allowed, `${o} ${x.t.name} ${x.v} ${y.t.name} ${y.v}`).toContain(r.ub);
      }),
      { seed: SEED, numRuns: 10000 },
    );
  });

  it('comparisons are mutually consistent (trichotomy, converse, complement)', () => {
    fc.assert(
      fc.property(typedValue, typedValue, (x, y) => {
        const a = { type: x.t, value: jsValue(x.v, x.t) };
        const b = { type: y.t, value: jsValue(y.v, y.t) };
        const v = (op: BinaryOp, p = a, q = b): number => {
          const r = evalBinary(op, p, q);
          if (!r.ok) throw new Error(`comparison reported UB ${r.ub}`);
          return Number(r.value);
        };
        expect(v('<') + v('==') + v('>')).toBe(1);
        expect(v('<')).toBe(v('>', b, a));
        expect(v('<=')).toBe(1 - v('>'));
        expect(v('>=')).toBe(1 - v('<'));
        expect(v('!=')).toBe(1 - v('=='));
        expect(v('==')).toBe(v('==', b, a));
      }),
      RUNS,
    );
  });

  it('evalBinary matches an exact BigInt reference model of C11 on every operator and type pair', () => {
    fc.assert(
      fc.property(fc.constantFrom(...BINARY_OPS), typedValue, typedValue, (op, x, y) => {
        const k = evalBinary(op, { type: x.t, value: jsValue(x.v, x.t) }, { type: y.t, value: jsValue(y.v, y.t) });
        const r = reference(op, x.t, x.v, y.t, y.v);
        expect(
          sameOutcome(k, r),
          `(${x.t.name})${x.v} ${op} (${y.t.name})${y.v}: Kiln ${show(k)}, ` +
            `reference ${'ub' in r ? `UB ${r.ub}` : `${r.value} : ${r.type.name}`}`,
        ).toBe(true);
        if (k.ok) expect(sameCanon(k.type as IntType, binaryResultType(op, x.t, y.t) as IntType)).toBe(true);
      }),
      { seed: SEED, numRuns: 20000 },
    );
  });

  it('shifts match the reference model on counts around the width', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<BinaryOp>('<<', '>>'),
        typedValue,
        anyType.chain((t) => countArb(t).map((v) => ({ t, v }))),
        (op, x, y) => {
          const k = evalBinary(op, { type: x.t, value: jsValue(x.v, x.t) }, { type: y.t, value: jsValue(y.v, y.t) });
          const r = reference(op, x.t, x.v, y.t, y.v);
          expect(
            sameOutcome(k, r),
            `(${x.t.name})${x.v} ${op} (${y.t.name})${y.v}: Kiln ${show(k)}, ` +
              `reference ${'ub' in r ? `UB ${r.ub}` : `${r.value}`}`,
          ).toBe(true);
        },
      ),
      { seed: SEED, numRuns: 10000 },
    );
  });

  it('evalUnary matches the reference model', () => {
    fc.assert(
      fc.property(fc.constantFrom(...UNARY_OPS), typedValue, (op, x) => {
        const k = evalUnary(op, { type: x.t, value: jsValue(x.v, x.t) });
        const r = referenceUnary(op, x.t, x.v);
        expect(sameOutcome(k, r), `${op}(${x.t.name})${x.v}: Kiln ${show(k)}`).toBe(true);
        if (k.ok) expect(sameCanon(k.type as IntType, unaryResultType(op, x.t) as IntType)).toBe(true);
      }),
      { seed: SEED, numRuns: 5000 },
    );
  });
});

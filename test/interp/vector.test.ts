// GNU vectors in the interpreter (src/interp/vector.ts): lanes computed at their own width, as
// gcc and clang compute them, checked against both on hand-built programs of every operator and
// builtin over every lane type; lane-wise UB reported at the operator, and repaired.
import { describe, expect, it } from 'vitest';
import { C, type IntType } from '../../src/c/types.js';
import { interpret } from '../../src/interp/interpret.js';
import { IRBuilder } from '../../src/ir/build.js';
import type { Expr, Program, Stmt, VarDecl } from '../../src/ir/nodes.js';
import { arrayOf, type VectorT } from '../../src/ir/types.js';
import {
  maskType,
  vecBinary,
  vecCast,
  vecConvert,
  vecLanes,
  vecShuffleVector,
  vectorOf,
  vecUnary,
} from '../../src/ir/vector.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { Rng } from '../../src/random/rng.js';
import { repairProgram } from '../../src/repair/generate.js';
import { batchSource } from '../support/batch.js';
import { compileC, runExe } from '../support/cc.js';

const LANES: readonly [IntType, number][] = [
  [C.int8, 16],
  [C.uint8, 8],
  [C.int16, 8],
  [C.uint16, 4],
  [C.int32, 4],
  [C.uint32, 8],
  [C.int64, 2],
  [C.uint64, 4],
];

/** Values near the lane type's edges, where wrapping and promotion differ. */
function laneValue(rng: Rng, t: IntType): bigint {
  const min = t.signed ? -(1n << BigInt(t.bits - 1)) : 0n;
  const max = (t.signed ? 1n << BigInt(t.bits - 1) : 1n << BigInt(t.bits)) - 1n;
  const picks = [min, min + 1n, max, max - 1n, 0n, 1n, 2n, 3n, t.signed ? -1n : 7n, BigInt(rng.int(-100, 100))];
  const v = rng.pick(picks);
  return v < min ? min : v > max ? max : v;
}

/**
 * A program computing `op` over two global vectors of each lane type into result globals, then
 * hashing every lane; statements whose run reports UB are dropped, so the program is clean.
 */
function opsProgram(seed: number): Program {
  const rng = Rng.seeded(`vector-ops:${seed}`);
  const b = new IRBuilder();
  const globals: VarDecl[] = [];
  const stmts: Stmt[] = [];
  const global = (t: VectorT): VarDecl => {
    const g = b.global(
      `g_${globals.length + 1}`,
      t,
      b.list(Array.from({ length: t.lanes }, () => b.lit(laneValue(rng, t.of as IntType), t.of))),
    );
    globals.push(g);
    return g;
  };
  const store = (t: VectorT, e: () => Expr): void => {
    const r = global(t);
    stmts.push(b.stmt(b.assign(b.v(r), e())));
  };
  for (const [lane, lanes] of LANES) {
    const t = vectorOf(lane, lanes);
    const x = global(t);
    const y = global(t);
    for (const op of ['+', '-', '*', '/', '%', '&', '|', '^'] as const)
      store(t, () => vecBinary(b, op, b.v(x), b.v(y)));
    for (const op of ['<<', '>>'] as const) {
      const counts = vecLanes(
        b,
        t,
        Array.from({ length: lanes }, () => b.lit(rng.int(0, lane.bits - 1), lane)),
      );
      store(t, () => vecBinary(b, op, b.v(x), counts));
      store(t, () => vecBinary(b, op, b.v(y), b.lit(rng.int(0, lane.bits - 1), lane)));
    }
    store(t, () => vecBinary(b, '+', b.v(x), b.lit(laneValue(rng, lane), lane)));
    store(t, () => vecUnary(b, '-', b.v(x)));
    store(t, () => vecUnary(b, '~', b.v(y)));
    for (const op of ['<', '>', '<=', '>=', '==', '!='] as const)
      store(maskType(t), () => vecBinary(b, op, b.v(x), b.v(y)));
    // Bytes read as another lane width, lanes converted to another lane type of the same count.
    const other = LANES.find(([l, n]) => n * l.bits === lanes * lane.bits && l !== lane)!;
    store(vectorOf(other[0], other[1]), () => vecCast(b, vectorOf(other[0], other[1]), b.v(x)));
    const wide = LANES.find(([l]) => l.bits !== lane.bits && (l.bits * lanes) / 8 <= 64)!;
    store(vectorOf(wide[0], lanes), () => vecConvert(b, vectorOf(wide[0], lanes), b.v(y)));
    const idx = Array.from({ length: lanes }, () => rng.int(0, 2 * lanes - 1));
    store(t, () => vecShuffleVector(b, b.v(x), b.v(y), idx));
    // Lane writes and reads.
    stmts.push(b.stmt(b.assign(b.idx(b.v(x), b.lit(lanes - 1)), b.idx(b.v(y), b.lit(0)))));
  }
  const hashes = globals.flatMap((g) => {
    const t = g.type as VectorT;
    return Array.from({ length: t.lanes }, (_, i) => b.hash(b.idx(b.v(g), b.lit(i))));
  });
  let body = stmts;
  for (;;) {
    const main = b.func('main', C.int, [], b.block([...body, ...hashes]), undefined, false);
    const p = b.program({ globals, funcs: [main], main });
    const r = interpret(p);
    if (r.ok) return p;
    const bad = body.findIndex((s) =>
      JSON.stringify(s, (_, v) => (typeof v === 'bigint' ? `${v}` : v)).includes(`"id":${r.ub.node},`),
    );
    if (bad < 0) throw new Error(`UB outside the operator statements: ${r.ub.kind}`);
    body = body.filter((_, i) => i !== bad);
  }
}

async function run(cc: string, flags: string[], programs: readonly Program[]): Promise<string[]> {
  const bin = await compileC(batchSource(programs), { cc, flags });
  try {
    const r = await runExe(bin.exe, [], 30_000);
    return r.stdout.trimEnd().split('\n');
  } finally {
    bin.cleanup();
  }
}

describe('vector lanes against gcc and clang', () => {
  const programs = [1, 2, 3, 4].map(opsProgram);
  const expected = programs.map((p) => {
    const r = interpret(p);
    if (!r.ok) throw new Error('UB');
    return r.output.trimEnd();
  });

  it('every operator and builtin of every lane type prints the interpreter checksum', async () => {
    // Most statements survive: UB is the exception at lane values drawn near the edges.
    for (const p of programs) expect(p.funcs[0]!.body.stmts.length).toBeGreaterThan(200);
    for (const cc of ['gcc-12', 'clang-16'])
      for (const o of ['-O0', '-O2']) expect(await run(cc, [o], programs), `${cc} ${o}`).toEqual(expected);
  }, 300_000);
});

/** A one-statement program `r = x op y` over two vectors of `t` with the given lanes. */
function oneOp(
  t: VectorT,
  xs: readonly (bigint | number)[],
  ys: readonly (bigint | number)[],
  make: (b: IRBuilder, x: Expr, y: Expr) => Expr,
): Program {
  const b = new IRBuilder();
  const x = b.global('x', t, b.list(xs.map((v) => b.lit(v, t.of))));
  const y = b.global('y', t, b.list(ys.map((v) => b.lit(v, t.of))));
  const value = make(b, b.v(x), b.v(y));
  const r = b.global('r', value.type, undefined);
  const hashes = Array.from({ length: (value.type as VectorT).lanes }, (_, i) => b.hash(b.idx(b.v(r), b.lit(i))));
  const main = b.func('main', C.int, [], b.block([b.stmt(b.assign(b.v(r), value)), ...hashes]), undefined, false);
  return b.program({ globals: [x, y, r], funcs: [main], main });
}

describe('unions punning a vector with an array of its lanes', () => {
  it('a store through one member is read through the other, as gcc and clang lay the lanes out', async () => {
    const programs = [false, true].map((arrayFirst) => {
      const b = new IRBuilder();
      const t = vectorOf(C.int16, 8);
      const members = [
        { name: 'v', type: t },
        { name: 'a', type: arrayOf(C.int16, 8) },
      ];
      if (arrayFirst) members.reverse();
      const u = b.union('U', members);
      const x = b.global('x', t, b.list([3, -7, 11, 300, -32768, 32767, 5, 9].map((v) => b.lit(v, C.int16))));
      const g = b.global('g', u, undefined);
      const r = b.global('r', t, undefined);
      const stmts: Stmt[] = [
        b.stmt(b.assign(b.fld(b.v(g), 'v'), vecBinary(b, '^', b.v(x), b.lit(0x55, C.int16)))),
        b.stmt(b.assign(b.idx(b.fld(b.v(g), 'a'), b.lit(2)), b.lit(-2, C.int16))),
        b.stmt(b.assign(b.v(r), vecBinary(b, '&', b.fld(b.v(g), 'v'), b.lit(0x7ff, C.int16)))),
        b.stmt(b.assign(b.idx(b.v(r), b.lit(7)), b.idx(b.fld(b.v(g), 'a'), b.lit(4)))),
      ];
      const hashes = Array.from({ length: 8 }, (_, i) => [
        b.hash(b.idx(b.v(r), b.lit(i))),
        b.hash(b.idx(b.fld(b.v(g), 'a'), b.lit(i))),
      ]).flat();
      const main = b.func('main', C.int, [], b.block([...stmts, ...hashes]), undefined, false);
      return b.program({ records: [u], globals: [x, g, r], funcs: [main], main });
    });
    const expected = programs.map((p) => {
      const r = interpret(p);
      if (!r.ok) throw new Error(`UB: ${r.ub.kind}`);
      return r.output.trimEnd();
    });
    expect(expected[0]).toBe(expected[1]);
    for (const cc of ['gcc-12', 'clang-16'])
      for (const o of ['-O0', '-O2']) expect(await run(cc, [o], programs), `${cc} ${o}`).toEqual(expected);
  }, 120_000);
});

describe('lane-wise undefined behaviour', () => {
  const i8 = vectorOf(C.int8, 4);
  const i32 = vectorOf(C.int32, 4);
  // biome-ignore format: data table
  const cases: [string, VectorT, bigint[], bigint[], (b: IRBuilder, x: Expr, y: Expr) => Expr][] = [
    ['signed-overflow', i8, [1n, 127n, 0n, 0n], [1n, 1n, 0n, 0n], (b, x, y) => vecBinary(b, '+', x, y)],
    ['signed-overflow', i8, [0n, 0n, -128n, 0n], [0n, 0n, 0n, 0n], (b, x) => vecUnary(b, '-', x)],
    ['shift-count-too-large', i8, [1n, 1n, 1n, 1n], [0n, 8n, 0n, 0n], (b, x, y) => vecBinary(b, '>>', x, y)],
    ['shift-count-negative', i32, [1n, 1n, 1n, 1n], [0n, 0n, -1n, 0n], (b, x, y) => vecBinary(b, '<<', x, y)],
    ['division-by-zero', i32, [1n, 1n, 1n, 1n], [1n, 0n, 1n, 1n], (b, x, y) => vecBinary(b, '/', x, y)],
    ['division-overflow', i32, [-2147483648n, 1n, 1n, 1n], [-1n, 1n, 1n, 1n], (b, x, y) => vecBinary(b, '/', x, y)],
    ['remainder-overflow', i8, [-128n, 1n, 1n, 1n], [-1n, 1n, 1n, 1n], (b, x, y) => vecBinary(b, '%', x, y)],
    ['out-of-bounds', i32, [1n, 1n, 1n, 1n], [4n, 1n, 1n, 1n], (b, x, y) => vecBinary(b, '+', x, vecLanes(b, i32, [0, 1, 2, 3].map(() => b.idx(y, b.lit(4)))))],
  ];

  it('is reported at the operator, and repair leaves a clean program that compilers agree with', async () => {
    const repairedPrograms: Program[] = [];
    const expected: string[] = [];
    for (const [kind, t, xs, ys, make] of cases) {
      const p = oneOp(t, xs, ys, make);
      const r = interpret(p);
      expect(r.ok, kind).toBe(false);
      if (r.ok) continue;
      expect(r.ub.kind).toBe(kind);
      const fixed = repairProgram(1, parsePolicy({}), p);
      expect(fixed.ok, kind).toBe(true);
      if (!fixed.ok) continue;
      repairedPrograms.push(fixed.program);
      expected.push(fixed.expected);
    }
    // 8-bit lanes wrap at 8 bits: 127 + 1 is not 128 in a char lane, whatever int arithmetic says.
    const wrap = interpret(
      oneOp(vectorOf(C.uint8, 4), [255n, 1n, 2n, 3n], [1n, 255n, 0n, 0n], (b, x, y) => vecBinary(b, '+', x, y)),
    );
    expect(wrap.ok).toBe(true);
    for (const cc of ['gcc-12', 'clang-16']) expect(await run(cc, ['-O2'], repairedPrograms), cc).toEqual(expected);
  }, 120_000);
});

describe('floating lanes (features.floats): exact values, as floating scalars hold them', () => {
  const f4 = vectorOf(C.float, 4);
  const d2 = vectorOf(C.double, 2);
  const d4 = vectorOf(C.double, 4);
  /** Every operation floating lanes take, on values that keep Kiln's exactness rule. */
  function floatProgram(): Program {
    const b = new IRBuilder();
    const globals: VarDecl[] = [];
    const stmts: Stmt[] = [];
    const global = (t: VectorT, values?: number[]): VarDecl => {
      const g = b.global(`g_${globals.length + 1}`, t, values && b.list(values.map((v) => b.lit(v, t.of))));
      globals.push(g);
      return g;
    };
    const store = (e: Expr): void => {
      stmts.push(b.stmt(b.assign(b.v(global(e.type as VectorT)), e)));
    };
    const x = global(f4, [3, -7, 4096, 0]);
    const y = global(f4, [-1, 7, 4096, 5]);
    const dx = global(d2, [9007199254740992, -12]);
    const dy = global(d2, [-1, 4]);
    const i16 = global(vectorOf(C.int16, 4), [-32768, 32767, 0, -1]);
    const i32 = global(vectorOf(C.int32, 4), [-2147483648, 2147483647, 5, -5]);
    for (const op of ['+', '-', '*'] as const) store(vecBinary(b, op, b.v(x), b.v(y)));
    store(
      vecBinary(
        b,
        '/',
        b.v(x),
        vecLanes(
          b,
          f4,
          [1, -7, 4096, 5].map((v) => b.lit(v, C.float)),
        ),
      ),
    );
    store(vecBinary(b, '+', b.v(dx), b.lit(-3, C.double)));
    store(vecBinary(b, '*', b.v(dy), b.v(dy)));
    store(vecUnary(b, '-', b.v(x)));
    for (const op of ['<', '>', '<=', '>=', '==', '!='] as const) {
      store(vecBinary(b, op, b.v(x), b.v(y)));
      store(vecBinary(b, op, b.v(dx), b.v(dy)));
    }
    // The bytes of floating lanes read as integers (-0.0 and 0.0 differ here, and only here).
    store(vecCast(b, vectorOf(C.uint32, 4), vecUnary(b, '-', b.v(x))));
    store(vecCast(b, vectorOf(C.int16, 8), b.v(dx)));
    store(vecConvert(b, f4, b.v(i16)));
    store(vecConvert(b, vectorOf(C.double, 4), b.v(i32)));
    store(vecConvert(b, d4, b.v(x)));
    store(vecConvert(b, vectorOf(C.int32, 4), b.v(x)));
    store(vecConvert(b, vectorOf(C.int64, 2), b.v(dx)));
    store(vecShuffleVector(b, b.v(x), b.v(y), [7, 0, 2, 5]));
    stmts.push(b.stmt(b.assign(b.idx(b.v(x), b.lit(3)), b.bin('+', b.idx(b.v(y), b.lit(1)), b.lit(1, C.float)))));
    const hashes = globals.flatMap((g) => {
      const t = g.type as VectorT;
      return Array.from({ length: t.lanes }, (_, i) => b.hash(b.idx(b.v(g), b.lit(i))));
    });
    const main = b.func('main', C.int, [], b.block([...stmts, ...hashes]), undefined, false);
    return b.program({ globals, funcs: [main], main });
  }

  it('computes every operation as gcc and clang do', async () => {
    const p = floatProgram();
    const r = interpret(p);
    if (!r.ok) throw new Error(`UB: ${r.ub.kind}`);
    const expected = [r.output.trimEnd()];
    for (const cc of ['gcc-12', 'clang-16'])
      for (const o of ['-O0', '-O2']) expect(await run(cc, [o], [p]), `${cc} ${o}`).toEqual(expected);
  }, 120_000);

  it('reports an inexact lane at its operator, and repair keeps an operand', () => {
    const cases: [string, VectorT, number[], number[], (b: IRBuilder, x: Expr, y: Expr) => Expr][] = [
      ['float-inexact', f4, [4096, 1, 1, 1], [4097, 1, 1, 1], (b, x, y) => vecBinary(b, '*', x, y)],
      ['float-inexact', f4, [1, 7, 1, 1], [1, 2, 1, 1], (b, x, y) => vecBinary(b, '/', x, y)],
      ['division-by-zero', d2, [1, 7], [1, 0], (b, x, y) => vecBinary(b, '/', x, y)],
      [
        'float-inexact',
        f4,
        [1, 1, 1, 1],
        [1, 1, 1, 1],
        (b, x) => vecConvert(b, f4, vecCast(b, vectorOf(C.int32, 4), x)),
      ],
    ];
    for (const [kind, t, xs, ys, make] of cases) {
      const p = oneOp(t, xs, ys, make);
      const run1 = interpret(p);
      expect(run1.ok, kind).toBe(false);
      if (run1.ok) continue;
      expect(run1.ub.kind, kind).toBe(kind);
      const fixed = repairProgram(1, parsePolicy({ features: { floats: true } }), p);
      expect(fixed.ok, kind).toBe(true);
    }
  });

  it('refuses what floating lanes do not have', () => {
    const b = new IRBuilder();
    const x = b.global('x', f4, undefined);
    expect(() => vecBinary(b, '%', b.v(x), b.v(x))).toThrow(/% on float lanes/);
    expect(() => vecBinary(b, '<<', b.v(x), b.lit(1, C.float))).toThrow(/<< on float lanes/);
    expect(() => vecUnary(b, '~', b.v(x))).toThrow(/~ on float lanes/);
    expect(() => vecCast(b, f4, b.v(b.global('i', vectorOf(C.int32, 4), undefined)))).toThrow(/reinterprets bits/);
    expect(maskType(d2)).toEqual(vectorOf(C.int64, 2));
  });
});

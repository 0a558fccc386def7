// A small random program generator for testing the interpreter against real compilers
// (independent of src/gen, so the interpreter is not only tested on the generator's own habits).
import { C, intMax, intMin, type IntType } from '../../src/c/types.js';
import { IRBuilder } from '../../src/ir/build.js';
import type { Expr, FuncDecl, Program, Stmt, VarDecl } from '../../src/ir/nodes.js';
import { arrayOf, type ArrayT, type Type } from '../../src/ir/types.js';
import { Rng } from '../../src/random/rng.js';

const TYPES: readonly IntType[] = [
  C.int8,
  C.uint8,
  C.int16,
  C.uint16,
  C.int32,
  C.uint32,
  C.int64,
  C.uint64,
  C.char,
  C.short,
  C.long,
  C.llong,
  C.ullong,
  C.uint,
];

const BIN_OPS = [
  '+',
  '-',
  '*',
  '/',
  '%',
  '<<',
  '>>',
  '&',
  '|',
  '^',
  '<',
  '>',
  '<=',
  '>=',
  '==',
  '!=',
  '&&',
  '||',
] as const;

function constant(r: Rng, t: IntType): bigint {
  const v = rawConstant(r, t);
  return v < intMin(t) ? intMin(t) : v > intMax(t) ? intMax(t) : v;
}

function rawConstant(r: Rng, t: IntType): bigint {
  switch (r.int(0, 5)) {
    case 0:
      return r.pick([intMin(t), intMax(t), intMax(t) - 1n, t.signed ? -1n : 1n, 0n]);
    case 1:
    case 2:
      return r.bigint(t.signed ? -10n : 0n, 10n);
    case 3:
      return r.bigint(t.signed ? -300n : 0n, 300n);
    default:
      return r.bigint(intMin(t), intMax(t));
  }
}

interface Ctx {
  readonly b: IRBuilder;
  readonly r: Rng;
  readonly scalars: VarDecl[];
  readonly arrays: VarDecl[];
  readonly helpers: FuncDecl[];
  /** Loop index variables in scope with the length they range over. */
  readonly loopVars: { v: VarDecl; len: number }[];
}

function leaf(cx: Ctx, depth: number): Expr {
  const { b, r } = cx;
  const k = r.int(0, 9);
  if (k < 3 && cx.scalars.length) return b.v(r.pick(cx.scalars));
  if (k < 6 && cx.arrays.length) {
    const a = r.pick(cx.arrays);
    return element(cx, a, depth);
  }
  const t = r.pick(TYPES);
  return b.lit(constant(r, t), t);
}

function element(cx: Ctx, a: VarDecl, depth: number): Expr {
  const { b, r } = cx;
  let e: Expr = b.v(a);
  while (e.type.kind === 'array') {
    const len = (e.type as ArrayT).length;
    const lv = cx.loopVars.find((x) => x.len === len);
    const index =
      lv && r.chance(0.6)
        ? b.v(lv.v)
        : depth > 0 && r.chance(0.2)
          ? b.cast(C.uint32, b.bin('%', b.cast(C.uint32, expr(cx, depth - 1)), b.lit(len, C.uint32)))
          : b.lit(r.int(0, len - 1));
    e = b.idx(e, index);
  }
  return e;
}

function expr(cx: Ctx, depth: number): Expr {
  const { b, r } = cx;
  if (depth <= 0 || r.chance(0.25)) return leaf(cx, depth);
  switch (r.int(0, 9)) {
    case 0:
      return b.un(r.pick(['-', '+', '~', '!'] as const), expr(cx, depth - 1));
    case 1:
      return b.cast(r.pick(TYPES), expr(cx, depth - 1));
    case 2:
      return b.cond(expr(cx, depth - 1), expr(cx, depth - 1), expr(cx, depth - 1));
    case 3:
      if (cx.helpers.length) {
        const h = r.pick(cx.helpers);
        return b.call(
          h,
          h.params.map(() => expr(cx, depth - 1)),
        );
      }
      return leaf(cx, depth);
    default: {
      const op = r.pick(BIN_OPS);
      // Keep shift counts and divisors mostly small constants, or most programs would hit UB.
      if ((op === '<<' || op === '>>') && r.chance(0.7)) return b.bin(op, expr(cx, depth - 1), b.lit(r.int(0, 7)));
      if ((op === '/' || op === '%') && r.chance(0.6))
        return b.bin(op, expr(cx, depth - 1), b.lit(r.pick([1, 2, 3, 7, -3, 100])));
      return b.bin(op, expr(cx, depth - 1), expr(cx, depth - 1));
    }
  }
}

function lvalue(cx: Ctx): Expr {
  const { b, r } = cx;
  if (cx.arrays.length && r.chance(0.5)) return element(cx, r.pick(cx.arrays), 1);
  return b.v(r.pick(cx.scalars));
}

function statement(cx: Ctx, depth: number): Stmt {
  const { b, r } = cx;
  const k = r.int(0, 9);
  if (k < 5 || depth <= 0) {
    const ops = ['=', '=', '=', '+=', '-=', '*=', '^=', '|=', '&=', '>>=', '<<=', '/=', '%='] as const;
    return b.stmt(b.assign(lvalue(cx), expr(cx, 3), r.pick(ops)));
  }
  if (k < 7) {
    const then = b.block([statement(cx, depth - 1), statement(cx, depth - 1)]);
    return b.if(expr(cx, 2), then, r.chance(0.5) ? b.block([statement(cx, depth - 1)]) : undefined);
  }
  if (k < 8) return b.stmt(b.incdec(r.pick(['++', '--'] as const), lvalue(cx), r.chance(0.5)));
  // A loop over an array dimension.
  const len = cx.arrays.length ? (r.pick(cx.arrays).type as ArrayT).length : r.int(2, 5);
  const iv = b.local(`i_${b.nextId}`, r.pick([C.int32, C.uint8, C.int64]));
  cx.loopVars.push({ v: iv, len });
  const body = b.block([statement(cx, depth - 1), statement(cx, depth - 1)]);
  cx.loopVars.pop();
  const loop = b.for(
    b.assign(b.v(iv), b.lit(0)),
    b.bin('<', b.v(iv), b.lit(len)),
    b.incdec('++', b.v(iv), false),
    body,
  );
  return b.block([loop], [iv]);
}

/** A random program (one seed, one program); may contain UB, which the caller filters out. */
export function randomProgram(seed: number): Program {
  const r = Rng.seeded(seed);
  const b = new IRBuilder();
  const globals: VarDecl[] = [];
  const scalars: VarDecl[] = [];
  const arrays: VarDecl[] = [];
  const nGlobals = r.int(3, 8);
  for (let i = 0; i < nGlobals; i++) {
    const t = r.pick(TYPES);
    if (r.chance(0.35)) {
      const dims = r.chance(0.7) ? [r.int(2, 6)] : [r.int(2, 3), r.int(2, 4)];
      const at = dims.reduceRight<ArrayT | IntType>((inner, n) => arrayOf(inner, n), t) as ArrayT;
      const init = (ty: ArrayT | IntType): ReturnType<IRBuilder['list']> | Expr =>
        ty.kind === 'array'
          ? b.list(Array.from({ length: ty.length }, () => init(ty.of as ArrayT | IntType)))
          : b.lit(constant(r, ty), ty);
      const g = b.global(`g_${i}`, at, init(at));
      globals.push(g);
      arrays.push(g);
    } else {
      const g = b.global(`g_${i}`, t, b.lit(constant(r, t), t));
      globals.push(g);
      scalars.push(g);
    }
  }
  if (scalars.length === 0) {
    const g = b.global('g_s', C.int32, b.lit(1));
    globals.push(g);
    scalars.push(g);
  }
  const cx: Ctx = { b, r, scalars, arrays, helpers: [], loopVars: [] };
  const nHelpers = r.int(0, 2);
  for (let h = 0; h < nHelpers; h++) {
    const params = Array.from({ length: r.int(1, 3) }, (_, i) => b.param(`p_${h}_${i}`, r.pick(TYPES)));
    const inner: Ctx = { ...cx, scalars: [...scalars, ...params], helpers: [...cx.helpers] };
    const body = b.block([
      r.chance(0.3) ? b.stmt(b.assign(b.v(r.pick(scalars)), expr(inner, 2))) : b.stmt(b.lit(0)),
      b.ret(expr(inner, 3)),
    ]);
    cx.helpers.push(b.func(`f_${h}`, r.pick(TYPES), params, body));
  }
  const stmts: Stmt[] = Array.from({ length: r.int(2, 8) }, () => statement(cx, 2));
  const func1 = b.func('func_1', C.int32, [], b.block([...stmts, b.ret(b.lit(0))]));
  const mainStmts: Stmt[] = [b.stmt(b.call(func1, []))];
  const mainLocals: VarDecl[] = [];
  for (const g of globals) {
    if (g.type.kind !== 'array') {
      mainStmts.push(b.hash(b.v(g)));
      continue;
    }
    // Hash every element with nested loops, as Kiln's generator does.
    const idxs: VarDecl[] = [];
    let t: Type = g.type;
    const lens: number[] = [];
    while (t.kind === 'array') {
      lens.push(t.length);
      idxs.push(b.local(`k_${g.id}_${idxs.length}`, C.int32));
      t = t.of;
    }
    mainLocals.push(...idxs);
    let access: Expr = b.v(g);
    for (const iv of idxs) access = b.idx(access, b.v(iv));
    let body: Stmt = b.hash(access);
    for (let d = idxs.length - 1; d >= 0; d--) {
      const iv = idxs[d]!;
      body = b.for(
        b.assign(b.v(iv), b.lit(0)),
        b.bin('<', b.v(iv), b.lit(lens[d]!)),
        b.incdec('++', b.v(iv), false),
        b.block([body]),
      );
    }
    mainStmts.push(body);
  }
  const main = b.func('main', C.int, [], b.block(mainStmts, mainLocals));
  return b.program({ globals, funcs: [...cx.helpers, func1, main], main, meta: { seed: String(seed) } });
}

import type { BinaryOp } from '../c/ops.js';
import type { IntType } from '../c/types.js';
import type { AssignOp, Block, Expr, Stmt, VarDecl } from '../ir/nodes.js';
import { unqualified, type Type, type VectorT } from '../ir/types.js';
import { isPunUnion } from '../ir/vector.js';
import { transform } from '../ir/visit.js';
import { pickLvalue } from './access.js';
import type { GenContext } from './context.js';
import { constant, shiftLimit } from './types.js';

/**
 * Code for the vectorisers: element-wise statements over arrays, with no calls, no side effects
 * in the operands and no division.
 * - The vector-loop policy's loop bodies (csmith mode): statements over arrays indexed by the
 *   loop's induction variable, `a[i] = (b[i] + c[i][2]) ^ (x * 5);`, and reductions,
 *   `s += b[i];`. Csmith's array statement is meant for the vectorisers, but its bodies are
 *   ordinary Csmith blocks (calls, pointer stores, nested control flow) that neither the loop nor
 *   the SLP vectoriser can take; these are bodies they can.
 * - The SLP policy's statement groups (yarpgen mode): the same expressions, one copy per element
 *   of a run of consecutive elements, in straight-line code.
 * Overflow and shift repairs still apply: the interpreter runs this code like any other.
 */

/**
 * An integer element reached from a variable by indexing every dimension: of an array, of a
 * member of a union punning a vector with an array (`u.f1[i]`), or a lane of a vector (`v[i]`).
 */
interface ArrayRef {
  readonly v: VarDecl;
  /** The union member indexed, when `v` is a pun union. */
  readonly member?: number;
  /** Lengths of the dimensions (the first is indexed by the induction variable). */
  readonly dims: readonly number[];
  readonly elem: IntType;
}

/** Arrays visible here whose first dimension has at least `n` elements and whose elements are plain integers. */
function arraysOf(g: GenContext, n: number, writable: boolean): ArrayRef[] {
  const out: ArrayRef[] = [];
  const vars = [...g.globals, ...g.fn.blocks.flatMap((b) => b.locals)];
  for (const v of vars) {
    if (v.type.kind !== 'array' || !g.typeAllowed(v.type) || (writable && g.readOnly.has(v.id))) continue;
    const dims: number[] = [];
    let t: Type = v.type;
    let qualified = false;
    while (t.kind === 'array') {
      qualified ||= qualifiedFor(t, writable);
      dims.push(t.length);
      t = t.of;
    }
    qualified ||= qualifiedFor(t, writable);
    if (t.kind !== 'int' || qualified || dims[0]! < n) continue;
    out.push({ v, dims, elem: unqualified(t) as IntType });
  }
  // Lanes, for loops that mix scalar and vector code over the same bytes: the lanes of a vector
  // variable, and both members of a union punning a vector with an array (the loop stores the
  // lanes one by one; whole-vector statements elsewhere read and write the same objects).
  for (const v of vars) {
    if (!g.typeAllowed(v.type) || (writable && g.readOnly.has(v.id))) continue;
    if (v.type.kind === 'vector') out.push(...laneRef(v, v.type, n, writable));
    else if (v.type.kind === 'union' && isPunUnion(v.type)) {
      const u = v.type;
      u.fields.forEach((f, member) => {
        const ft = f.type;
        if (ft.kind === 'vector') out.push(...laneRef(v, ft, n, writable, member, u));
        else if (ft.kind === 'array' && ft.of.kind === 'int' && ft.length >= n && !qualifiedFor(u, writable))
          out.push({ v, member, dims: [ft.length], elem: unqualified(ft.of) });
      });
    }
  }
  return out;
}

/** The lanes of a vector `t` (a variable, or member `member` of the pun union variable `v`) as one dimension. */
function laneRef(v: VarDecl, t: VectorT, n: number, writable: boolean, member?: number, outer?: Type): ArrayRef[] {
  // Element-wise bodies are integer code: floating lanes are left to the floating expressions.
  if (t.of.kind !== 'int' || t.lanes < n || qualifiedFor(t, writable) || (outer && qualifiedFor(outer, writable)))
    return [];
  return [{ v, ...(member !== undefined ? { member } : {}), dims: [t.lanes], elem: unqualified(t.of) }];
}

function qualifiedFor(t: Type, writable: boolean): boolean {
  return !!t.volatile || (writable && !!t.const);
}

/** `a[i][c1][c2]`: the first dimension indexed by `i`, the others by constants in range. */
function element(g: GenContext, a: ArrayRef, i: VarDecl): Expr {
  let e: Expr = a.member === undefined ? g.b.v(a.v) : g.b.fld(g.b.v(a.v), a.member);
  a.dims.forEach((len, k) => {
    e = g.b.idx(e, k === 0 ? g.b.v(i) : g.b.lit(g.rng.int(0, len - 1)));
  });
  return e;
}

/** The operators of element-wise bodies: what vector units do (no division, which they mostly lack). */
function elementOp(g: GenContext): BinaryOp {
  const muls = g.policy.features.muls;
  return g.rng.weighted<BinaryOp>([
    ['+', 5],
    ['-', 4],
    ['*', muls ? 3 : 0],
    ['&', 2],
    ['|', 2],
    ['^', 2],
    ['<<', 1],
    ['>>', 1],
  ]);
}

/**
 * An element-wise expression with up to `ops` operators: its leaves are elements of the arrays
 * (mostly), loop-invariant scalars (variables not written in the body) and constants.
 */
function elementExpr(
  g: GenContext,
  sources: readonly ArrayRef[],
  scalars: readonly Expr[],
  i: VarDecl,
  t: IntType,
  ops: number,
): Expr {
  const { rng, b } = g;
  if (ops <= 0 || rng.chance(0.25)) {
    const r = rng.float();
    if (r < 0.65 && sources.length) return element(g, rng.pick(sources), i);
    if (r < 0.85 && scalars.length) return g.b.copy(rng.pick(scalars));
    return constant(g, t);
  }
  const op = elementOp(g);
  const left = rng.int(0, ops - 1);
  const l = elementExpr(g, sources, scalars, i, t, left);
  if (op === '<<' || op === '>>') return b.bin(op, l, b.lit(rng.int(0, Math.min(8, shiftLimit(l)) - 1)));
  return b.bin(op, l, elementExpr(g, sources, scalars, i, t, ops - 1 - left));
}

const COMPOUND: readonly AssignOp[] = ['+=', '-=', '^=', '|=', '&='];

/**
 * A vector-loop body for `for (i = 0; i < n; i++)`, or undefined when no writable array of at
 * least `n` elements is visible. One to three statements; each stores an element of a target
 * array (or, one time in five, accumulates into a scalar: a reduction).
 */
export function vectorBody(g: GenContext, i: VarDecl, n: number): Block | undefined {
  const { rng, b } = g;
  const targets = arraysOf(g, n, true);
  if (!targets.length) return undefined;
  const sources = arraysOf(g, n, false);
  // Scalars the body never stores (stores go to array elements; a reduction's accumulator is
  // left out of the operands): invariant in the loop, but for its own variable, if drawn.
  const scalars = invariantScalars(g);
  const stmts: Stmt[] = [];
  const budget = g.statementBudget;
  for (let k = rng.int(1, 3); k > 0 && g.statements < budget; k--) {
    g.statements++;
    const ops = rng.int(1, Math.max(1, g.policy.limits.maxExprComplexity >> 1));
    if (rng.chance(0.2)) {
      const acc = pickLvalue(g, { anyInt: true, writable: true, noVolatile: true });
      if (
        acc &&
        acc.type.kind === 'int' &&
        acc.kind === 'var' &&
        acc.decl !== i.id &&
        !scalars.some((s) => s.kind === 'var' && s.decl === acc.decl)
      ) {
        const t = unqualified(acc.type) as IntType;
        stmts.push(
          b.stmt(b.assign(acc, elementExpr(g, sources, scalars, i, t, ops), rng.pick(['+=', '^=', '|='] as const))),
        );
        continue;
      }
    }
    const target = rng.pick(targets);
    const op: AssignOp = g.policy.features.compoundAssign && rng.chance(0.3) ? rng.pick(COMPOUND) : '=';
    stmts.push(b.stmt(b.assign(element(g, target, i), elementExpr(g, sources, scalars, i, target.elem, ops), op)));
  }
  return b.block(stmts, []);
}

/** Scalars for element-wise code, the same in every element: zero to two plain integer variables visible here. */
function invariantScalars(g: GenContext): Expr[] {
  const scalars: Expr[] = [];
  for (let k = g.rng.int(0, 2); k > 0; k--) {
    const s = pickLvalue(g, { anyInt: true, noVolatile: true });
    if (s && s.kind === 'var') scalars.push(s);
  }
  return scalars;
}

/**
 * The SLP policy's statement groups (straight-line code, the yarpgen mode): two to eight
 * isomorphic assignments to consecutive elements of `target`, lane `j` reading element `j` of
 * the source arrays, `o[2] = a[2] + (b[2] ^ x); o[3] = a[3] + (b[3] ^ x); …`, the shape the SLP
 * vectorisers pack into vector operations. `sources` are the arrays that may be read.
 */
export function slpGroup(g: GenContext, target: VarDecl, sources: readonly VarDecl[]): Stmt[] {
  const { rng, b } = g;
  if (target.type.kind !== 'array' || target.type.of.kind !== 'int') return [];
  const len = target.type.length;
  const lanes = rng.int(2, Math.min(len, 8));
  const start = rng.int(0, len - lanes);
  const refs: ArrayRef[] = [];
  for (const v of sources) {
    if (v.type.kind === 'array' && v.type.of.kind === 'int' && !v.type.of.volatile && v.type.length >= start + lanes) {
      refs.push({ v, dims: [v.type.length], elem: unqualified(v.type.of) as IntType });
    }
  }
  // One expression is drawn with a placeholder for the lane's index; each lane is a copy of it
  // with the placeholder replaced by that lane's element number.
  const lane = b.local('lane', g.types.int, undefined);
  const elem = unqualified(target.type.of) as IntType;
  const shape = elementExpr(
    g,
    refs,
    invariantScalars(g),
    lane,
    elem,
    rng.int(1, Math.max(1, g.policy.limits.maxExprComplexity >> 1)),
  );
  return Array.from({ length: lanes }, (_, j) => {
    const value = transform(b.copy(shape), (n) =>
      n.kind === 'var' && n.decl === lane.id ? b.lit(start + j) : n,
    ) as Expr;
    return b.stmt(b.assign(b.idx(b.v(target), b.lit(start + j)), value));
  });
}

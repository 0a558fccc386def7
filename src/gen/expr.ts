import type { BinaryOp } from '../c/ops.js';
import { declaredType, type FloatType, type IntType } from '../c/types.js';
import { pointerConvertible } from '../ir/build.js';
import type { AssignOp, Expr } from '../ir/nodes.js';
import { walk } from '../ir/visit.js';
import { isRecord, sameType, unqualified, type PointerT, type Type } from '../ir/types.js';
import { addressOf, pickLvalue, throughUnion } from './access.js';
import type { GenContext, OperatorContext } from './context.js';
import { callFunction } from './func.js';
import { genVector } from './gnu-vector.js';
import type { Policy } from './policy.js';
import { constant, shiftLimit } from './types.js';

/**
 * Expressions, generated top-down for a wanted type. Kinds follow Csmith's Table 3.2: a call
 * (70) — an operator invocation, or with `choices.userCall` a user function, falling back to a
 * binary (95%) or unary (5%) operation when no function can be called or created; a variable
 * (20); a constant (10); a comma expression (10); an embedded assignment (10).
 * Kiln adds `?:` and casts, which Csmith does not generate, at a small share of the fallback.
 */

type Weights = Policy['expressions'];

/** Binary and unary operators of each operator context (YARPGen §3.3, digest A4). */
const CONTEXTS: Readonly<
  Record<OperatorContext, { binary: readonly BinaryOp[]; unary: readonly ('-' | '~' | '!')[] }>
> = {
  additive: { binary: ['+', '-'], unary: ['-'] },
  bitwise: { binary: ['&', '|', '^'], unary: ['~'] },
  logical: { binary: ['&&', '||'], unary: ['!'] },
  multiplicative: { binary: ['*', '/'], unary: [] },
  'bitwise-shift': { binary: ['&', '|', '^', '<<', '>>'], unary: ['~'] },
  'additive-multiplicative': { binary: ['+', '-', '*', '/'], unary: ['-'] },
};
const CONTEXT_NAMES = Object.keys(CONTEXTS) as OperatorContext[];
const CSE_BUFFER = 8;

const COMPOUND_OPS: readonly AssignOp[] = ['+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^='];

/**
 * An expression whose value converts to type `t`. For pointers, `scopeLimit` bounds what the
 * value may point at (see `Want.scopeLimit`), so a stored pointer never outlives its target.
 */
export function genExpr(g: GenContext, t: Type, weights: Weights = g.policy.expressions, scopeLimit?: number): Expr {
  const u = unqualified(t);
  if (u.kind === 'int') return genInt(g, u, weights);
  if (u.kind === 'ptr') return genPointer(g, u, scopeLimit);
  if (isRecord(u)) return genRecordValue(g, u);
  if (u.kind === 'float') return genFloat(g, u);
  if (u.kind === 'vector') return genVector(g, u);
  throw new Error(`cannot generate a value of type ${u.kind}`);
}

/** An integer expression for a context of type `t` (its own type may be any integer type). */
export function genInt(g: GenContext, context: IntType, weights: Weights = g.policy.expressions): Expr {
  const { rng, policy } = g;
  // A bit-field's type (an `int` narrower than int) is not a type a value can be declared with.
  const t = declarable(g, context);
  const f = policy.features;
  if (g.complexity <= 0) return leaf(g, t);
  const pol = policy.policies;
  // YARPGen's policies act on random subtrees: enter an operator context or a constant policy here.
  if (g.opContext === undefined && rng.chance(pol.contexts))
    return withSubtree(g, 'opContext', rng.pick(CONTEXT_NAMES), () => genInt(g, t, weights));
  if (g.constMode === undefined && rng.chance(pol.allConstant + pol.halfConstant)) {
    const mode = rng.chance(pol.allConstant / (pol.allConstant + pol.halfConstant)) ? 'all' : 'half';
    return withSubtree(g, 'constMode', mode, () => genInt(g, t, weights));
  }
  const kind = rng.weighted<keyof Weights>([
    ['call', weights.call],
    ['variable', weights.variable],
    ['constant', weights.constant],
    ['comma', f.comma && !g.pure ? weights.comma : 0],
    ['assign', (f.embeddedAssign || f.incDec) && !g.pure ? weights.assign : 0],
  ]);
  switch (kind) {
    case 'call': {
      // Csmith's call production invokes an operator (its safe-math functions) most of the time.
      const user = !g.pure && rng.chance(policy.choices.userCall) ? callFunction(g, t) : undefined;
      if (user) return user;
      // The CSE buffer and the loop invariants stand in for new operations only, never for user
      // calls, and a copy becomes an operand of a new operation rather than the whole subtree: ending
      // the subtree there left programs with fewer user calls (which the subtree's own draws would
      // have made), and so fewer inlining decisions, per line.
      // A copy spends the budget its operators would have, so only one that fits is taken:
      // expressions keep the size `maxExprComplexity` gives them. (Free copies made expressions
      // a third larger, so the programs longer, with fewer loops and calls per line.)
      const copy = invariantCopy(g) ?? reuseSubexpression(g, 'operation');
      if (copy) {
        g.complexity -= operations(copy);
        return withOperand(g, t, copy);
      }
      const e = operator(g, t);
      rememberSubexpression(g, e, 'operation');
      return e;
    }
    case 'variable': {
      if (g.constMode === 'all') return constant(g, t);
      const reused = reuseSubexpression(g, 'load');
      if (reused) return reused;
      const v = readInt(g, t);
      // Loads (`g_3`, `a[1][i]`, `s.f`, `*p`) are remembered too: reusing one gives GVN a
      // redundant load to eliminate, and LICM an invariant one to hoist when it is reused in a loop.
      // (Locals and parameters are registers after SSA: nothing to eliminate. The cheap policy test
      // comes first, so without the CSE policy no read pays for the globals' scan.)
      if (v && g.policy.policies.cse > 0 && (v.kind !== 'var' || g.globals.some((d) => d.id === v.decl)))
        rememberSubexpression(g, v, 'load');
      return v ?? constant(g, t);
    }
    case 'constant':
      return constant(g, t);
    case 'comma': {
      g.complexity--;
      const left = genInt(g, g.intType());
      return g.b.comma(left, genInt(g, t));
    }
    case 'assign':
      return embeddedAssign(g, t) ?? leaf(g, t);
  }
}

/** The declared type for a context type: `int`/`unsigned int` for a bit-field's width-restricted type. */
export function declarable(g: GenContext, t: IntType): IntType {
  return declaredType(t, g.types);
}

/** Generates a subtree with one of the subtree policies set, restoring it afterwards. */
function withSubtree<K extends 'opContext' | 'constMode'>(
  g: GenContext,
  key: K,
  value: GenContext[K],
  f: () => Expr,
): Expr {
  const saved = g[key];
  g[key] = value;
  try {
    return f();
  } finally {
    g[key] = saved;
  }
}

/**
 * Generates a loop body (`body`) under the loop-invariant policy: first draws one or two
 * side-effect-free expressions from what is visible at loop entry (never reading the loop's own
 * induction variable, `induction`), then generates the body with a chance per new operation that
 * it takes a copy of one of them as an operand (see `invariantCopy`, `withOperand`). A copy whose
 * variables the body does not write is invariant in the loop: work LICM hoists, GVN merges with
 * the other copies, and, in a condition, a reason to unswitch the loop. The body may still write
 * them (Csmith's loops write a few variables each): making them read-only in the loop was tried,
 * and bench:policy measured fewer remarks of every kind, LICM's included, since the loops then
 * lost most of their stores.
 */
export function withLoopInvariants<T>(g: GenContext, induction: number | undefined, body: () => T): T {
  if (g.policy.policies.invariants <= 0) return body();
  const saved = g.complexity;
  const made: Expr[] = [];
  g.pure = true;
  try {
    for (let k = g.rng.int(1, 2); k > 0; k--) {
      g.complexity = g.rng.int(2, Math.max(2, g.policy.limits.maxExprComplexity >> 1));
      const e = genInt(g, g.intType());
      let readsInduction = false;
      walk(e, (n) => {
        if (n.kind === 'var' && n.decl === induction) readsInduction = true;
        return !readsInduction;
      });
      if (!readsInduction && pureExpr(e)) made.push(e);
    }
  } finally {
    g.pure = false;
    g.complexity = saved;
  }
  const fn = g.fn;
  for (const expr of made) g.invariants.push({ fn, expr });
  try {
    return body();
  } finally {
    g.invariants.length -= made.length;
  }
}

/**
 * With the invariant policy's chance, a copy (fresh ids) of an invariant expression of an enclosing loop of this
 * function.
 */
function invariantCopy(g: GenContext): Expr | undefined {
  if (!g.invariants.length || !g.rng.chance(g.policy.policies.invariants)) return undefined;
  // A function begun mid-expression inside the loop cannot see the loop's variables.
  const fitting = g.invariants.filter((x) => x.fn === g.fn && operations(x.expr) < g.complexity);
  if (!fitting.length) return undefined;
  return g.b.copy(g.rng.pick(fitting).expr);
}

/** Remembers a side-effect-free subexpression (an operation or a load) for later reuse. */
function rememberSubexpression(g: GenContext, e: Expr, kind: keyof GenContext['cseBuffer']): void {
  if (g.policy.policies.cse <= 0 || !pureExpr(e)) return;
  const buffer = g.cseBuffer[kind];
  buffer.push(e);
  if (buffer.length > CSE_BUFFER) buffer.shift();
}

/**
 * With the policy's chance, a copy (fresh ids) of a remembered subexpression of the given kind
 * whose variables are all visible here; undefined otherwise.
 */
function reuseSubexpression(g: GenContext, kind: keyof GenContext['cseBuffer']): Expr | undefined {
  const all = g.cseBuffer[kind];
  if (!all.length || !g.rng.chance(g.policy.policies.cse)) return undefined;
  // Operations that fit the expression's remaining budget (see `genInt`); loads cost nothing.
  const buffer = kind === 'operation' ? all.filter((x) => operations(x) < g.complexity) : all;
  if (!buffer.length) return undefined;
  const e = g.rng.pick(buffer);
  const visible = new Set<number>(g.globals.map((d) => d.id));
  if (g.fnStack.length) {
    for (const p of g.fn.params) visible.add(p.id);
    for (const b of g.fn.blocks) for (const l of b.locals) visible.add(l.id);
  }
  let ok = true;
  walk(e, (n) => {
    if (n.kind === 'var' && !visible.has(n.decl)) ok = false;
    // Live-guided extension reads no union member (see access.ts, unionReadOk).
    if (g.live && n.kind === 'field' && n.base.type.kind === 'union') ok = false;
    return ok;
  });
  if (!ok) return undefined;
  return g.b.copy(e);
}

/** The operators in an expression: what it costs of the complexity budget. */
function operations(e: Expr): number {
  let n = 0;
  walk(e, (x) => {
    if (x.kind === 'binary' || x.kind === 'unary' || x.kind === 'cond' || x.kind === 'cast') n++;
  });
  return n;
}

function pureExpr(e: Expr): boolean {
  let pure = true;
  walk(e, (n) => {
    if (n.kind === 'assign' || n.kind === 'incdec' || n.kind === 'call' || ('type' in n && (n as Expr).type?.volatile))
      pure = false;
    return pure;
  });
  return pure;
}

/** A variable or constant (no operators): what remains when the complexity budget is spent. */
function leaf(g: GenContext, t: IntType): Expr {
  if (g.constMode === 'all' || (g.constMode === 'half' && g.rng.chance(0.5))) return constant(g, t);
  if (g.rng.chance(0.6)) {
    const v = readInt(g, t);
    if (v) return v;
  }
  return constant(g, t);
}

function operandType(g: GenContext, t: IntType): IntType {
  return g.rng.chance(g.policy.choices.exactType) ? t : g.intType();
}

/** Reads an integer object (of type `t`, or of any integer type per the policy). */
function readInt(g: GenContext, t: IntType): Expr | undefined {
  const exact = g.rng.chance(g.policy.choices.exactType);
  return pickLvalue(g, exact ? { type: t } : { anyInt: true });
}

/** The fallback of a call: a binary (95) or unary (5) operation, plus Kiln's `?:` and casts. */
function operator(g: GenContext, t: IntType): Expr {
  const { rng, b, policy } = g;
  const f = policy.features;
  g.complexity--;
  if (g.opContext) {
    // Inside an operator context only its operators appear, a unary one as often as outside (5 in
    // 100: at a fifth, programs had three times the unary operations per line and fewer binary ones).
    const ctx = CONTEXTS[g.opContext];
    if (ctx.unary.length && rng.chance(0.05)) return b.un(rng.pick(ctx.unary), genInt(g, operandType(g, t)));
    return binaryWith(g, t, rng.pick(ctx.binary));
  }
  const kind = rng.weighted<'binary' | 'unary' | 'cond' | 'cast' | 'ptrcmp' | 'fcast' | 'fcmp'>([
    ['binary', 95],
    ['unary', 5],
    ['cond', f.conditional ? 3 : 0],
    ['cast', f.casts ? 3 : 0],
    ['ptrcmp', f.pointers ? 2 : 0],
    // Zero weights last: with floats off the draw picks exactly what it did before they existed.
    ['fcast', f.floats ? 4 : 0],
    ['fcmp', f.floats ? 3 : 0],
  ]);
  switch (kind) {
    case 'fcast':
      return b.cast(t, genFloat(g, floatType(g)));
    case 'fcmp':
      return b.bin(
        rng.pick(['<', '>', '<=', '>=', '==', '!='] as const),
        genFloat(g, floatType(g)),
        genFloat(g, floatType(g)),
      );
    case 'unary': {
      const op = rng.pick(['-', '~', '!', '+'] as const);
      return b.un(op, genInt(g, operandType(g, t)));
    }
    case 'cond':
      return b.cond(genInt(g, g.intType()), genInt(g, operandType(g, t)), genInt(g, operandType(g, t)));
    case 'cast':
      return b.cast(rng.chance(0.5) ? t : g.intType(), genInt(g, g.intType()));
    case 'ptrcmp': {
      const cmp = pointerComparison(g);
      if (cmp) return cmp;
      return binary(g, t);
    }
    case 'binary':
      return binary(g, t);
  }
}

function binary(g: GenContext, t: IntType): Expr {
  return binaryWith(g, t, binaryOp(g));
}

/** A binary operator by the policy's weights (or the operator context's), with the features' exclusions. */
function binaryOp(g: GenContext): BinaryOp {
  const { rng, policy } = g;
  if (g.opContext) return rng.pick(CONTEXTS[g.opContext].binary);
  const f = policy.features;
  return rng.weighted(
    Object.entries(policy.operators).map(
      ([o, w]) => [o as BinaryOp, (o === '/' || o === '%') && !f.divs ? 0 : o === '*' && !f.muls ? 0 : w] as const,
    ),
  );
}

/** A new operation with a reused subexpression as one operand, the other one drawn afresh. */
function withOperand(g: GenContext, t: IntType, copy: Expr): Expr {
  g.complexity--;
  const op = binaryOp(g);
  const other = genInt(g, operandType(g, t));
  return g.rng.chance(0.5) ? g.b.bin(op, copy, other) : g.b.bin(op, other, copy);
}

function binaryWith(g: GenContext, t: IntType, op: BinaryOp): Expr {
  const { rng, b } = g;
  if (g.constMode === 'half') {
    // Half-constant subtrees: every operation has one constant operand and one computed one,
    // ((x + 3) * 5) - 7: chains of constants that instcombine and reassociation fold together.
    // (Replacing half of the variable reads by constants instead left the front end folding the
    // subtrees away, and measured fewer optimisations than with the policy off.)
    const ct = operandType(g, t);
    if (rng.chance(0.5)) return b.bin(op, constant(g, ct), genInt(g, operandType(g, t)));
    return b.bin(op, genInt(g, operandType(g, t)), constant(g, ct));
  }
  const left = genInt(g, operandType(g, t));
  if ((op === '<<' || op === '>>') && rng.chance(0.6)) {
    // Shift counts are mostly constants below the promoted width, as in Csmith's programs. A
    // `_BitInt(N)` operand is not promoted: below N (a count past it is UB, and clang and gcc warn
    // of it even in code that never runs).
    return b.bin(op, left, b.lit(rng.int(0, shiftLimit(left) - 1), rng.pick(g.intTypes.filter((x) => x.bits >= 8))));
  }
  return b.bin(op, left, genInt(g, operandType(g, t)));
}

/** float or double. */
function floatType(g: GenContext): FloatType {
  return g.rng.pick([g.types.float, g.types.double]);
}

/**
 * A floating expression of type `t` (with `features.floats`): float and double variables,
 * integral constants, conversions from integer expressions, `+ - * /`, unary minus and `?:`.
 * Values that would leave the integers exactly representable (Nagai et al.'s rule, enforced by
 * the interpreter as UB kind float-inexact) are repaired afterwards like any other UB.
 */
export function genFloat(g: GenContext, t: FloatType): Expr {
  const { rng, b } = g;
  if (g.complexity <= 0 || rng.chance(0.3)) {
    const r = rng.float();
    if (r < 0.5) {
      const v = pickLvalue(g, { type: rng.chance(0.7) ? t : t.bits === 32 ? g.types.double : g.types.float });
      if (v) return v;
    }
    if (r < 0.8) return b.lit(rng.pick([0, 1, -1, 2, rng.int(-100, 100), rng.int(-100000, 100000)]), t);
    g.complexity--;
    return b.cast(t, genInt(g, g.intType()));
  }
  g.complexity--;
  const k = rng.weighted<'bin' | 'neg' | 'cond'>([
    ['bin', 90],
    ['neg', 5],
    ['cond', 5],
  ]);
  if (k === 'neg') return b.un('-', genFloat(g, t));
  if (k === 'cond') return b.cond(genInt(g, g.intType()), genFloat(g, t), genFloat(g, t));
  const op = rng.weighted<BinaryOp>([
    ['+', 4],
    ['-', 4],
    ['*', 3],
    ['/', 1],
  ]);
  return b.bin(op, genFloat(g, rng.chance(0.8) ? t : floatType(g)), genFloat(g, rng.chance(0.8) ? t : floatType(g)));
}

/** `p == q` or `p != q` on two pointers of one type (Csmith's only pointer operators besides * and &). */
function pointerComparison(g: GenContext): Expr | undefined {
  const { rng, b } = g;
  const p = pickLvalue(g, { pointer: true });
  if (p?.type.kind !== 'ptr') return undefined;
  const pt = unqualified(p.type) as PointerT;
  const q = rng.chance(0.3) ? b.nullptr(pt) : (exactPointer(g, pt) ?? b.nullptr(pt));
  return b.bin(rng.pick(['==', '!='] as const), p, q);
}

/** A pointer expression of exactly type `t` (for comparisons, where C needs compatible types). */
function exactPointer(g: GenContext, t: PointerT): Expr | undefined {
  const v = pickLvalue(g, { type: t });
  if (v && sameType(unqualified(v.type), t)) return v;
  const a = addressOf(g, t.to);
  if (a && sameType(unqualified(a.type), t)) return a;
  return undefined;
}

/** `(lv = e)`, `(lv op= e)`, `lv++`, `--lv`, … as a value of type `t`. */
function embeddedAssign(g: GenContext, t: IntType): Expr | undefined {
  const { rng, b, policy } = g;
  const f = policy.features;
  const lv = pickLvalue(g, {
    type: rng.chance(policy.choices.exactType) ? t : undefined,
    anyInt: true,
    writable: true,
  });
  if (lv?.type.kind !== 'int') return undefined;
  g.complexity--;
  // Live-guided extension stores to a union member, never reads it (see throughUnion).
  const storeOnly = !!g.live && throughUnion(lv);
  if (f.incDec && !storeOnly && (!f.embeddedAssign || rng.chance(0.35))) {
    return b.incdec(rng.pick(['++', '--'] as const), lv, rng.chance(0.5));
  }
  if (!f.embeddedAssign) return undefined;
  const op: AssignOp = f.compoundAssign && !storeOnly && rng.chance(0.3) ? rng.pick(COMPOUND_OPS) : '=';
  return b.assign(lv, genInt(g, unqualified(lv.type) as IntType), op);
}

/**
 * A pointer value assignable to type `t`: `&x`, another pointer, NULL (rarely: dereferencing it
 * would need a repair), or a call (functions only return pointers to globals, so calls are safe
 * under any scope limit).
 */
function genPointer(g: GenContext, t: PointerT, scopeLimit?: number): Expr {
  const { rng, b } = g;
  const r = rng.float();
  if (r < 0.04) return b.nullptr(t);
  if (r < 0.5) {
    const a = addressOf(g, t.to, false, scopeLimit);
    if (a && a.type.kind === 'ptr' && pointerConvertible(a.type, t)) return a;
  }
  if (r < 0.6) {
    const c = callFunction(g, t);
    if (c) return c;
  }
  const v = pickLvalue(g, { type: t, scopeLimit });
  if (v) return v;
  const a = addressOf(g, t.to, false, scopeLimit);
  if (a && a.type.kind === 'ptr' && pointerConvertible(a.type, t)) return a;
  return b.nullptr(t);
}

/** A struct or union value of type `t`: a variable or a call. */
function genRecordValue(g: GenContext, t: Type): Expr {
  const v = recordValue(g, t);
  if (v) return v;
  throw new Error(`no object of type ${t.kind} available`);
}

/**
 * A struct or union value of type `t`, or undefined when none can be had: every object of the
 * type may be a union member that is not the one last stored, with no room left for a new one.
 */
export function recordValue(g: GenContext, t: Type): Expr | undefined {
  if (g.rng.chance(0.2)) {
    const c = callFunction(g, t);
    if (c) return c;
  }
  return pickLvalue(g, { type: t });
}

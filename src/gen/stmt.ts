import { intMax, intMin, promote, type FloatType, type IntType } from '../c/types.js';
import type { AssignOp, Block, Expr, LabelStmt, Stmt, VarDecl } from '../ir/nodes.js';
import { isRecord, unqualified, type Type } from '../ir/types.js';
import { loopContinues } from '../ir/visit.js';
import { newLocal, pickLvalue, scopeLimitOf, throughUnion } from './access.js';
import type { BlockCtx, GenContext, LoopCtx } from './context.js';
import { declarable, genExpr, genFloat, genInt, recordValue, withLoopInvariants } from './expr.js';
import type { Policy } from './policy.js';
import { constant } from './types.js';
import { vectorBody } from './vector.js';
import { vectorAssignment } from './gnu-vector.js';
import { cfgRegion, entryRegion, ivLoop, switchMaze } from './cfg.js';

/**
 * Statements and blocks, with Csmith's Table 3.1 weights: assignment 40+, if-else 15, for 15,
 * array loop 10, return 5, goto 5, break 5, continue 5 (the last two only inside loops).
 */

type StmtKind = keyof Policy['statements'];

const COMPOUND_OPS: readonly AssignOp[] = ['+=', '-=', '*=', '/=', '%=', '<<=', '>>=', '&=', '|=', '^='];

/** Options of a block being generated. */
export interface BlockOptions {
  readonly inLoop: boolean;
  /** Inside a switch body (not in a loop nested in it): `break` is allowed. */
  readonly inSwitch?: boolean;
  /** Return type of the enclosing function, or undefined for void. */
  readonly ret: Type | undefined;
  /** The function's outermost block ends with a return of the function's type. */
  readonly functionBody: boolean;
  /**
   * No `continue` (extension inside a loop printed as a while or do loop: a `continue` would skip
   * the step printed at the end of its body). Normal generation picks the form after the body.
   */
  readonly noContinue?: boolean;
  /**
   * Code added where the program is known to run (live-guided extension): no `return`, `break`
   * or `continue`, at any depth, since each would leave the code after it dead.
   */
  readonly noJumps?: boolean;
}

/** Generates a block: up to `maxBlockSize` statements (plus a final return in function bodies). */
export function genBlock(g: GenContext, opts: BlockOptions, extraLocals: readonly VarDecl[] = []): Block {
  const fn = g.fn;
  const depth = fn.blocks.length;
  const ctx: BlockCtx = { locals: [...extraLocals], stmts: [], pendingLabels: [], inLoop: opts.inLoop, depth };
  fn.blocks.push(ctx);
  // Like Csmith, declare some initialised locals up front for the block's statements to use.
  const nLocals = g.rng.int(0, g.policy.limits.blockLocals);
  const budget = g.statementBudget;
  for (let i = 0; i < nLocals && g.statements < budget; i++) newLocal(g);
  // A function body gets at least half the block limit, so programs rarely end after a line or two.
  const max = Math.max(1, g.policy.limits.maxBlockSize);
  if (opts.functionBody && entryRegionHere(g)) {
    g.statements++;
    ctx.stmts.push(entryRegion(g, opts));
  }
  drawStatements(g, ctx, opts, g.rng.int(opts.functionBody ? Math.ceil(max / 2) : 1, max));
  // Labels go before the final return, so a forward goto never skips it.
  placePendingLabels(g, ctx);
  const last = ctx.stmts[ctx.stmts.length - 1];
  if (opts.functionBody && opts.ret && last?.kind !== 'return') ctx.stmts.push(returnStmt(g, opts.ret));
  fn.blocks.pop();
  return g.b.block(ctx.stmts, ctx.locals);
}

/**
 * Whether the function body under construction begins with the entry region (src/gen/cfg.ts): only
 * `func_1`'s, the function every run enters, in raw generation with goto regions on. The chance is
 * drawn only then, so programs without the shapes are as before.
 */
function entryRegionHere(g: GenContext): boolean {
  const f = g.policy.features;
  // Its loops nest six deep, past limits.maxBlockDepth: only in programs that may nest five blocks
  // (Csmith's default depth: medium and large programs), where it is not most of the program.
  if (!f.cfg || !f.goto || g.live || g.statements >= g.statementBudget) return false;
  if (g.policy.limits.maxBlockDepth < 5) return false;
  const c = g.policy.choices;
  return g.rng.chance(g.fn.info === g.funcs[0] ? c.entryRegion : c.functionRegion);
}

/**
 * Appends up to `n` statements to the block under construction `ctx`, while the program's statement
 * budget lasts. As in Csmith, an unconditional jump ends the block: what would follow could never run.
 */
export function drawStatements(g: GenContext, ctx: BlockCtx, opts: BlockOptions, n: number): void {
  for (let i = 0; i < n && g.statements < g.statementBudget; i++) {
    g.statements++;
    const s = genStmt(g, opts);
    if (!s) continue;
    ctx.stmts.push(s);
    if (s.kind === 'return' || s.kind === 'break' || s.kind === 'continue') break;
  }
}

/** Places the forward-goto labels still pending in a block under construction. */
export function placePendingLabels(g: GenContext, ctx: BlockCtx): void {
  // Last statement first: a label inserted shifts only the statements after it, so the indices
  // of the labels still to place stay true. (In first-come order a label could land just before
  // the statement holding its goto, a backward jump where a forward one was drawn: in code added
  // where the program runs, those loops took most of the steps of runs over the step budget.)
  const pending = [...ctx.pendingLabels].sort((a, b) => b.after - a.after);
  for (const { label, after } of pending) {
    const pos = g.rng.int(Math.min(after + 1, ctx.stmts.length), ctx.stmts.length);
    ctx.stmts.splice(pos, 0, label);
  }
  ctx.pendingLabels.length = 0;
}

/** One statement of Table 3.1's distribution, in the block under construction (`g.block`). */
export function genStmt(g: GenContext, opts: BlockOptions): Stmt | undefined {
  const { rng, policy } = g;
  // In code that runs, every statement costs a step each time its block runs.
  if (g.live) g.live.steps -= g.live.runs;
  const w = policy.statements;
  const f = policy.features;
  const depthOk = g.fn.blocks.length < policy.limits.maxBlockDepth;
  const kind = rng.weighted<StmtKind>([
    ['assign', w.assign],
    ['if', depthOk ? w.if : 0],
    ['for', depthOk && f.loops ? w.for : 0],
    ['arrayLoop', depthOk && f.loops && f.arrays ? w.arrayLoop : 0],
    ['return', opts.noJumps ? 0 : w.return],
    ['goto', f.goto ? w.goto : 0],
    ['break', (opts.inLoop || opts.inSwitch) && !opts.noJumps ? w.break : 0],
    ['continue', opts.inLoop && !opts.noContinue && !opts.noJumps ? w.continue : 0],
    ['switch', depthOk ? w.switch : 0],
    // Arbitrary control flow (src/gen/cfg.ts), in raw generation only: live-guided extension
    // adds code that must stay live and cost known steps.
    ['region', depthOk && f.cfg && f.goto && !g.live && !opts.noJumps ? w.region : 0],
    ['switchMaze', depthOk && f.cfg && !g.live && !opts.noJumps ? w.switchMaze : 0],
    ['ivLoop', depthOk && f.cfg && f.loops && !g.live ? w.ivLoop : 0],
  ]);
  switch (kind) {
    case 'assign':
      return assignment(g);
    case 'if':
      return ifElse(g, opts);
    case 'for':
      return forLoop(g, opts);
    case 'arrayLoop':
      return arrayLoop(g, opts) ?? assignment(g);
    case 'return':
      return opts.ret ? returnStmt(g, opts.ret) : g.b.ret();
    case 'goto':
      return gotoStmt(g);
    case 'break':
      return g.b.brk();
    case 'continue':
      return g.b.cont();
    case 'switch':
      return switchStmt(g, opts);
    case 'region':
      return cfgRegion(g, opts);
    case 'switchMaze':
      return switchMaze(g, opts);
    case 'ivLoop':
      return ivLoop(g, opts);
  }
}

/**
 * `switch (e) { case c1: {…} break; case c2: {…} … default: {…} }` with a few distinct small
 * case values (so cases are actually taken), occasional fall-through, and a default most of the
 * time. Each case's statements are in their own block, which may declare locals.
 */
function switchStmt(g: GenContext, opts: BlockOptions): Stmt {
  const { rng, b } = g;
  budget(g);
  const cond = genInt(g, g.intType());
  const ct = promote(unqualified(cond.type) as IntType);
  // At most as many cases as the promoted type has values: `unsigned _BitInt(1)` has two.
  const nCases = Math.min(rng.int(1, 4), Number(intMax(ct) - intMin(ct) + 1n));
  const values = new Set<bigint>();
  while (values.size < nCases) {
    const v = rng.chance(0.8) ? BigInt(rng.int(-3, 8)) : rng.bigint(intMin(ct), intMax(ct));
    if (v >= intMin(ct) && v <= intMax(ct)) values.add(v);
  }
  const labels: (bigint | undefined)[] = [...values];
  if (rng.chance(0.7)) labels.splice(rng.int(0, labels.length), 0, undefined);
  const inner: BlockOptions = { ...opts, inSwitch: true, functionBody: false };
  const stmts: Stmt[] = [];
  for (const v of labels) {
    stmts.push(b.case(v));
    stmts.push(genBlock(g, inner));
    if (rng.chance(0.8)) stmts.push(b.brk());
  }
  return b.switch(cond, b.block(stmts));
}

/** Starts a fresh complexity budget for one full expression. */
function budget(g: GenContext): void {
  g.complexity = g.rng.int(1, Math.max(1, g.policy.limits.maxExprComplexity));
}

function returnStmt(g: GenContext, ret: Type): Stmt {
  budget(g);
  // A returned pointer must point at a global: the function's locals die on return.
  return g.b.ret(genExpr(g, ret, g.policy.expressions, -1));
}

/** An assignment: mostly to an integer object (simple or compound), sometimes a pointer or a record. */
function assignment(g: GenContext): Stmt | undefined {
  const { rng, b, policy } = g;
  const f = policy.features;
  budget(g);
  if (g.vectorTypes && rng.chance(policy.choices.vectorStatements)) {
    const s = vectorAssignment(g);
    if (s) return s;
  }
  const r = rng.float();
  if (f.pointers && r < 0.12) {
    const lv = pickLvalue(g, { pointer: true, writable: true });
    if (lv && lv.type.kind === 'ptr')
      return b.stmt(b.assign(lv, genExpr(g, lv.type, policy.expressions, scopeLimitOf(g, lv))));
  } else if ((f.structs || f.unions) && g.records.length && r < 0.18) {
    const rt = rng.pick(g.records);
    const lv = pickLvalue(g, { type: rt, writable: true });
    const value = lv && isRecord(lv.type) ? recordValue(g, unqualified(lv.type)) : undefined;
    if (lv && value) return b.stmt(b.assign(lv, value));
  } else if (f.floats && r < 0.3) {
    const lv = pickLvalue(g, { type: rng.pick([g.types.float, g.types.double]), writable: true });
    if (lv && lv.type.kind === 'float') {
      const op =
        f.compoundAssign && rng.chance(0.2) && !(g.live && throughUnion(lv))
          ? rng.pick(['+=', '-=', '*='] as const)
          : '=';
      return b.stmt(b.assign(lv, genFloat(g, unqualified(lv.type) as FloatType), op));
    }
  }
  const lv = pickLvalue(g, { anyInt: true, writable: true });
  if (lv?.type.kind !== 'int') return undefined;
  const t = unqualified(lv.type) as IntType;
  let op: AssignOp = f.compoundAssign && rng.chance(0.3) ? rng.pick(COMPOUND_OPS) : '=';
  if (g.live && throughUnion(lv)) op = '=';
  return b.stmt(b.assign(lv, genInt(g, t), op));
}

function ifElse(g: GenContext, opts: BlockOptions): Stmt {
  budget(g);
  const cond = genInt(g, g.intType());
  const inner = { ...opts, functionBody: false };
  const then = genBlock(g, inner);
  // Csmith always generates both branches.
  return g.b.if(cond, then, genBlock(g, inner));
}

/**
 * `for (v = c0; v < c1; v += s)` with a small trip count (Csmith's header shape). The body may
 * write the induction variable, as Csmith allows (except in live-guided extension); the
 * interpreter's step budget and the repair step keep such loops finite.
 */
function forLoop(g: GenContext, opts: BlockOptions): Stmt {
  const { rng, b, policy } = g;
  // Induction variable: usually a fresh local, sometimes an existing integer variable.
  let iv: Expr | undefined;
  let decl: VarDecl | undefined;
  if (rng.chance(0.35)) {
    iv = pickLvalue(g, { anyInt: true, writable: true, noVolatile: true });
    if (iv && iv.kind === 'var') decl = findDecl(g, iv.decl);
    else iv = undefined;
  }
  if (!iv) {
    const t = rng.pick(g.intTypes);
    decl = b.local(g.name('l_'), t, constant(g, t));
    g.block.locals.push(decl);
    iv = b.v(decl);
  }
  const t = declarable(g, unqualified(iv.type) as IntType);
  // Small trip counts are favoured; zero-trip loops (dead bodies) are kept rare.
  let trip = rng.chance(0.05) ? 0 : 1 + Math.floor((policy.limits.maxLoopTrip - 1) * rng.float() ** 2);
  const live = g.live;
  if (live) {
    trip = liveTrip(g, live, trip);
    live.steps -= live.runs * trip;
  }
  const lo = intMin(t);
  const hi = intMax(t);
  // A step the type holds: `_BitInt(2)` and `unsigned _BitInt(1)` go no higher than 1.
  const step = Math.min(rng.chance(0.75) ? 1 : rng.int(2, 3), Number(hi < 3n ? hi : 3n));
  const up = rng.chance(0.7);
  const span = BigInt(trip * step) > hi - lo ? ((hi - lo) / BigInt(step)) * BigInt(step) : BigInt(trip * step);
  let c0 = rng.chance(0.6) ? 0n : constantIn(g, t);
  if (up && c0 + span > hi) c0 = hi - span;
  if (!up && c0 - span < lo) c0 = lo + span;
  const c1 = up ? c0 + span : c0 - span;
  // `v <= MAX` and `v >= MIN` never become false: use the strict form at the type's limits.
  const atLimit = up ? c1 === hi : c1 === lo;
  const cmp = up
    ? rng.pick(atLimit ? (['<', '!='] as const) : (['<', '<=', '!='] as const))
    : rng.pick(atLimit ? (['>', '!='] as const) : (['>', '>=', '!='] as const));
  const init = b.assign(iv, b.lit(c0, t));
  const cond = b.bin(cmp, cloneVar(g, iv), b.lit(c1, t));
  const stepExpr =
    step === 1 && rng.chance(0.7)
      ? b.incdec(up ? '++' : '--', cloneVar(g, iv), rng.chance(0.5))
      : b.assign(cloneVar(g, iv), b.lit(step, t), up ? '+=' : '-=');
  const range: LoopCtx = {
    induction: iv,
    decl,
    lo: Number(up ? c0 : c1),
    hi: Number(up ? c1 : c0),
  };
  // Invariants are drawn before the loop is entered, so array indices in them are not biased to its induction variable.
  // In code added where the program runs, the body does not write the counter (nor does a nested
  // loop take it as its own): such a loop can run for ever, and a run over the step budget costs
  // three ordinary ones. Elsewhere the body may write it, as Csmith's may.
  const counter = live && iv.kind === 'var' && !g.readOnly.has(iv.decl) ? iv.decl : undefined;
  const body = withLoopInvariants(g, decl?.id, () => {
    g.fn.loops.push(range);
    if (counter !== undefined) g.readOnly.add(counter);
    // Code in the body runs once per iteration: nested loops get what the budget leaves them.
    if (live) live.runs *= Math.max(1, trip);
    const block = genBlock(g, { ...opts, inLoop: true, inSwitch: false, functionBody: false, noContinue: false });
    if (live) live.runs /= Math.max(1, trip);
    if (counter !== undefined) g.readOnly.delete(counter);
    g.fn.loops.pop();
    return block;
  });
  // Print some loops as while or do-while loops (a do loop always runs its first iteration).
  const ch = policy.choices;
  const r = rng.float();
  const form = loopContinues(body) ? 'for' : r < ch.doLoop ? 'do' : r < ch.doLoop + ch.whileLoop ? 'while' : 'for';
  return b.for(init, cond, stepExpr, body, form);
}

/**
 * Csmith's array-statement: `for (i = 0; i < n; i++)` over one dimension of an array, with a
 * body biased to index that array with `i` (targets loop vectorisers). `i` is read-only.
 */
function arrayLoop(g: GenContext, opts: BlockOptions): Stmt | undefined {
  const { rng, b } = g;
  const arrays = [...g.globals, ...g.fn.params, ...g.fn.blocks.flatMap((x) => x.locals)].filter(
    (v) => v.type.kind === 'array',
  );
  if (arrays.length === 0) return undefined;
  const a = rng.pick(arrays);
  const n = (a.type as { length: number }).length;
  const t = rng.pick(g.intTypes.filter((x) => x.bits >= 16));
  const i = b.local(g.name('l_'), t, b.lit(0, t));
  g.block.locals.push(i);
  g.readOnly.add(i.id);
  const header = (body: Block): Stmt =>
    b.for(b.assign(b.v(i), b.lit(0, t)), b.bin('<', b.v(i), b.lit(n, t)), b.incdec('++', b.v(i), false), body);
  // The chance is drawn only with the policy on, so programs without it are what they were.
  const vector = g.policy.policies.vectorLoops;
  if (vector > 0 && rng.chance(vector)) {
    // The loop keeps the array drawn above, short ones included. Drawing it again among arrays of
    // four elements or more, for more lanes, measured worse with clang (bench:policy, 200
    // programs: 0.79x against 1.03x, and no SLP vectorisation left at all).
    const body = vectorBody(g, i, n);
    if (body) return header(body);
  }
  const body = withLoopInvariants(g, i.id, () => {
    const bias = g.loopIndexBias;
    g.loopIndexBias = 0.9;
    g.fn.loops.push({ induction: b.v(i), decl: i, lo: 0, hi: n - 1 });
    if (g.live) {
      g.live.steps -= g.live.runs * n;
      g.live.runs *= n;
    }
    const block = genBlock(g, { ...opts, inLoop: true, inSwitch: false, functionBody: false, noContinue: false });
    if (g.live) g.live.runs /= n;
    g.fn.loops.pop();
    g.loopIndexBias = bias;
    return block;
  });
  return header(body);
}

/** `if (c) goto L;` with L a label in this block or an enclosing one, placed before (backward) or after. */
function gotoStmt(g: GenContext): Stmt {
  const { rng, b } = g;
  const blocks = g.fn.blocks;
  const target = blocks[rng.int(Math.min(g.gotoFloor, blocks.length - 1), blocks.length - 1)]!;
  const label = b.label(g.name('lbl_')) as LabelStmt;
  const here = target.stmts.length; // index the statement under construction will take in `target`
  // Live-guided extension jumps forward only: a backward goto in code that runs often loops for ever.
  if (g.live === undefined && rng.chance(g.policy.choices.backwardGoto)) {
    const pos = rng.int(0, here);
    target.stmts.splice(pos, 0, label);
    for (const p of target.pendingLabels) if (p.after >= pos) p.after++;
  } else {
    target.pendingLabels.push({ label, after: here });
  }
  budget(g);
  const cond = genInt(g, g.intType());
  return b.if(cond, b.block([b.goto(label)]));
}

/**
 * A trip count for a loop in code known to run (live-guided extension): with `live.longLoops`'s
 * chance, log-uniform from 8 to `live.maxLongTrip`, so loops reach vectorised main bodies and
 * unrolled steady states; then capped so that the loop's iterations, times how often its block
 * runs, times a few steps per iteration, stay within the steps this extension may add.
 */
function liveTrip(g: GenContext, live: { runs: number; steps: number }, trip: number): number {
  const lp = g.policy.live;
  if (lp.maxLongTrip >= 8 && g.rng.chance(lp.longLoops))
    trip = Math.round(Math.exp(Math.log(8) + g.rng.float() * (Math.log(lp.maxLongTrip) - Math.log(8))));
  const cap = Math.floor(Math.max(0, live.steps) / (Math.max(1, live.runs) * STEPS_PER_ITERATION));
  return trip === 0 ? 0 : Math.max(1, Math.min(trip, cap));
}

/** Steps one iteration of a new loop is assumed to take (its header plus a short body). */
const STEPS_PER_ITERATION = 4;

function constantIn(g: GenContext, t: IntType): bigint {
  const v = g.rng.bigint(-20n, 20n);
  return v < intMin(t) ? intMin(t) : v > intMax(t) ? intMax(t) : v;
}

/** A fresh node reading the same variable (IR nodes are never shared). */
function cloneVar(g: GenContext, e: Expr): Expr {
  if (e.kind !== 'var') throw new Error('induction variables are plain variables');
  return { ...e, id: g.b.id() };
}

function findDecl(g: GenContext, id: number): VarDecl | undefined {
  return [...g.globals, ...g.fn.params, ...g.fn.blocks.flatMap((x) => x.locals)].find((d) => d.id === id);
}

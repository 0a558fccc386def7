import type { GenContext, LoopCtx } from '../gen/context.js';
import { extendBlock, type ExtensionSite } from '../gen/live.js';
import { markRegisterLocals } from '../gen/program.js';
import type { Policy } from '../gen/policy.js';
import type { Profile } from '../interp/interpret.js';
import type { Block, Expr, ForStmt, FuncDecl, IfStmt, Node, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { unqualified } from '../ir/types.js';
import { forEachChild, isStmt, walk } from '../ir/visit.js';
import { staticTrip } from './rules/termination.js';
import { Editor } from './edit.js';

/**
 * What a round does: add statements to blocks that ran, or make code that exists run (a call
 * to a function never entered, conditions of one-sided ifs). The second kind costs steps no
 * one can predict (the callee's, the other side's), so it has rounds of its own: when one
 * goes over the step budget, only it is dropped.
 */
export type RoundKind = 'statements' | 'reveal';

/**
 * One round of live-guided generation (generate, execute, *extend*), from the profile of the
 * last clean run: new statements go into blocks that ran (`statements`), or a call goes from
 * code that ran to a function that was never entered and ifs whose condition never changed over
 * several runs get one that does (`reveal`). The caller executes and repairs the result like any
 * other code, and drops the round when it cannot be made clean. Undefined: nothing to do. The
 * round's editor comes with the program: its index is up to date, so repairs go on with it.
 */
export function extendRound(
  g: GenContext,
  p: Program,
  profile: Profile,
  policy: Policy,
  kind: RoundKind,
  editor?: Editor,
): { readonly program: Program; readonly editor: Editor } | undefined {
  // The last round's editor, when it edited `p` (its index is up to date), saves indexing the program again.
  const ed = editor ?? new Editor(p);
  // One id space for the generator and the editor (and, after this, the repair step).
  g.b = ed.b;
  const lp = policy.live;
  const funcsBefore = g.funcs.length;
  const ran = (id: number): number => profile.stmtCounts.get(id) ?? 0;
  const { graph, costs } = analyseCalls(p, profile);
  const sites = liveBlocks(p, ran);
  let changed = false;
  if (sites.length && kind === 'statements') {
    // Statements per insertion, nested ones included: a few simple ones, or one compound statement.
    const perInsertion = 2 * Math.max(1, policy.limits.maxBlockSize);
    let left = Math.min(lp.roundStatements, g.statementBudget - g.statements);
    const insertions = Math.max(1, Math.ceil(left / perInsertion));
    const steps = Math.max(0, lp.stepTarget - profile.steps) / insertions;
    const fewest = Math.min(...sites.map((s) => s.runs));
    while (left > 0) {
      const n = Math.min(left, g.rng.int(2, perInsertion));
      left -= n;
      // Each statement added to a block costs as many steps as the block runs: blocks the
      // allowance cannot pay for are left out (the least-run ones always qualify).
      const affordable = sites.filter((s) => s.runs * n <= steps || s.runs === fewest);
      insert(g.rng.pick(affordable).block, n, steps, undefined);
    }
  }
  if (sites.length && kind === 'reveal' && g.rng.chance(lp.calls)) {
    // A function never entered, called from a block that ran in a function it cannot reach, among
    // the blocks that ran least (the callee's own cost in steps is not known yet).
    const dead = p.funcs.filter((f) => f.id !== p.main && ran(f.body.id) === 0);
    if (dead.length) {
      const callee = g.rng.pick(dead).id;
      const from = sites.filter((s) => s.func !== callee && !reaches(graph, callee, s.func));
      const least = Math.min(...from.map((s) => s.runs));
      const cheap = from.filter((s) => s.runs <= Math.max(2, least));
      if (cheap.length) insert(g.rng.pick(cheap).block, 1, Math.max(0, lp.stepTarget - profile.steps), callee);
    }
  }
  // Both sides of a branch cost steps: balance only while the run is under its target.
  if (
    kind === 'reveal' &&
    lp.balanceBranches > 0 &&
    profile.steps < lp.stepTarget &&
    balanceBranches(ed, profile, policy, g)
  )
    changed = true;
  if (!changed) return undefined;

  function insert(pick: number, n: number, steps: number, callee: number | undefined): void {
    const site = siteOf(g, ed, pick, ran);
    if (!site) return;
    const fid = site.func.id;
    const barred = new Set([...graph.keys()].filter((h) => h === fid || reaches(graph, h, fid)));
    const before = g.funcs.length;
    const block = extendBlock(g, site, { statements: n, steps, callee, barred, costs });
    const target = site.chain[site.chain.length - 1]!;
    ed.replace(pick, () => block);
    // Only the new statements and locals can take addresses or make calls the program did not have.
    const oldStmts = new Set<Node>(target.stmts);
    const oldLocals = new Set<Node>(target.locals);
    const fresh = [...block.stmts.filter((x) => !oldStmts.has(x)), ...block.locals.filter((x) => !oldLocals.has(x))];
    for (const x of fresh) {
      dropRegister(ed, x);
      // New edges: the new statements' calls (the graph has the others), and those of functions created for it.
      addCalls(graph, fid, x);
    }
    for (const f of g.funcs.slice(before)) if (f.decl) addCalls(graph, f.sig.id, f.decl.body);
    changed = true;
  }
  const added = g.funcs.slice(funcsBefore).map((f) => markRegisterLocals(g, f.decl!));
  if (added.length) {
    const funcs = ed.program.funcs;
    const main = funcs.find((f) => f.id === p.main)!;
    ed.setFunctions([...funcs.filter((f) => f !== main), ...added, main], g.b.nextId);
  }
  return { program: ed.program, editor: ed };
}

/**
 * A block that ran, in a function of the test code (not `main`), and not a switch body (which holds case labels only).
 */
interface LiveBlock {
  readonly block: number;
  readonly func: number;
  readonly runs: number;
}

function liveBlocks(p: Program, ran: (id: number) => number): LiveBlock[] {
  const out: LiveBlock[] = [];
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    walk(f.body, (n, parent) => {
      if (n.kind === 'block') {
        if (ran(n.id) === 0) return false;
        if (parent?.kind !== 'switch') out.push({ block: n.id, func: f.id, runs: ran(n.id) });
      }
      return n.kind === 'block' || n.kind === 'if' || n.kind === 'for' || n.kind === 'switch';
    });
  }
  return out;
}

/** The generator's view of a block: its enclosing blocks and loops, and a position known to run. */
function siteOf(g: GenContext, ed: Editor, blockId: number, ran: (id: number) => number): ExtensionSite | undefined {
  const target = ed.find(blockId);
  const func = ed.functionOf(blockId);
  if (target?.kind !== 'block' || !func) return undefined;
  const path = ed.ancestors(blockId).reverse(); // function first
  const chain: Block[] = [];
  const loops: LoopCtx[] = [];
  let inLoop = false;
  let inSwitch = false;
  let noContinue = false;
  const counters: number[] = [];
  for (const n of path) {
    if (n.kind === 'block') chain.push(n);
    else if (n.kind === 'for') {
      const stepped = n.step?.kind === 'incdec' ? n.step.target : n.step?.kind === 'assign' ? n.step.target : undefined;
      if (stepped?.kind === 'var') counters.push(stepped.decl);
      [inLoop, inSwitch, noContinue] = [true, false, n.form === 'while' || n.form === 'do'];
      const l = loopRange(n, chain, func);
      if (l) loops.push(l);
    } else if (n.kind === 'switch') inSwitch = true;
  }
  chain.push(target);
  // Before a statement that ran, or at the top: the new code runs whenever that point is reached.
  const positions = [0];
  target.stmts.forEach((s, i) => {
    if (i > 0 && ran(s.id) > 0) positions.push(i);
  });
  const position = g.rng.pick(positions);
  return { func, chain, loops, inLoop, inSwitch, noContinue, position, runs: ran(blockId), counters };
}

/** The range of a loop's induction variable, for `for (v = c0; v cmp c1; …)` headers. */
function loopRange(loop: ForStmt, chain: readonly Block[], func: FuncDecl): LoopCtx | undefined {
  const init = loop.init;
  const cond = loop.cond;
  if (init?.kind !== 'assign' || init.target.kind !== 'var' || init.value.kind !== 'const') return undefined;
  if (cond?.kind !== 'binary' || cond.right.kind !== 'const') return undefined;
  const a = Number(init.value.value);
  const b = Number(cond.right.value);
  const id = init.target.decl;
  const decl = [...func.params, ...chain.flatMap((blk) => blk.locals)].find((d) => d.id === id);
  if (!decl) return undefined;
  return { induction: init.target, decl, lo: Math.min(a, b), hi: Math.max(a, b) };
}

/**
 * Ifs that ran at least twice and always took the same side get a condition that alternates
 * with the parity of the innermost enclosing loop's induction variable: `c && (v & 1)` when `c`
 * was always true, `c || (v & 1)` when it was always false. The next run shows whether both
 * sides now run; nothing else changes.
 */
function balanceBranches(ed: Editor, profile: Profile, policy: Policy, g: GenContext): boolean {
  let changed = false;
  const ran = (id: number): number => profile.stmtCounts.get(id) ?? 0;
  const p = ed.program;
  const ifs: IfStmt[] = [];
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    walk(f.body, (n) => {
      if (n.kind === 'if' && ran(n.id) >= 2) {
        const then = ran(n.then.id);
        if (then === 0 || then === ran(n.id)) ifs.push(n);
      }
      return !isExprNode(n);
    });
  }
  for (const s of ifs) {
    if (!g.rng.chance(policy.live.balanceBranches)) continue;
    const now = ed.find(s.id);
    if (now?.kind !== 'if') continue;
    const loop = ed.ancestors(s.id).find((n): n is ForStmt => n.kind === 'for');
    const iv = loop && unitStepVariable(loop, ed);
    if (!iv) continue;
    const alwaysTrue = ran(s.then.id) > 0;
    const t = unqualified(iv.type);
    if (t.kind !== 'int') continue;
    const parity = ed.b.bin('&', ed.b.v(iv), ed.b.lit(1n, t));
    ed.replace(s.id, (old) => ({
      ...(old as IfStmt),
      cond: ed.b.bin(alwaysTrue ? '&&' : '||', (old as IfStmt).cond, parity),
    }));
    changed = true;
  }
  return changed;
}

/** The declaration of a loop's induction variable when it steps by one (`v++`, `v--`, `v += 1`, `v -= 1`). */
function unitStepVariable(loop: ForStmt, ed: Editor): VarDecl | undefined {
  const step = loop.step;
  let target: Expr | undefined;
  if (step?.kind === 'incdec') target = step.target;
  else if (
    step?.kind === 'assign' &&
    (step.op === '+=' || step.op === '-=') &&
    step.value.kind === 'const' &&
    step.value.value === 1n
  )
    target = step.target;
  if (target?.kind !== 'var') return undefined;
  const d = ed.find(target.decl);
  return d?.kind === 'var-decl' ? d : undefined;
}

function isExprNode(n: Node): boolean {
  return n.kind !== 'block' && n.kind !== 'if' && n.kind !== 'for' && n.kind !== 'switch' && n.kind !== 'func';
}

/** Locals declared `register` whose address new code takes lose the keyword (C forbids `&` on them). */
function dropRegister(ed: Editor, n: Node): void {
  walk(n, (x) => {
    if (x.kind !== 'addr') return;
    let t = x.target;
    while (t.kind === 'field' || t.kind === 'index') t = t.base;
    if (t.kind !== 'var') return;
    const d = ed.find(t.decl);
    if (d?.kind === 'var-decl' && d.isRegister) {
      ed.replace(d.id, (old) => {
        const { isRegister: _, ...rest } = old as VarDecl;
        return rest;
      });
    }
  });
}

/**
 * The call graph (caller → callees) and the steps one call of each function costs, its callees'
 * included. For a function the run entered, from the profile: its own statement executions and
 * loop iterations, plus each call site's executions (those of the statement holding it) times
 * the callee's cost, over the number of times it was entered. For one never entered, an
 * estimate from its code ({@link staticCost}). The call graph is acyclic.
 */
function analyseCalls(p: Program, profile: Profile): { graph: Map<number, Set<number>>; costs: Map<number, number> } {
  const counts = profile.stmtCounts;
  const iters = profile.loopIters;
  const graph = new Map<number, Set<number>>();
  const byId = new Map<number, FuncDecl>();
  for (const f of p.funcs) {
    graph.set(f.id, new Set(summaryOf(f).callees));
    byId.set(f.id, f);
  }
  const costs = new Map<number, number>();
  const cost = (id: number): number => {
    const known = costs.get(id);
    if (known !== undefined) return known;
    const f = byId.get(id);
    if (!f) return 0;
    const entries = counts.get(f.body.id) ?? 0;
    let per: number;
    if (entries === 0) per = staticCost(f.body, cost);
    else {
      const sum = summaryOf(f);
      let total = 0;
      for (const s of sum.stmts) total += counts.get(s) ?? 0;
      for (const l of sum.loops) total += iters.get(l) ?? 0;
      for (const c of sum.calls) total += (counts.get(c.stmt) ?? 0) * cost(c.callee);
      per = total / entries;
    }
    costs.set(id, per);
    return per;
  };
  for (const f of p.funcs) cost(f.id);
  return { graph, costs };
}

/** Iterations assumed for a loop whose header is not of the generated shape. */
const UNKNOWN_TRIP = 16;

/**
 * Steps a call of a function never entered may cost, read from its code: each statement once,
 * the larger side of an if, loop bodies times their header's trip count, and the callees' costs
 * (measured, or estimated the same way). Without it, code added where the program runs could
 * not call such functions at all, and on seeds 1-100 (medium) the median program entered 45% of
 * its functions instead of 91%.
 */
function staticCost(s: Stmt, cost: (func: number) => number): number {
  const calls = (e: Expr | undefined): number => {
    let n = 0;
    if (e)
      walk(e, (x) => {
        if (x.kind === 'call') n += cost(x.func);
      });
    return n;
  };
  switch (s.kind) {
    case 'block':
      return s.stmts.reduce((n: number, x: Stmt) => n + staticCost(x, cost), 1);
    case 'if':
      return 1 + calls(s.cond) + Math.max(staticCost(s.then, cost), s.else ? staticCost(s.else, cost) : 0);
    case 'for': {
      const trip = staticTrip(s) ?? UNKNOWN_TRIP;
      return 1 + calls(s.init) + (trip + 1) * calls(s.cond) + trip * (1 + calls(s.step) + staticCost(s.body, cost));
    }
    case 'switch':
      return 1 + calls(s.cond) + staticCost(s.body, cost);
    default: {
      let n = 1;
      forEachChild(s, (c) => {
        if (!isStmt(c)) n += calls(c as Expr);
      });
      return n;
    }
  }
}

/** What a function's code is, for {@link analyseCalls}: its statements, loops and call sites. */
interface CallSummary {
  readonly callees: readonly number[];
  readonly stmts: readonly number[];
  readonly loops: readonly number[];
  /**
   * Each call with the statement holding it (pre-order: the last statement reached before it; an approximation where a
   * statement has both expressions and nested statements, such as `for` headers and `if` conditions).
   */
  readonly calls: readonly { readonly callee: number; readonly stmt: number }[];
}

/** Function declarations are immutable: a function no round or repair changed keeps its summary. */
const summaries = new WeakMap<FuncDecl, CallSummary>();

function summaryOf(f: FuncDecl): CallSummary {
  let sum = summaries.get(f);
  if (sum) return sum;
  const callees = new Set<number>();
  const stmts: number[] = [];
  const loops: number[] = [];
  const calls: { callee: number; stmt: number }[] = [];
  let stmt = -1;
  walk(f.body, (x) => {
    if (x.kind === 'call') {
      callees.add(x.func);
      if (stmt >= 0) calls.push({ callee: x.func, stmt });
    } else if (isStmt(x)) {
      stmt = x.id;
      stmts.push(x.id);
      if (x.kind === 'for') loops.push(x.id);
    }
  });
  sum = { callees: [...callees], stmts, loops, calls };
  summaries.set(f, sum);
  return sum;
}

function addCalls(graph: Map<number, Set<number>>, from: number, n: Node): void {
  let out = graph.get(from);
  if (!out) graph.set(from, (out = new Set()));
  const callees = out;
  walk(n, (x) => {
    if (x.kind === 'call') callees.add(x.func);
  });
}

/** Whether `from` calls `to`, directly or through other functions. */
function reaches(graph: ReadonlyMap<number, ReadonlySet<number>>, from: number, to: number): boolean {
  const seen = new Set<number>();
  const stack = [from];
  while (stack.length) {
    const f = stack.pop()!;
    for (const c of graph.get(f) ?? []) {
      if (c === to) return true;
      if (!seen.has(c)) {
        seen.add(c);
        stack.push(c);
      }
    }
  }
  return false;
}

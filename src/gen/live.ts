import type { Block, FuncDecl, Stmt } from '../ir/nodes.js';
import { isRecord, unqualified } from '../ir/types.js';
import { pickLvalue } from './access.js';
import type { BlockCtx, FnCtx, FuncInfo, GenContext, LoopCtx } from './context.js';
import { genExpr } from './expr.js';
import { placePendingLabels, genStmt, type BlockOptions } from './stmt.js';

/**
 * Live-guided extension (generate, execute, extend): new statements for a block of an existing,
 * repaired program, drawn by the same generator as the rest, in the scope of that block. The
 * repair loop chooses the block from the interpreter's profile (src/repair/extend.ts); this module
 * only rebuilds the generator's view of the place (visible locals, enclosing loops, what a
 * `break` or `continue` may do) and draws the statements.
 */

/** Where new statements go: a block of a function, with everything in scope there. */
export interface ExtensionSite {
  /** The function, as it is now (its parameters are in scope). */
  readonly func: FuncDecl;
  /** The blocks from the function body down to the target block (last), as they are now. */
  readonly chain: readonly Block[];
  /** Enclosing counted loops, outermost first (their induction variables may index arrays). */
  readonly loops: readonly LoopCtx[];
  readonly inLoop: boolean;
  readonly inSwitch: boolean;
  /** The innermost loop is printed as a while or do loop: no `continue` may bind to it. */
  readonly noContinue: boolean;
  /** Index in the target block's statements where the new ones go. */
  readonly position: number;
  /** How often the target block ran (trip counts of new loops are sized by it). */
  readonly runs: number;
  /** Variables the enclosing loops step (declaration ids): new code must not write them. */
  readonly counters: readonly number[];
}

/** What an extension asks for. */
export interface ExtensionRequest {
  /** Statements to draw, nested ones included (fewer when the program's statement budget runs out). */
  readonly statements: number;
  /** Steps the new code may add to a run (bounds the trip counts of new loops). */
  readonly steps: number;
  /** A function the run never entered, to be called first (by signature id). */
  readonly callee?: number;
  /** Functions that can reach this one (itself included): they must not be called from here. */
  readonly barred: ReadonlySet<number>;
  /**
   * Steps per call of the program's functions (function id → steps; measured for those the last run entered, estimated
   * for the others): calls to functions without one are not drawn.
   */
  readonly costs?: ReadonlyMap<number, number>;
}

/**
 * Draws new statements into the site's target block and returns the block with them; functions
 * created on demand meanwhile are appended to `g.funcs`. No global is created (the checksum
 * harness is already built) and no goto leaves the target block, so enclosing blocks stay as they
 * are. No `return`, `break` or `continue` is drawn: each would cut off code after it.
 */
export function extendBlock(g: GenContext, site: ExtensionSite, req: ExtensionRequest): Block {
  const info = g.funcs.find((f) => f.sig.id === site.func.id);
  if (!info) throw new Error(`extension: ${site.func.name} is not a generated function`);
  const target = site.chain[site.chain.length - 1];
  if (!target) throw new Error('extension: empty block chain');
  // Functions that can reach this one are not complete for the time being: callFunction only
  // calls complete functions, so the call graph stays acyclic.
  const hidden = g.funcs.filter((f) => f.complete && req.barred.has(f.sig.id));
  for (const f of hidden) f.complete = false;
  const blocks: BlockCtx[] = site.chain.map((blk, depth) => ({
    locals: [...blk.locals],
    stmts: blk === target ? blk.stmts.slice(0, site.position) : [...blk.stmts],
    pendingLabels: [],
    inLoop: site.inLoop,
    depth,
  }));
  const ctx = blocks[blocks.length - 1]!;
  const fn: FnCtx = { info, params: site.func.params, blocks, loops: [...site.loops] };
  const ret = unqualified(site.func.ret);
  const opts: BlockOptions = {
    inLoop: site.inLoop,
    inSwitch: site.inSwitch,
    noContinue: site.noContinue,
    noJumps: true,
    ret: isRecord(ret) || ret.kind !== 'void' ? ret : undefined,
    functionBody: false,
  };
  g.fnStack.push(fn);
  // New code inside a loop that wrote the loop's counter could keep the loop going for ever: on
  // seeds 1-40 (medium) such loops were most of the extension runs that hit the step budget.
  const counters = site.counters.filter((id) => !g.readOnly.has(id));
  for (const id of counters) g.readOnly.add(id);
  g.gotoFloor = blocks.length - 1;
  g.globalsFrozen = true;
  g.live = { runs: Math.max(1, site.runs), steps: req.steps, costs: req.costs };
  // The request's statements count nested ones too: blocks stop drawing at this budget.
  const budget = g.statementBudget;
  g.statementBudget = Math.min(budget, g.statements + req.statements);
  try {
    const callee = req.callee === undefined ? undefined : g.funcs.find((f) => f.sig.id === req.callee && f.complete);
    if (callee) {
      g.statements++;
      ctx.stmts.push(callStatement(g, callee));
    }
    while (g.statements < g.statementBudget) {
      g.statements++;
      const s = genStmt(g, opts);
      if (s) ctx.stmts.push(s);
    }
    placePendingLabels(g, ctx);
  } finally {
    g.statementBudget = budget;
    for (const id of counters) g.readOnly.delete(id);
    g.fnStack.pop();
    g.gotoFloor = 0;
    g.globalsFrozen = false;
    g.live = undefined;
    for (const f of hidden) f.complete = true;
  }
  const stmts: Stmt[] = [...ctx.stmts, ...target.stmts.slice(site.position)];
  return { ...target, locals: ctx.locals, stmts };
}

/** `f(args);` or `x = f(args);`: a call to a function the run never entered. */
function callStatement(g: GenContext, callee: FuncInfo): Stmt {
  const { b, rng } = g;
  const args = callee.sig.params.map((p) => {
    g.complexity = rng.int(1, 3);
    return genExpr(g, p.type, g.policy.argumentExpressions);
  });
  const call = b.call(callee.sig, args);
  if (unqualified(callee.sig.ret).kind === 'int' && rng.chance(0.5)) {
    const lv = pickLvalue(g, { anyInt: true, writable: true });
    if (lv && lv.type.kind === 'int') return b.stmt(b.assign(lv, call));
  }
  return b.stmt(call);
}

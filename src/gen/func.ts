import type { IntType } from '../c/types.js';
import type { Expr, VarDecl } from '../ir/nodes.js';
import { isRecord, pointerConvertible, sameType, unqualified, type Type } from '../ir/index.js';
import type { FuncInfo, GenContext } from './context.js';
import { genExpr } from './expr.js';
import { genBlock } from './stmt.js';
import { passableByValue, vectorParamType } from './gnu-vector.js';
import { pointerType } from './types.js';

/**
 * Functions are created on demand, as in Csmith (§3.4): when an expression wants a call and no
 * complete function returns a suitable type, the caller is suspended, the arguments' function is
 * generated, and the caller resumes. Only complete functions are ever called, so the call graph
 * has no cycles.
 */

/** Whether a function returning `ret` can stand where a value of type `want` is needed. */
function returnFits(g: GenContext, ret: Type, want: Type): boolean {
  const r = unqualified(ret);
  const w = unqualified(want);
  if (w.kind === 'int') {
    if (r.kind !== 'int') return false;
    return sameType(r, w) || !g.rng.chance(g.policy.choices.exactType);
  }
  if (w.kind === 'ptr') return r.kind === 'ptr' && pointerConvertible(r, w);
  return sameType(r, w);
}

/** A call returning a value usable as type `want`: an existing complete function, or a new one. */
export function callFunction(g: GenContext, want: Type): Expr | undefined {
  const { rng } = g;
  if (g.fnStack.length === 0) return undefined;
  const candidates = g.funcs.filter((f) => f.complete && f.decl && affordable(g, f) && returnFits(g, f.sig.ret, want));
  const canCreate = g.funcs.length - 1 < g.policy.limits.maxFuncs;
  let callee: FuncInfo | undefined;
  if (candidates.length && (!canCreate || rng.chance(0.5))) callee = rng.pick(candidates);
  else if (canCreate) callee = createFunction(g, unqualified(want));
  if (!callee) return undefined;
  // In code that runs, a call costs the callee's steps each time (a new function's statements are counted as they are
  // drawn).
  const cost = g.live?.costs?.get(callee.sig.id);
  if (g.live && cost !== undefined) g.live.steps -= cost * Math.max(1, g.live.runs);
  g.complexity--;
  const saved = g.complexity;
  const args = callee.sig.params.map((p) => {
    g.complexity = Math.min(saved, 3);
    return genExpr(g, p.type, g.policy.argumentExpressions);
  });
  g.complexity = saved;
  return g.b.call(callee.sig, args);
}

/**
 * Whether code being generated may call `f`. In code that ran (live-guided extension) only
 * functions whose steps per call are known qualify (measured from the profile, or estimated from
 * the code of a function never entered), and only where those steps, times how often the call
 * will run, fit the steps the extension may add: a call costs the callee's whole run, which trip
 * counts alone cannot bound. Measured on seeds 1-60 (medium): without this, a sixth of the
 * interpreter runs ended at the step budget, carrying 40% of all interpreted steps. Functions
 * created by the extension itself are sized for where they are first called, and are not called
 * again in the same round.
 */
function affordable(g: GenContext, f: FuncInfo): boolean {
  const live = g.live;
  if (!live) return true;
  const cost = live.costs?.get(f.sig.id);
  return cost !== undefined && cost * Math.max(1, live.runs) <= live.steps;
}

/** Parameter types: mostly integers, some pointers (Csmith: "parameters are integers or pointers"). */
function paramType(g: GenContext): Type {
  const { rng, policy } = g;
  if (policy.features.pointers && rng.chance(0.2)) return pointerType(g);
  if (g.records.length && rng.chance(0.05)) {
    const r = rng.pick(g.records);
    if (passableByValue(r)) return r;
  }
  return vectorParamType(g) ?? g.intType();
}

/** Generates a complete new function returning `ret` (suspending the function under construction). */
export function createFunction(g: GenContext, ret: Type, opts: { name?: string; noParams?: boolean } = {}): FuncInfo {
  const { rng, b, policy } = g;
  const nParams = opts.noParams ? 0 : rng.int(0, Math.max(0, policy.limits.maxParams));
  const params: VarDecl[] = [];
  for (let i = 0; i < nParams; i++) params.push(b.param(g.name('p_'), paramType(g)));
  const info: FuncInfo = {
    sig: { id: b.id(), name: opts.name ?? g.name('func_'), ret, params },
    decl: undefined,
    complete: false,
  };
  g.funcs.push(info);
  const savedComplexity = g.complexity;
  // A goto floor belongs to the function being extended, not to one begun from inside it.
  const savedFloor = g.gotoFloor;
  g.gotoFloor = 0;
  g.fnStack.push({ info, params, blocks: [], loops: [] });
  const body = genBlock(g, {
    inLoop: false,
    ret: isRecord(ret) || ret.kind !== 'void' ? ret : undefined,
    functionBody: true,
  });
  g.fnStack.pop();
  g.gotoFloor = savedFloor;
  g.complexity = savedComplexity;
  info.decl = b.func(info.sig.name, ret, params, body, info.sig.id, true, rng.chance(policy.choices.inlineFunction));
  info.complete = true;
  return info;
}

/** An integer return type for a new function. */
export function returnType(g: GenContext): IntType {
  return g.intType();
}

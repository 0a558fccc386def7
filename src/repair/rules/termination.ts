import type { IntType } from '../../c/types.js';
import type { Block, Expr, ForStmt, Node, Program, Stmt } from '../../ir/nodes.js';
import { unqualified } from '../../ir/types.js';
import type { Profile } from '../../interp/interpret.js';
import { zeroOf, type Editor } from '../edit.js';
import { children, isStmt, walk } from '../../ir/visit.js';
import { repaired, type Repaired, type RepairState } from '../state.js';

/**
 * Non-termination (the step budget ran out). The profile shows which loops ran and how often:
 *
 * - a loop that iterated more often per entry than its header allows (`for (v = c0; v < c1;
 *   v += s)` runs at most |c1 − c0| / s times) has a body that writes its induction variable:
 *   it gets a fresh induction variable, so the body keeps its code but can no longer reset the
 *   count (all such loops are fixed in one go);
 * - otherwise every hot loop (at least 5% of all iterations) has its trip count shrunk to an
 *   eighth, or is removed if it was shrunk before, and every hot backward goto is removed (a
 *   computed goto, `goto *tbl[i]`, counts as a goto here and below);
 * - without a hot loop or goto, calls in the most executed statements become plain values, and
 *   failing that the most executed goto is removed.
 *
 * Live-guided extension passes the first id of the round's code as `floor`: loops, gotos and calls
 * older than the round are then left alone (new code made them hot; the round's own loops are
 * shrunk, or the round is dropped). Measured on seeds 1-60 (medium): shrinking older loops took
 * a fifth of the steps out of programs that had been clean before the round.
 */
export function repairTermination(ed: Editor, profile: Profile, st: RepairState, floor = 0): Repaired | undefined {
  let last: Program | undefined;
  for (const [id, iters] of profile.loopIters) {
    const loop = ed.find(id);
    if (loop?.kind !== 'for') continue;
    const trip = staticTrip(loop);
    const entries = Math.max(1, profile.stmtCounts.get(id) ?? 1);
    if (trip !== undefined && iters / entries > trip + 1 && st.attempts(id) === 0) {
      const p = freshInductionVariable(ed, loop);
      if (p) {
        st.touch(id);
        last = p;
      }
    }
  }
  if (last) return repaired(last, 'fresh-induction-variable');
  // Everything hot at once: each further run that hits the budget is the costliest kind of run.
  const total = [...profile.loopIters.values()].reduce((a, b) => a + b, 0);
  const hotLoops = [...profile.loopIters]
    .filter(([id, n]) => id >= floor && n >= HOT_SHARE * total && ed.find(id)?.kind === 'for')
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_PER_RUN);
  const hotGotos = [...profile.stmtCounts].filter(
    ([id, n]) => id >= floor && isGoto(ed.find(id)) && n >= HOT_SHARE * profile.steps,
  );
  let rule: string | undefined;
  for (const [id] of hotGotos) {
    const p = ed.replace(id, () => ed.b.block([]));
    if (p) [last, rule] = [p, 'remove-hot-goto'];
  }
  for (const [id] of hotLoops) {
    const loop = ed.find(id) as ForStmt | undefined;
    if (!loop) continue; // removed with an enclosing hot loop
    const shrunk = st.attempts(id) === 0 ? shrinkTripCount(ed, loop) : undefined;
    st.touch(id);
    const p = shrunk ?? ed.replace(id, (old) => emptied(ed, old));
    if (p) [last, rule] = [p, shrunk ? 'shrink-loop-trip-count' : 'remove-hot-loop'];
  }
  if (rule) return repaired(last, rule);
  const calls = replaceHotCalls(ed, profile, floor);
  if (calls) return calls;
  // A backward goto whose loop spreads its steps over many statements: no goto carries 5% of
  // them, so the most executed one goes (seed 127 at the medium defaults: a goto loop run 714
  // times over some 40 statements, discarded before this).
  const gotos = [...profile.stmtCounts]
    .filter(([id]) => id >= floor && isGoto(ed.find(id)))
    .sort((a, b) => b[1] - a[1]);
  const top = gotos[0];
  return top
    ? repaired(
        ed.replace(top[0], () => ed.b.block([])),
        'remove-hot-goto',
      )
    : undefined;
}

/** Whether a node is a goto, plain or computed (an empty block in its place falls through). */
function isGoto(n: Node | undefined): boolean {
  return n?.kind === 'goto' || n?.kind === 'igoto';
}

/**
 * An empty statement in place of `old` that keeps the jump targets inside it: its goto labels, and
 * the case labels of the switch around it (not those of a switch inside it), in order. Gotos of a
 * goto region enter loops in the middle, and a switch maze has case labels inside loops: removing
 * such a loop must leave those jumps somewhere to land.
 */
function emptied(ed: Editor, old: Node): Block {
  const targets: Stmt[] = [];
  const visit = (n: Node, ownSwitch: boolean): void => {
    if (n.kind === 'label' || (n.kind === 'case' && ownSwitch)) targets.push(n);
    if (!isStmt(n)) return;
    for (const c of children(n)) visit(c, ownSwitch && n.kind !== 'switch');
  };
  visit(old, true);
  return ed.b.block(targets);
}

/**
 * Without a hot loop, the steps come from call fan-out (a function calling another from several
 * places, down a chain): the call sites in the most-executed statements become plain values.
 */
function replaceHotCalls(ed: Editor, profile: Profile, floor: number): Repaired | undefined {
  const max = Math.max(0, ...profile.stmtCounts.values());
  // Fan-out spreads the steps over many statements, each run as often as the deepest callee.
  const hot = [...profile.stmtCounts].filter(([, n]) => n >= max / 2).sort((a, b) => b[1] - a[1]);
  let last: Program | undefined;
  let replaced = 0;
  for (const [id] of hot) {
    const stmt = ed.find(id);
    if (!stmt || stmt.kind === 'block' || stmt.kind === 'for' || stmt.kind === 'if') continue;
    for (const call of callsIn(stmt)) {
      if (call.id < floor || (call.type.kind !== 'int' && call.type.kind !== 'ptr' && call.type.kind !== 'float'))
        continue;
      const p = ed.replace(call.id, () => zeroOf(ed, call.type));
      if (p) {
        last = p;
        replaced++;
      }
    }
    if (replaced >= MAX_PER_RUN) break;
  }
  return repaired(last, 'replace-hot-call');
}

function callsIn(n: Node): (Expr & { kind: 'call' })[] {
  const out: (Expr & { kind: 'call' })[] = [];
  walk(n, (x) => {
    if (x.kind === 'call') {
      out.push(x);
      return false;
    }
    return isStmt(x) && x.id !== n.id ? false : undefined;
  });
  return out;
}

/** A loop (or goto) doing at least this share of all iterations (steps) counts as hot. */
const HOT_SHARE = 0.05;
/** At most this many loops are changed for one budget overrun. */
const MAX_PER_RUN = 8;

/** The header's analysable shape: `v = c0`, `v cmp c1`, and a constant step on `v`. */
interface Header {
  readonly decl: number;
  readonly c0: bigint;
  readonly c1: bigint;
  readonly step: bigint;
}

function header(loop: ForStmt): Header | undefined {
  const { init, cond, step } = loop;
  if (
    !init ||
    !cond ||
    !step ||
    init.kind !== 'assign' ||
    init.op !== '=' ||
    init.target.kind !== 'var' ||
    init.value.kind !== 'const'
  )
    return undefined;
  if (
    cond.kind !== 'binary' ||
    cond.left.kind !== 'var' ||
    cond.left.decl !== init.target.decl ||
    cond.right.kind !== 'const'
  )
    return undefined;
  const decl = init.target.decl;
  let s: bigint | undefined;
  if (step.kind === 'incdec' && step.target.kind === 'var' && step.target.decl === decl) s = 1n;
  else if (
    step.kind === 'assign' &&
    step.target.kind === 'var' &&
    step.target.decl === decl &&
    step.value.kind === 'const' &&
    (step.op === '+=' || step.op === '-=')
  ) {
    s = step.value.value as bigint;
  }
  if (s === undefined || s === 0n) return undefined;
  return { decl, c0: init.value.value as bigint, c1: cond.right.value as bigint, step: s < 0n ? -s : s };
}

/** Iterations the header allows per entry, when it has Kiln's generated shape. */
export function staticTrip(loop: ForStmt): number | undefined {
  const h = header(loop);
  if (!h) return undefined;
  const span = h.c1 > h.c0 ? h.c1 - h.c0 : h.c0 - h.c1;
  return Number(span / h.step) + 1;
}

/** Rewrites the header to count with a new local declared in the enclosing block. */
function freshInductionVariable(ed: Editor, loop: ForStmt): Program | undefined {
  const h = header(loop);
  const fn = ed.functionOf(loop.id);
  if (!h || !fn) return undefined;
  const t = unqualified((loop.init as Expr & { kind: 'assign' }).target.type) as IntType;
  const v = ed.b.local(`i_r${ed.b.nextId}`, t);
  const swap = (e: Expr | undefined): Expr | undefined => {
    if (!e) return e;
    const rec = (x: Expr): Expr => (x.kind === 'var' && x.decl === h.decl ? ed.b.v(v) : x);
    switch (e.kind) {
      case 'assign':
        return { ...e, target: rec(e.target) };
      case 'binary':
        return { ...e, left: rec(e.left) };
      case 'incdec':
        return { ...e, target: rec(e.target) };
      default:
        return e;
    }
  };
  if (!ed.replace(loop.id, () => ({ ...loop, init: swap(loop.init), cond: swap(loop.cond), step: swap(loop.step) })))
    return undefined;
  // Declared (uninitialised, as before) at the top of the function: the loop's own block may be a
  // switch body, which declares nothing (a Duff's-device loop sits directly in one).
  return ed.replace(fn.body.id, (old) => ({ ...(old as Block), locals: [...(old as Block).locals, v] }));
}

/** `for (v = c0; v cmp c1; …)` → the same with c1 moved toward c0 (an eighth of the distance). */
function shrinkTripCount(ed: Editor, loop: ForStmt): Program | undefined {
  const h = header(loop);
  const cond = loop.cond;
  if (!h || !cond || cond.kind !== 'binary' || cond.right.kind !== 'const') return undefined;
  const next = h.c0 + (h.c1 - h.c0) / 8n;
  if (next === h.c1) return undefined;
  const bound = cond.right;
  return ed.replace(bound.id, () => ed.b.lit(next, bound.type));
}

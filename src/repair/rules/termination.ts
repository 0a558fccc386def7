import type { ForStmt } from '../../ir/nodes.js';
import type { Profile } from '../../interp/interpret.js';
import type { Editor } from '../edit.js';
import type { Repaired, RepairState } from '../state.js';

/**
 * Non-termination (the step budget ran out). The culprit is the loop that iterated most, or a
 * backward goto that ran most: a loop first has its trip count shrunk (its bound moved toward
 * its start); a loop that stays hot, or any goto, is removed.
 */
export function repairTermination(ed: Editor, profile: Profile, st: RepairState): Repaired | undefined {
  let best: { id: number; count: number; kind: 'for' | 'goto' } | undefined;
  for (const [id, count] of profile.loopIters) {
    if (!best || count > best.count) best = { id, count, kind: 'for' };
  }
  for (const [id, count] of profile.stmtCounts) {
    const n = ed.find(id);
    if (n?.kind === 'goto' && (!best || count > best.count)) best = { id, count, kind: 'goto' };
  }
  if (!best) return undefined;
  if (best.kind === 'goto') return { program: ed.replace(best.id, () => ed.b.block([])), rule: 'remove-hot-goto' };
  const loop = ed.node(best.id) as ForStmt;
  if (st.attempts(loop.id) === 0) {
    const shrunk = shrinkTripCount(ed, loop);
    if (shrunk) return { program: shrunk, rule: 'shrink-loop-trip-count' };
  }
  return { program: ed.replace(loop.id, () => ed.b.block([])), rule: 'remove-hot-loop' };
}

/** `for (v = c0; v cmp c1; …)` → the same with c1 moved toward c0 (an eighth of the distance). */
function shrinkTripCount(ed: Editor, loop: ForStmt) {
  const { init, cond } = loop;
  if (!init || !cond || init.kind !== 'assign' || init.value.kind !== 'const' || cond.kind !== 'binary' || cond.right.kind !== 'const') return undefined;
  const c0 = init.value.value as bigint;
  const c1 = cond.right.value as bigint;
  if (typeof c0 !== 'bigint' || typeof c1 !== 'bigint') return undefined;
  const next = c0 + (c1 - c0) / 8n;
  if (next === c1) return undefined;
  const bound = cond.right;
  return ed.replace(bound.id, () => ed.b.lit(next, bound.type));
}

import type { Program } from '../ir/nodes.js';
import { holdsJumpTarget, rewriteStmts } from './edit.js';
import type { PassContext, PassResult } from './pass.js';

/**
 * Orion: deletes statements the base never executed, each with probability `probability`
 * (drawn per variant by the driver). Statements holding a label or `case` stay: a jump may
 * target them. Main is the checksum harness and is left alone.
 */
export function orion(p: Program, cx: PassContext, probability: number): PassResult {
  let applied = 0;
  const counts = cx.base.profile.stmtCounts;
  const program = rewriteStmts(p, (s, fn) => {
    if (fn.id === p.main || s.id >= cx.base.baseNextId || counts.has(s.id)) return undefined;
    if (s.kind === 'case' || s.kind === 'label' || holdsJumpTarget(s)) return undefined;
    // A block that ran through a goto into it has no count of its own; its statements do.
    if (s.kind === 'block' && s.stmts.some((x) => counts.has(x.id))) return undefined;
    if (!cx.rng.chance(probability)) return undefined;
    applied++;
    return [];
  });
  return { program, applied };
}

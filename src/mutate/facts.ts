import type { Program, Stmt } from '../ir/nodes.js';
import type { Site } from './env.js';
import { rewriteBlocks, rewriteStmts } from './edit.js';
import { isDeadBlock, unreachableStmt, type PassContext, type PassResult } from './pass.js';
import { synthesizePredicate } from './predicate.js';

/**
 * Facts the interpreter proved (no EMI tool has these): at each site, `if (!(P)) __builtin_unreachable();`
 * or `__builtin_assume(P);` with P true for every value observed there.
 */
export function siteFacts(p: Program, cx: PassContext, sites: readonly Site[]): PassResult {
  const { b, rng } = cx;
  const before = new Map<number, Stmt>();
  for (const site of sites) {
    const cond = synthesizePredicate(b, rng, site.env, true);
    if (!cond) continue;
    before.set(
      site.stmt,
      rng.chance(0.5) ? b.if(b.un('!', cond), b.block([unreachableStmt(b)])) : { kind: 'assume', id: b.id(), cond },
    );
  }
  const program = rewriteStmts(p, (s) => {
    const snippet = before.get(s.id);
    return snippet ? [snippet, s] : undefined;
  });
  return { program, applied: before.size };
}

/**
 * `__builtin_unreachable();` at the top of blocks the base never ran (each with `probability`),
 * and `__builtin_expect` hints on ifs: on ifs that ran, the side taken more often (right) or
 * the other (wrong), half each; on ifs that never ran, either.
 */
export function deadFacts(p: Program, cx: PassContext, probability: number): PassResult {
  const { rng, base } = cx;
  const counts = base.profile.stmtCounts;
  let applied = 0;
  const switches = switchBodies(p);
  const withUnreachable = rewriteBlocks(p, (blk, fn) => {
    if (fn.id === p.main || !isDeadBlock(base, blk) || switches.has(blk.id) || !rng.chance(probability)) return blk;
    applied++;
    return { ...blk, stmts: [unreachableStmt(cx.b), ...blk.stmts] };
  });
  const program = rewriteStmts(withUnreachable, (s, fn) => {
    if (s.kind !== 'if' || fn.id === p.main || s.id >= base.baseNextId || !rng.chance(probability)) return undefined;
    const runs = counts.get(s.id) ?? 0;
    const thenRuns = counts.get(s.then.id) ?? 0;
    const likely: 0 | 1 = runs === 0 ? (rng.chance(0.5) ? 1 : 0) : thenRuns * 2 >= runs ? 1 : 0;
    const expect: 0 | 1 = rng.chance(0.5) ? likely : likely === 1 ? 0 : 1;
    applied++;
    return [{ ...s, expect }];
  });
  return { program, applied };
}

/** Ids of switch bodies (entered through their labels, so their own count stays zero). */
function switchBodies(p: Program): Set<number> {
  const out = new Set<number>();
  rewriteStmts(p, (s) => {
    if (s.kind === 'switch') out.add(s.body.id);
    return undefined;
  });
  return out;
}

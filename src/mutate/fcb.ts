import type { Program, Stmt } from '../ir/nodes.js';
import type { Site } from './env.js';
import { rewriteStmts } from './edit.js';
import { unreachableStmt, type PassContext, type PassResult } from './pass.js';
import { synthesizePredicate } from './predicate.js';
import { deadCode } from './synth.js';

/**
 * Hermes FCB (false conditional block): before each site's statement, `if (P) { … }` or
 * `while (P) { … }` with P false for every value observed there, so the block never runs. Its
 * body is dead code over the site's variables, undefined if it ran; with `unreachable`, the body
 * may also state `__builtin_unreachable()` (counted in `facts`).
 */
export function fcb(
  p: Program,
  cx: PassContext,
  sites: readonly Site[],
  unreachable: boolean,
): PassResult & { readonly facts: number } {
  const { b, rng } = cx;
  const before = new Map<number, Stmt>();
  let facts = 0;
  for (const site of sites) {
    const cond = synthesizePredicate(b, rng, site.env, false);
    if (!cond) continue;
    const body = deadCode(b, rng, site.env);
    if (unreachable && rng.chance(0.3)) {
      body.push(unreachableStmt(b));
      facts++;
    }
    const blk = b.block(body);
    before.set(site.stmt, rng.chance(0.7) ? b.if(cond, blk) : b.for(undefined, cond, undefined, blk, 'while'));
  }
  const program = rewriteStmts(p, (s) => {
    const snippet = before.get(s.id);
    return snippet ? [snippet, s] : undefined;
  });
  return { program, applied: before.size, facts };
}

import type { Expr, Program } from '../ir/nodes.js';
import type { Site } from './env.js';
import { rewriteStmts } from './edit.js';
import type { PassContext, PassResult } from './pass.js';
import { synthesizePredicate } from './predicate.js';

/** Hermes TG (true guard): each site's statement `s` becomes `if (P) { s }`, P true for every value observed there. */
export function tg(p: Program, cx: PassContext, sites: readonly Site[]): PassResult {
  const guards = new Map<number, Expr>();
  for (const site of sites) {
    const cond = synthesizePredicate(cx.b, cx.rng, site.env, true);
    if (cond) guards.set(site.stmt, cond);
  }
  const program = rewriteStmts(p, (s) => {
    const cond = guards.get(s.id);
    return cond ? [cx.b.if(cond, cx.b.block([s]))] : undefined;
  });
  return { program, applied: guards.size };
}

import { unqualified, type IntT } from '../ir/types.js';
import type { Program, Stmt } from '../ir/nodes.js';
import { access, type Observable, type Site } from './env.js';
import { rewriteStmts } from './edit.js';
import type { PassContext, PassResult } from './pass.js';
import { synthesizePredicate } from './predicate.js';
import { deadCode } from './synth.js';

/**
 * Hermes TCB (true conditional block, Fig. 4): before each site's statement, save a live
 * variable, give it a new value under a guard true for every observed value, use it in a block
 * that never runs (which keeps the new value live for the optimiser), and restore it:
 *
 *     { T save = v; if (P_true) { v = (T)(w ^ K); if (P_false) { … } } v = save; }
 *
 * The new value is UB-free by construction (`^` of integers and a conversion are always
 * defined), so no value-set speculation is needed; the proof run checks it anyway.
 */
export function tcb(p: Program, cx: PassContext, sites: readonly Site[]): PassResult {
  const { b, rng } = cx;
  const before = new Map<number, Stmt>();
  for (const site of sites) {
    // Only the function's own automatic variables: a global written and restored inside a call
    // is still a write the caller's expression may race with (the interpreter's order rule).
    const targets = site.env.filter(
      (o) =>
        o.writable &&
        o.values.length > 0 &&
        (o.decl.storage === 'local' || o.decl.storage === 'param') &&
        !o.decl.isStatic,
    );
    if (!targets.length) continue;
    const v = rng.pick(targets);
    const guard = synthesizePredicate(b, rng, site.env, true);
    // After the assignment v's observed values no longer hold: the dead guard avoids it.
    const others = site.env.filter((o) => o !== v && !sameObject(o, v));
    const dead = synthesizePredicate(b, rng, others, false);
    if (!guard || !dead) continue;
    const t = unqualified(v.type) as IntT;
    const save = b.local(`kiln_save_${b.nextId}`, t, access(b, v));
    const w = rng.pick(site.env.filter((o) => o.values.length > 0));
    const k = BigInt(rng.int(1, 0x7fff));
    const value = b.cast(t, b.bin('^', access(b, w), b.lit(k)));
    const use = deadCode(b, rng, [v, ...others], 2);
    const inner = b.if(guard, b.block([b.stmt(b.assign(access(b, v), value)), b.if(dead, b.block(use))]));
    const restore = b.stmt(b.assign(access(b, v), b.v(save)));
    before.set(site.stmt, b.block([inner, restore], [save]));
  }
  const program = rewriteStmts(p, (s) => {
    const snippet = before.get(s.id);
    return snippet ? [snippet, s] : undefined;
  });
  return { program, applied: before.size };
}

/** Whether two observables name the same variable (a write to one may change the other's cells). */
function sameObject(a: Observable, b: Observable): boolean {
  return a.decl.id === b.decl.id;
}

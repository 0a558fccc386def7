import type { BinaryOp } from '../c/ops.js';
import type { IRBuilder } from '../ir/build.js';
import type { Expr, Stmt } from '../ir/nodes.js';
import type { Rng } from '../random/rng.js';
import { access, type Observable } from './env.js';

/**
 * Code for places that never run (FCB bodies, Athena's insertions into dead regions). It never
 * executes, so it may be undefined if it did (Hermes §2.4): divisions, shifts and overflowing
 * arithmetic on any values, and array elements past the end by constant index, the shape of
 * GCC bug 66186 (a trapping access hoisted out of a dead branch).
 */

const OPS: readonly BinaryOp[] = ['+', '-', '*', '/', '%', '<<', '>>', '&', '|', '^', '<', '==', '!='];

/** One to `max` statements over `env` (assignments to writable observables); empty when nothing is writable. */
export function deadCode(b: IRBuilder, rng: Rng, env: readonly Observable[], max = 3): Stmt[] {
  const targets = env.filter((o) => o.writable);
  if (!targets.length) return [];
  const out: Stmt[] = [];
  const n = rng.int(1, max);
  for (let i = 0; i < n; i++) {
    const t = rng.pick(targets);
    const value = expr(b, rng, env, rng.int(0, 2));
    try {
      out.push(b.stmt(b.assign(outOfBounds(b, rng, t) ?? access(b, t), value, rng.chance(0.3) ? '^=' : '=')));
    } catch {
      // A type the builder refuses (e.g. a narrower compound target): skip this one.
    }
  }
  return out;
}

function expr(b: IRBuilder, rng: Rng, env: readonly Observable[], depth: number): Expr {
  if (depth === 0 || rng.chance(0.2)) {
    if (!env.length || rng.chance(0.3)) return b.lit(BigInt(rng.int(-8, 255)));
    const o = rng.pick(env);
    return (rng.chance(0.2) ? outOfBounds(b, rng, o) : undefined) ?? access(b, o);
  }
  return b.bin(rng.pick(OPS), expr(b, rng, env, depth - 1), expr(b, rng, env, depth - 1));
}

/** The observable's access with its last constant index moved past the array's end, when it has one. */
function outOfBounds(b: IRBuilder, rng: Rng, o: Observable): Expr | undefined {
  const last = o.path.map((s) => 'index' in s).lastIndexOf(true);
  if (last < 0) return undefined;
  let e = b.v(o.decl);
  for (let i = 0; i < o.path.length; i++) {
    const s = o.path[i]!;
    if ('index' in s) {
      const len = e.type.kind === 'array' ? e.type.length : s.index + 1;
      e = b.idx(e, b.lit(i === last ? len + rng.int(0, 7) : s.index));
    } else e = b.fld(e, s.field);
  }
  return e;
}

import { usualArithmeticInt } from '../c/types.js';
import type { IRBuilder } from '../ir/build.js';
import type { Expr } from '../ir/nodes.js';
import type { Rng } from '../random/rng.js';
import { access, promotedRange, type Observable } from './env.js';

/**
 * Predicate synthesis (Hermes Algorithm 2): a condition over the observables of a point that has
 * a required truth value for every value observed there. Depth is drawn in [0, 2]; each level
 * picks negation, conjunction, disjunction or an atom; atoms compare an observable with a
 * constant, or two observables, chosen so the comparison holds for every observed value (every
 * pair, for two observables: the profile records sets, not joint states, so this is sound).
 */

/** A predicate whose value is `want` at every observed state, or undefined when `env` has no observed values. */
export function synthesizePredicate(
  b: IRBuilder,
  rng: Rng,
  env: readonly Observable[],
  want: boolean,
  depth = rng.int(0, 2),
): Expr | undefined {
  const usable = env.filter((o) => o.values.length > 0);
  if (!usable.length) return undefined;
  return pred(b, rng, usable, want, depth);
}

function pred(b: IRBuilder, rng: Rng, env: readonly Observable[], want: boolean, d: number): Expr {
  if (d === 0) return atom(b, rng, env, want);
  switch (rng.int(0, 3)) {
    case 0:
      return b.un('!', pred(b, rng, env, !want, d - 1));
    case 1: {
      // want true: both true; want false: left true and right false, or left false and right anything.
      if (want) return b.bin('&&', pred(b, rng, env, true, d - 1), pred(b, rng, env, true, d - 1));
      if (rng.chance(0.5)) return b.bin('&&', pred(b, rng, env, true, d - 1), pred(b, rng, env, false, d - 1));
      return b.bin('&&', pred(b, rng, env, false, d - 1), pred(b, rng, env, rng.chance(0.5), d - 1));
    }
    case 2: {
      if (!want) return b.bin('||', pred(b, rng, env, false, d - 1), pred(b, rng, env, false, d - 1));
      if (rng.chance(0.5)) return b.bin('||', pred(b, rng, env, false, d - 1), pred(b, rng, env, true, d - 1));
      return b.bin('||', pred(b, rng, env, true, d - 1), pred(b, rng, env, rng.chance(0.5), d - 1));
    }
    default:
      return atom(b, rng, env, want);
  }
}

type Cmp = '<' | '<=' | '>' | '>=' | '==' | '!=';

/**
 * An atom with value `want` for every observed value: an observable against a constant, or against another observable.
 */
function atom(b: IRBuilder, rng: Rng, env: readonly Observable[], want: boolean): Expr {
  const o = rng.pick(env);
  if (env.length > 1 && rng.chance(0.3)) {
    const other = pairAtom(b, rng, o, rng.pick(env), want);
    if (other) return other;
  }
  const { min: tmin, max: tmax, type } = promotedRange(o);
  const lo = o.values[0]!;
  const hi = o.values[o.values.length - 1]!;
  const absent = absentValue(rng, o.values, tmin, tmax);
  const options: Array<[Cmp, bigint]> = [];
  if (want) {
    options.push(['<=', hi], ['>=', lo]);
    if (hi < tmax) options.push(['<', hi + 1n]);
    if (lo > tmin) options.push(['>', lo - 1n]);
    if (absent !== undefined) options.push(['!=', absent]);
    if (lo === hi) options.push(['==', lo]);
  } else {
    if (hi < tmax) options.push(['>', hi], ['>=', hi + 1n]);
    if (lo > tmin) options.push(['<', lo], ['<=', lo - 1n]);
    if (absent !== undefined) options.push(['==', absent]);
    if (lo === hi) options.push(['!=', lo]);
  }
  if (!options.length) {
    // Every value of the type was observed: compare the observable with itself.
    const e = access(b, o);
    return b.bin(want ? '==' : '!=', e, access(b, o));
  }
  const [op, c] = rng.pick(options);
  const e = access(b, o);
  const k = b.lit(c, type);
  return rng.chance(0.5) ? b.bin(op, e, k) : b.bin(flip(op), k, e);
}

/** `a OP b` over two observables, true (or false) for every pair of observed values; undefined when none fits. */
function pairAtom(b: IRBuilder, rng: Rng, x: Observable, y: Observable, want: boolean): Expr | undefined {
  if (x === y) return undefined;
  // Compared in the usual arithmetic type: mathematical comparison only if no negative value meets an unsigned type.
  const common = usualArithmeticInt(promotedRange(x).type, promotedRange(y).type);
  const negative = x.values[0]! < 0n || y.values[0]! < 0n;
  if (!common.signed && negative) return undefined;
  const xlo = x.values[0]!;
  const xhi = x.values[x.values.length - 1]!;
  const ylo = y.values[0]!;
  const yhi = y.values[y.values.length - 1]!;
  let op: Cmp | undefined;
  if (xhi < ylo) op = want ? rng.pick(['<', '<=', '!='] as const) : rng.pick(['>', '>=', '=='] as const);
  else if (xlo > yhi) op = want ? rng.pick(['>', '>=', '!='] as const) : rng.pick(['<', '<=', '=='] as const);
  else if (xhi <= ylo) op = want ? '<=' : '>';
  else if (xlo >= yhi) op = want ? '>=' : '<';
  if (!op) return undefined;
  return b.bin(op, access(b, x), access(b, y));
}

function flip(op: Cmp): Cmp {
  switch (op) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
    default:
      return op;
  }
}

/** A value of the range that was never observed (near the observed ones, or random), if any. */
function absentValue(rng: Rng, values: readonly bigint[], min: bigint, max: bigint): bigint | undefined {
  const seen = new Set(values);
  const tries = [
    values[values.length - 1]! + 1n,
    values[0]! - 1n,
    rng.bigint(-1000n, 1000n),
    values[0]! + BigInt(rng.int(2, 100)),
  ];
  for (const t of tries) if (t >= min && t <= max && !seen.has(t)) return t;
  return undefined;
}

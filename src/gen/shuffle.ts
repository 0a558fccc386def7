import type { Rng } from '../random/rng.js';
import type { Policy } from './policy.js';

/**
 * Features swarm testing may switch off for a program (Csmith §7.2.2 toggles comma, compound and embedded assignment,
 * ++/--, goto, 64-bit math).
 */
const SWARM_FEATURES = [
  'goto',
  'comma',
  'embeddedAssign',
  'incDec',
  'compoundAssign',
  'math64',
  'pointers',
  'structs',
  'unions',
  'loops',
  'volatile',
  'const',
  'conditional',
  'casts',
  'bitfields',
  'cfg',
] as const satisfies readonly (keyof Policy['features'])[];

/**
 * Scales each weight of `group` by 2^u (u uniform in [-1, 1]: half to twice) and rescales them so
 * they keep their base total: the mix within the group changes, the group's share does not.
 */
function shuffleGroup<T extends Record<string, number>>(w: T, group: readonly (keyof T)[], r: Rng, out: T): void {
  const total = group.reduce((a, k) => a + w[k], 0);
  const drawn = group.map((k) => w[k] * 2 ** (r.float() * 2 - 1));
  const sum = drawn.reduce((a, b) => a + b, 0);
  for (const [i, k] of group.entries()) (out[k] as number) = sum > 0 ? (drawn[i]! * total) / sum : w[k];
}

/**
 * Statement weights are shuffled within three groups: the mix changes (if against switch, for
 * against array loops, assignment against goto) but the share of loops, and of compound
 * statements, which decides how deep blocks nest and so the program's size, does not; `return`
 * (which ends blocks) keeps its weight. Each weight moves by a factor of half to twice, like the
 * others: a wider range (a quarter to four times) starved many programs of loops, where most
 * optimisations fire. Loops keep their share since shuffling them against `if` and `switch` too
 * left less code inside loops per line, though each weight's mean is unmoved: on the IR of 200
 * programs, shuffling alone left loop bodies 6% fewer operations, 14% fewer calls and 7% fewer
 * stores per line than no shuffling; with the loop share kept, 2%, 8% and 2%.
 */
function shuffleStatements(w: Policy['statements'], r: Rng, cfg: boolean): Policy['statements'] {
  const out = { ...w };
  shuffleGroup(w, ['if', 'switch'], r, out);
  shuffleGroup(w, ['for', 'arrayLoop'], r, out);
  shuffleGroup(w, ['assign', 'goto', 'break', 'continue'], r, out);
  // Drawn only with the shapes on, so that programs without them are the programs of before.
  if (cfg) shuffleGroup(w, ['region', 'switchMaze', 'ivLoop'], r, out);
  return out;
}

/**
 * Expression weights are shuffled around the call production: it keeps its share (it makes the
 * operations, so it decides how large expressions grow, and it makes the user calls), and the
 * other kinds (variable, constant, comma, embedded assignment) are shuffled as a group.
 * Shuffling all five let the call share fall in some programs more than it rose in others
 * (it is the dominant weight), and bench:policy measured fewer calls, so fewer inlining
 * decisions, per line.
 */
function shuffleExpressions(w: Policy['expressions'], r: Rng): Policy['expressions'] {
  const out = { ...w };
  shuffleGroup(w, ['variable', 'constant', 'comma', 'assign'], r, out);
  return out;
}

/** Probabilities (not weights) that shuffling may move, with the factor kept in [0, 1]. */
const SHUFFLED_SHARES = [
  'exactType',
  'arrayShare',
  'recordShare',
  'pointerShare',
  'classicTypeNames',
  'specialConstant',
  'loopVarIndex',
] as const satisfies readonly (keyof Policy['choices'])[];

/**
 * The policy one program is drawn with: YARPGen's parameter shuffling draws the distributions
 * themselves at random (each weight scaled by 2^u, u uniform in [-1, 1]: from half to twice the
 * base; shares by up to 2^±0.5), and swarm testing switches some optional features off. The
 * share of user calls is not shuffled: calls dominate interpretation and repair costs. Uses its own random
 * stream, so the rest of generation stays aligned when these policies are switched off.
 */
export function programPolicy(base: Policy, rng: Rng): Policy {
  const r = rng.fork('policy');
  const pol = base.policies;
  let p = base;
  if (pol.shuffle) {
    // Copies keep the base objects' shape (spread, then assign): the generator reads these weights
    // in its hottest paths, and objects built from entries are much slower to read.
    const scale = <T extends Record<string, number>>(w: T): T => {
      const out = { ...w };
      for (const k of Object.keys(out) as (keyof T)[]) (out[k] as number) = (w[k] as number) * 2 ** (r.float() * 2 - 1);
      return out;
    };
    const choices = { ...p.choices };
    for (const k of SHUFFLED_SHARES) choices[k] = Math.min(1, choices[k] * 2 ** (r.float() - 0.5));
    p = {
      ...p,
      statements: shuffleStatements(p.statements, r, p.features.cfg),
      expressions: shuffleExpressions(p.expressions, r),
      argumentExpressions: shuffleExpressions(p.argumentExpressions, r),
      scopes: scale(p.scopes),
      operators: scale(p.operators),
      choices,
    };
  }
  if (pol.swarm > 0) {
    const features = { ...p.features };
    for (const f of SWARM_FEATURES) if (features[f] && r.chance(pol.swarm)) features[f] = false;
    p = { ...p, features };
  }
  return p;
}

/**
 * How the program prints its safe-math wrappers (CsmithEdge draws functions, macros or a mix, a
 * third each): `mix` with `choices.mixedSafeMath`, else macros with `choices.macroSafeMath`. One
 * draw, as when only the second choice existed, so the rest of the program is unchanged by it.
 */
export function drawSafeMathForm(rng: Rng, policy: Policy): 'function' | 'macro' | 'mix' {
  const mix = policy.choices.mixedSafeMath;
  const macro = policy.choices.macroSafeMath;
  if (mix <= 0) return rng.chance(macro) ? 'macro' : 'function';
  if (mix >= 1) return 'mix';
  const u = rng.float();
  if (u < mix) return 'mix';
  return (u - mix) / (1 - mix) < macro ? 'macro' : 'function';
}

import { intMax, intMin, type IntType } from '../c/types.js';
import type { Expr, Program } from '../ir/nodes.js';
import { unqualified } from '../ir/types.js';
import { walkProgram } from '../ir/visit.js';
import { CompiledProgram, interpret, type RunOutcome } from '../interp/interpret.js';
import { VARIED } from '../interp/runtime.js';
import { Rng } from '../random/rng.js';
import { Editor } from './edit.js';

/**
 * Values at the edge. 18 of Reify's 41 GCC bugs need arithmetic that lands exactly on a type's
 * limit without crossing it, which Reify gets from its solver. Kiln's interpreter knows every
 * operand on the executed path: after the last clean run, an addition or subtraction with a
 * constant operand whose other operand held one value throughout the run gets a new constant, so
 * that its result is exactly the type's maximum or minimum (or, for an unsigned type, wraps by
 * exactly one, to 0 or to the maximum). The program is run again after each rewrite and the
 * rewrite kept only when the run is clean; the last clean run's output is the expected one.
 */

/** A site: `e + c`, `c + e`, `e - c` or `c - e` whose operand `e` had one value, in type `t`. */
interface Site {
  readonly op: Expr & { kind: 'binary' };
  readonly constant: Expr & { kind: 'const' };
  /** The single value of the other operand. */
  readonly other: bigint;
  readonly t: IntType;
  /** The constant is the right operand. */
  readonly constRight: boolean;
}

/** Candidate sites of a program, from a run that recorded each arithmetic expression's value. */
function sites(p: Program, values: ReadonlyMap<number, unknown>): Site[] {
  const out: Site[] = [];
  walkProgram(p, (n) => {
    if (n.kind !== 'binary' || (n.op !== '+' && n.op !== '-') || n.type.kind !== 'int') return;
    const t = unqualified(n.type) as IntType;
    if (t.bitPrecise || t.bits > 64) return;
    const constRight = n.right.kind === 'const';
    const c = constRight ? n.right : n.left;
    const e = constRight ? n.left : n.right;
    if (c.kind !== 'const' || c.type.kind !== 'int') return;
    // The constant already has the operation's type (no conversion between it and the result).
    const ct = unqualified(c.type) as IntType;
    if (ct.bits !== t.bits || ct.signed !== t.signed || ct.bitPrecise) return;
    const v = values.get(e.id);
    if (v === undefined || v === VARIED || values.get(n.id) === VARIED || values.get(n.id) === undefined) return;
    if (typeof v !== 'bigint' && typeof v !== 'number') return;
    out.push({ op: n, constant: c, other: BigInt(v), t, constRight });
  });
  return out;
}

/** The constant that puts the site's result on `target` (undefined when the constant cannot hold it). */
function constantFor(s: Site, target: bigint): bigint | undefined {
  // e + c = target; c + e = target; e - c = target; c - e = target.
  const c = s.op.op === '+' ? target - s.other : s.constRight ? s.other - target : target + s.other;
  if (s.t.signed) return c >= intMin(s.t) && c <= intMax(s.t) ? c : undefined;
  // Unsigned arithmetic is modular: any constant in range works.
  const m = 1n << BigInt(s.t.bits);
  return ((c % m) + m) % m;
}

/** Results at the limits of a site's type: the maximum and minimum, or for unsigned types wraps by one. */
function targets(s: Site, rng: Rng): bigint[] {
  const hi = intMax(s.t);
  const lo = intMin(s.t);
  // Unsigned: the maximum without wrapping, and 0 by wrapping past the maximum by exactly one
  // (for `+`) or the maximum by wrapping below 0 by exactly one (for `-`: the same values).
  const all = s.t.signed ? [hi, lo] : [hi, 0n];
  return rng.chance(0.5) ? all : [...all].reverse();
}

export interface EdgeValues {
  readonly program: Program;
  readonly outcome: Extract<RunOutcome, { ok: true }>;
  /** Constants rewritten (each kept only when the program stayed clean). */
  readonly rewritten: number;
  /** Rewrites tried (each one run of the program). */
  readonly tried: number;
}

/**
 * Rewrites up to `count` constants of a clean program so that an executed operation lands on its
 * type's limit (see the module comment). `maxSteps`: the step budget of the runs. Undefined when
 * nothing was rewritten.
 */
export function edgeValues(seed: string, program: Program, count: number, maxSteps: number): EdgeValues | undefined {
  if (count <= 0) return undefined;
  const first = interpret(program, { profileNodes: true, limits: { maxSteps } });
  if (!first.ok || !first.profile.nodeValues) return undefined;
  const rng = Rng.seeded(`edge:${seed}`);
  const candidates = rng.shuffle(sites(program, first.profile.nodeValues));
  let p = program;
  let outcome: Extract<RunOutcome, { ok: true }> | undefined;
  let rewritten = 0;
  let tried = 0;
  // One compiled program, updated edit by edit: only the function that changed is compiled again.
  const compiled = CompiledProgram.compile(program, { limits: { maxSteps } });
  // Each site is tried once; a rewrite changes later values, so the sites after it are judged by
  // the values of the first run only as candidates: the run after each rewrite is the judge.
  for (const s of candidates) {
    if (rewritten >= count || tried >= 2 * count) break;
    const target = targets(s, rng).find((t) => {
      const c = constantFor(s, t);
      return c !== undefined && c !== s.constant.value;
    });
    if (target === undefined) continue;
    const ed = new Editor(p);
    const next = ed.replace(s.constant.id, () => ed.b.lit(constantFor(s, target)!, s.t));
    if (!next) continue;
    tried++;
    compiled.update(next);
    const r = compiled.run();
    if (r.ok) {
      p = next;
      outcome = r;
      rewritten++;
    } else compiled.update(p);
  }
  return outcome ? { program: p, outcome, rewritten, tried } : undefined;
}

/**
 * Executed integer operations (+ − * and the unary minus) whose result was exactly their type's
 * maximum or minimum on every evaluation, from a run with `profileNodes`.
 */
export function operationsAtLimits(p: Program, values: ReadonlyMap<number, unknown>): number {
  let n = 0;
  walkProgram(p, (x) => {
    if (x.kind !== 'binary' || (x.op !== '+' && x.op !== '-' && x.op !== '*') || x.type.kind !== 'int') return;
    const v = values.get(x.id);
    if (typeof v !== 'bigint' && typeof v !== 'number') return;
    const t = unqualified(x.type) as IntType;
    const b = BigInt(v);
    if (b === intMax(t) || b === intMin(t)) n++;
  });
  return n;
}

/** {@link operationsAtLimits} of a program, from one more run that records every value. */
export function runAtLimits(p: Program): number {
  const r = interpret(p, { profileNodes: true });
  return r.profile.nodeValues ? operationsAtLimits(p, r.profile.nodeValues) : 0;
}

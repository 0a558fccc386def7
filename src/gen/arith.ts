import { DOUBLE_EXACT_LIMIT, FLOAT_EXACT_LIMIT, toBigInt } from '../c/convert.js';
import { evalBinary, evalCast, type Typed } from '../c/eval.js';
import { isCompare, isIntegerOnly, type BinaryOp, type CompareOp } from '../c/ops.js';
import {
  fits,
  typesOf,
  intMax,
  intMin,
  promote,
  toUnsigned,
  usualArithmetic,
  type ArithType,
  type CTypes,
  type CValue,
  type FloatType,
  type IntType,
} from '../c/types.js';
import { IRBuilder } from '../ir/build.js';
import type { Expr, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { qualify } from '../ir/types.js';
import { Rng } from '../random/rng.js';
import type { Policy } from './policy.js';

/**
 * The `arith` mode: Nagai et al.'s long arithmetic expressions with known values (the digest's
 * B2–B4). Each expression is built bottom-up and evaluated while it is built; an operation that
 * would be undefined is fixed at once by flipping its operator or inserting an operation with a
 * fresh variable (`+k`), and the construction goes on upward with the new value. The result is
 * assigned once to its own t-variable, and the program checks every t-variable itself.
 */

/** Counters of one arith program, for tests and reports. */
interface ArithStats {
  /** Binary operators requested per expression (before any insertion). */
  readonly requested: number[];
  /** Binary operators per expression as generated (requested + inserted − dropped). */
  readonly actual: number[];
  /** Operators flipped to their complement (rules 1, 2; floating rule 2). */
  flips: number;
  /** Operations inserted (`x + k`, `x - k`: rules 3–5; floating rules 3, 4). */
  insertions: number;
  /** Operations no rule could fix, replaced by `==` or dropped (expected to stay 0). */
  fallbacks: number;
  /** Explicit casts (drawn, and integer casts of floating operands of integer-only operators). */
  casts: number;
  /** Fixes by the UB kind they removed (`signed-overflow:flip`, `shift-count-too-large:insert`, …). */
  readonly byKind: Record<string, number>;
}

/** A raw arith program: UB-free by construction, with the value of every t-variable. */
export interface ArithRaw {
  readonly program: Program;
  /** The t-variables in assignment order, with the values the program must compute. */
  readonly results: readonly { readonly decl: VarDecl; readonly value: CValue }[];
  readonly stats: ArithStats;
}

/** A variable of the program with its (never changing, or once assigned) value. */
interface Var {
  readonly decl: VarDecl;
  readonly t: ArithType;
  readonly v: CValue;
  readonly volatile: boolean;
}

/** A built subexpression: its IR, unqualified type and exact value. */
interface Built {
  readonly e: Expr;
  readonly t: ArithType;
  readonly v: CValue;
}

const FLIP: Partial<Record<BinaryOp, BinaryOp>> = { '+': '-', '-': '+', '*': '/' };
const COMPLEMENT: Record<CompareOp, CompareOp> = { '<': '>=', '>=': '<', '>': '<=', '<=': '>', '==': '!=', '!=': '==' };
/** Integer types an integer-only operator casts a floating operand to (the paper prints `(signed long)`). */
function fpToIntCasts(c: CTypes): readonly IntType[] {
  return [c.int, c.long, c.llong, c.uint, c.ulong];
}
const ATTEMPTS = 8;

/** The largest magnitude of the integers a floating type holds exactly (rule 1 of B4). */
function exactLimit(t: FloatType): number {
  return t.bits === 32 ? FLOAT_EXACT_LIMIT : DOUBLE_EXACT_LIMIT;
}

/** Draws one arith program for `seed` (same seed and policy ⇒ same program). */
export function generateArithRaw(seed: number | bigint | string, policy: Policy): ArithRaw {
  // From the seed's text whatever its type, as the csmith mode (src/gen/program.ts).
  return new ArithGen(Rng.seeded(String(seed)), policy).program(String(seed));
}

class ArithGen {
  private readonly b = new IRBuilder();
  private readonly pol: Policy['arith'];
  private readonly globals: VarDecl[] = [];
  private readonly locals: VarDecl[] = [];
  private readonly inputs: Var[] = [];
  private readonly results: Var[] = [];
  private readonly kvars: Var[] = [];
  private readonly types: readonly ArithType[];
  /** The target model's types (plain char's sign, the width of long). */
  private readonly ct: CTypes;
  private readonly fpToInt: readonly IntType[];
  /** Whether the expression being built already reads a volatile input (at most one may). */
  private volatileUsed = false;
  readonly stats: ArithStats = {
    requested: [],
    actual: [],
    flips: 0,
    insertions: 0,
    fallbacks: 0,
    casts: 0,
    byKind: {},
  };

  constructor(
    private readonly rng: Rng,
    policy: Policy,
  ) {
    this.pol = policy.arith;
    this.ct = typesOf(policy.target);
    this.fpToInt = fpToIntCasts(this.ct);
    if (this.pol.minExprs > this.pol.maxExprs)
      throw new Error(`arith.minExprs (${this.pol.minExprs}) exceeds arith.maxExprs (${this.pol.maxExprs})`);
    if (this.pol.minOps > this.pol.maxOps)
      throw new Error(`arith.minOps (${this.pol.minOps}) exceeds arith.maxOps (${this.pol.maxOps})`);
    if (this.pol.minVars > this.pol.maxVars)
      throw new Error(`arith.minVars (${this.pol.minVars}) exceeds arith.maxVars (${this.pol.maxVars})`);
    if (this.pol.maxDepth < 1) throw new Error('arith.maxDepth must be at least 1');
    this.types = rng.chance(this.pol.floatPrograms)
      ? [...this.ct.allInts, this.ct.float, this.ct.double]
      : this.ct.allInts;
  }

  program(seed: string): ArithRaw {
    const { rng, pol, b } = this;
    const hasFloat = this.types.length > this.ct.allInts.length;
    const nVars = rng.int(Math.max(1, pol.minVars), Math.max(1, pol.maxVars));
    for (let i = 0; i < nVars; i++) {
      const t =
        hasFloat && rng.chance(pol.floatShare) ? rng.pick([this.ct.float, this.ct.double]) : rng.pick(this.ct.allInts);
      // The first input is never volatile, so a leaf can always avoid a second volatile read.
      this.inputs.push(
        this.declare(`x${i}`, t, this.drawValue(t), i > 0 && rng.chance(pol.volatile), rng.chance(pol.const)),
      );
    }
    const nExprs = rng.int(pol.minExprs, Math.max(pol.minExprs, pol.maxExprs));
    const assigns: Stmt[] = [];
    for (let i = 0; i < nExprs; i++) {
      const n = Math.min(this.drawSize(), capacity(pol.maxDepth));
      this.stats.requested.push(n);
      this.volatileUsed = false;
      const x = this.make(n, pol.maxDepth);
      this.stats.actual.push(countBinary(x.e));
      const t = this.declare(`t${i}`, x.t, x.v, false, false, true);
      this.results.push(t);
      assigns.push(b.stmt(b.assign(b.v(t.decl), x.e)));
    }
    const checks = this.results.map((r) => b.check(b.v(r.decl), checkValue(r)));
    const all = [...this.inputs, ...this.kvars, ...this.results];
    const hashes = all.map((x) => b.hash(b.v(x.decl)));
    const main = b.func(
      'main',
      this.ct.int,
      [],
      b.block([...assigns, ...checks, ...hashes], this.locals),
      undefined,
      false,
    );
    const ops = this.stats.actual.reduce((s, x) => s + x, 0);
    const program = b.program({
      globals: this.globals,
      funcs: [main],
      main,
      meta: {
        seed,
        mode: 'arith',
        notes: [
          `arith: ${nExprs} expressions, ${ops} binary operators, ${this.stats.flips} ` +
            `flips, ${this.stats.insertions} insertions`,
        ],
      },
    });
    return { program, results: this.results.map((r) => ({ decl: r.decl, value: r.v })), stats: this.stats };
  }

  // ---- variables ----------------------------------------------------------------------------

  /** Declares a variable (global or local of main); results have no initialiser. */
  private declare(name: string, t: ArithType, v: CValue, isVolatile: boolean, isConst: boolean, isResult = false): Var {
    const { b, rng, pol } = this;
    const type = qualify(t, { volatile: isVolatile, const: isConst });
    const init = isResult ? undefined : b.lit(t.kind === 'int' ? toBigInt(v) : (v as number), t);
    let decl: VarDecl;
    if (rng.chance(pol.global)) {
      decl = b.global(name, type, init, rng.chance(pol.static));
      this.globals.push(decl);
    } else {
      decl = b.local(name, type, init);
      this.locals.push(decl);
    }
    return { decl, t, v, volatile: isVolatile };
  }

  /** A fresh variable `k` holding `v` for an inserted operation (the paper's `+k`). */
  private kvar(t: ArithType, v: CValue): Var {
    const k = this.declare(`k${this.kvars.length}`, t, v, false, false);
    this.kvars.push(k);
    return k;
  }

  /** A random starting value: boundary values, small values, or anything in range. */
  private drawValue(t: ArithType): CValue {
    const { rng } = this;
    if (t.kind === 'float') {
      const lim = exactLimit(t);
      if (rng.chance(this.pol.boundary)) return rng.pick([0, 1, -1, lim, -lim, lim - 1, -(lim - 1)]);
      const v = rng.chance(0.5) ? rng.int(-1000, 1000) : Number(rng.bigint(BigInt(-lim), BigInt(lim)));
      return v + 0;
    }
    const lo = intMin(t);
    const hi = intMax(t);
    let v: bigint;
    if (rng.chance(this.pol.boundary)) v = rng.pick([0n, 1n, -1n, lo, hi, lo + 1n, hi - 1n].filter((x) => fits(x, t)));
    else if (rng.chance(0.5)) v = clamp(BigInt(rng.int(-1000, 1000)), lo, hi);
    else v = rng.bigint(lo, hi);
    return t.bits > 32 ? v : Number(v);
  }

  /** Operators per expression, log-uniform in [minOps, maxOps] (most short, some very long). */
  private drawSize(): number {
    const lo = this.pol.minOps + 1;
    const hi = this.pol.maxOps + 1;
    const n = Math.floor(lo * Math.exp(this.rng.float() * Math.log(hi / lo + 1e-12))) - 1;
    return Math.max(this.pol.minOps, Math.min(this.pol.maxOps, n));
  }

  // ---- expressions --------------------------------------------------------------------------

  /** `make_expression(n, d)` of the paper, with the split kept within the depth budget. */
  private make(n: number, d: number): Built {
    if (n === 0 || d === 0) return this.maybeCast(this.leaf());
    const cap = capacity(d - 1);
    const n1 = this.rng.int(Math.max(0, n - 1 - cap), Math.min(n - 1, cap));
    const op = this.rng.weightedKey(this.pol.operators);
    const left = this.make(n1, d - 1);
    const right = this.make(n - 1 - n1, d - 1);
    return this.maybeCast(this.operation(op, left, right));
  }

  private leaf(): Built {
    const { rng, b } = this;
    let v: Var;
    if (this.results.length && rng.chance(this.pol.resultLeaf)) v = rng.pick(this.results);
    else {
      v = rng.pick(this.inputs);
      if (v.volatile && this.volatileUsed) v = this.inputs[0]!;
      if (v.volatile) this.volatileUsed = true;
    }
    return { e: b.v(v.decl), t: v.t, v: v.v };
  }

  private maybeCast(x: Built): Built {
    if (!this.rng.chance(this.pol.cast)) return x;
    return this.castTo(x, this.rng.pick(this.types));
  }

  /**
   * `(to) x`, made exact first (floating rule 4: an offset `x + k` brings a value that the
   * conversion could not represent exactly, or at all, into range).
   */
  private castTo(x: Built, to: ArithType): Built {
    let y = x;
    if (to.kind === 'float' && !representable(y, to)) {
      const lim = exactLimit(to);
      y =
        this.offset(
          y,
          () => BigInt(this.rng.int(-1000, 1000)),
          '+',
          (v) => Math.abs(Number(v)) <= lim,
        ) ?? y;
    } else if (to.kind === 'int' && y.t.kind === 'float' && !fits(BigInt(y.v as number), to)) {
      // Targets near zero, in range, and close enough to y that k = target − y is exact in double.
      const yv = BigInt(y.v as number);
      const reach = BigInt(DOUBLE_EXACT_LIMIT);
      const lo = max(max(intMin(to), -1000n), yv - reach);
      const hi = min(min(intMax(to), 1000n), yv + reach);
      if (lo <= hi)
        y =
          this.offset(
            y,
            () => this.rng.bigint(lo, hi),
            '+',
            (v) => fits(BigInt(v), to),
          ) ?? y;
    }
    const r = evalCast(typed(y), to);
    if (!r.ok) {
      this.stats.fallbacks++;
      this.count(`cast-${r.ub}:dropped`);
      return x;
    }
    this.stats.casts++;
    return { e: this.b.cast(to, y.e), t: to, v: r.value };
  }

  /**
   * `a op b`, evaluated at once; UB is removed by the paper's rules (digest B3, B4), tried in
   * turn until the operation is defined:
   * - B3 rule 1: signed overflow of `+ - *` → flip to `- + /`;
   * - B3 rule 2: `a / (b cmp c)`, `a % (b cmp c)` with a false comparison → complement it (divisor 1);
   * - B3 rule 3: `a / b`, `a % b` with b == 0 → `a / (b + k)`; Kiln also uses it for MIN / -1;
   * - B3 rule 4: shift count negative or ≥ width → `a << (b + k)`;
   * - B3 rule 5: `a << b` with a < 0 → `(a + k) << b`; a signed `<<` that overflows flips to `>>`;
   * - B4 rule 2: a floating `+ - *` leaving the exact range flips like rule 1;
   * - B4 rule 3: a floating `x / y` with a fraction → `(x - k) / y`, k = x % y;
   * - B4 rule 4: an integer operand the floating common type cannot hold exactly → `x + k`.
   * With `flipping` off, every fix is an insertion (the paper's Table 6 baseline).
   */
  private operation(op0: BinaryOp, a0: Built, b0: Built): Built {
    let op = op0;
    let a = a0;
    let b = b0;
    // Integer-only operators need integer operands: cast a floating one (digest B4, "mixed").
    if (isIntegerOnly(op)) {
      if (a.t.kind === 'float') a = this.castTo(a, this.rng.pick(this.fpToInt));
      if (b.t.kind === 'float') b = this.castTo(b, this.rng.pick(this.fpToInt));
      if (a.t.kind === 'float' || b.t.kind === 'float') return this.fallback(a, b);
    } else if (op !== '&&' && op !== '||') {
      const ct = usualArithmetic(a.t, b.t);
      if (ct.kind === 'float') {
        a = this.exactIn(a, ct);
        b = this.exactIn(b, ct);
      }
    }
    const flipping = this.pol.flipping;
    // Counts the previous attempt's fix by UB kind and kind of fix.
    let last: { ub: string; flips: number; insertions: number } | undefined;
    const note = (): void => {
      if (!last) return;
      const how = this.stats.flips > last.flips ? 'flip' : this.stats.insertions > last.insertions ? 'insert' : 'none';
      this.count(`${last.ub}:${how}`);
      last = undefined;
    };
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const r = evalBinary(op, typed(a), typed(b));
      note();
      if (r.ok) return { e: this.b.bin(op, a.e, b.e), t: r.type, v: r.value };
      last = { ub: r.ub, flips: this.stats.flips, insertions: this.stats.insertions };
      let fixed: Built | undefined;
      switch (r.ub) {
        case 'signed-overflow':
        case 'float-inexact': {
          if (op === '/') {
            // B4 rule 3: remove the fraction from the dividend.
            const ct = usualArithmetic(a.t, b.t);
            const av = Number(a.v);
            const rem = av % Number(b.v);
            if (ct.kind === 'float' && Number.isInteger(av) && Number.isFinite(rem) && rem !== 0) {
              const target = BigInt(av - rem);
              fixed = this.offset(a, () => target, '-');
              if (fixed) a = fixed;
            }
            break;
          }
          const flip = FLIP[op];
          if (flipping && flip) {
            // B3 rule 1 / B4 rule 2.
            op = flip;
            this.stats.flips++;
            continue;
          }
          // Insertion only: bring one operand close to zero (then no sum or product can overflow).
          if (attempt % 2 === 0) a = this.offset(a, () => BigInt(this.rng.int(-100, 100))) ?? a;
          else b = this.offset(b, () => BigInt(this.rng.int(-100, 100))) ?? b;
          continue;
        }
        case 'division-by-zero':
          if (flipping && b.e.kind === 'binary' && isCompare(b.e.op)) {
            // B3 rule 2: the comparison becomes true, the divisor 1.
            b = { e: { ...b.e, op: COMPLEMENT[b.e.op as CompareOp] }, t: b.t, v: 1 };
            this.stats.flips++;
            continue;
          }
          fixed = this.offset(b, () => this.divisor());
          if (fixed) b = fixed;
          break;
        case 'division-overflow':
        case 'remainder-overflow':
          fixed = this.offset(b, () => this.divisor());
          if (fixed) b = fixed;
          break;
        case 'shift-count-negative':
        case 'shift-count-too-large': {
          const width = promote(a.t as IntType).bits;
          fixed = this.offset(b, () => BigInt(this.rng.int(0, width - 1)));
          if (fixed) b = fixed;
          break;
        }
        case 'shift-negative-value': {
          const room = intMax(promote(a.t as IntType)) >> toBigInt(b.v);
          fixed = this.offset(a, () => this.rng.bigint(0n, room < 1000n ? room : 1000n));
          if (fixed) a = fixed;
          break;
        }
        case 'shift-overflow':
          if (flipping) {
            op = '>>';
            this.stats.flips++;
            continue;
          }
          fixed = this.offset(a, () => BigInt(this.rng.int(0, 1)));
          if (fixed) a = fixed;
          break;
        default:
          break;
      }
      if (!fixed) break;
    }
    note();
    return this.fallback(a, b);
  }

  /** No rule applied: `a == b` is always defined once both are exact in their common type. */
  private fallback(a: Built, b: Built): Built {
    this.stats.fallbacks++;
    this.count(`fallback-${a.t.name}-${b.t.name}`);
    const r = evalBinary('==', typed(a), typed(b));
    if (r.ok) return { e: this.b.bin('==', a.e, b.e), t: r.type, v: r.value };
    return a;
  }

  private count(key: string): void {
    this.stats.byKind[key] = (this.stats.byKind[key] ?? 0) + 1;
  }

  /** A divisor that is neither 0 nor -1. */
  private divisor(): bigint {
    const m = BigInt(this.rng.int(1, 32));
    return m === 1n || this.rng.chance(0.5) ? m : -m;
  }

  /** An operand converted to floating type `ct` must be exact there (B4 rule 4). */
  private exactIn(x: Built, ct: FloatType): Built {
    if (representable(x, ct)) return x;
    const lim = exactLimit(ct);
    return (
      this.offset(
        x,
        () => BigInt(this.rng.int(-1000, 1000)),
        '+',
        (v) => Math.abs(Number(v)) <= lim,
      ) ?? x
    );
  }

  /**
   * `x + k` (or `x - k`) with a fresh variable `k` chosen so that the result is a drawn target
   * value (and passes `accept`). `k` has `x`'s promoted type when the difference fits, else its
   * unsigned counterpart, where the sum wraps to the target exactly. Undefined if no drawn
   * target works.
   */
  private offset(
    x: Built,
    target: () => bigint,
    op: '+' | '-' = '+',
    accept?: (v: CValue) => boolean,
  ): Built | undefined {
    for (let i = 0; i < ATTEMPTS; i++) {
      let want = target();
      let k: Typed;
      if (x.t.kind === 'float') {
        const kv = op === '+' ? Number(want) - (x.v as number) : (x.v as number) - Number(want);
        // A float k too large for float becomes a double k (the sum is then computed in double).
        const kt = Math.abs(kv) <= exactLimit(x.t) ? x.t : this.ct.double;
        if (Math.abs(Number(want)) > exactLimit(kt) || Math.abs(kv) > exactLimit(kt)) continue;
        k = { type: kt, value: kv + 0 };
      } else {
        const pt = promote(x.t);
        const xv = toBigInt(x.v);
        let diff = op === '+' ? want - xv : xv - want;
        if (fits(diff, pt) && fits(want, pt)) k = { type: pt, value: pt.bits > 32 ? diff : Number(diff) };
        else {
          const ut = pt.signed ? toUnsigned(pt) : pt;
          // The unsigned sum can only land on a non-negative target: mirror a negative one (the
          // result is checked below, and the caller uses the value it is given).
          if (want < 0n) want = -want;
          if (!fits(want, ut)) continue;
          diff = op === '+' ? want - xv : xv - want;
          const kv = BigInt.asUintN(ut.bits, diff);
          k = { type: ut, value: ut.bits > 32 ? kv : Number(kv) };
        }
      }
      const r = evalBinary(op, typed(x), k);
      if (!r.ok || toBigInt(r.value) !== want || (accept && !accept(r.value))) continue;
      const kv = this.kvar(k.type, k.value);
      this.stats.insertions++;
      return { e: this.b.bin(op, x.e, this.b.v(kv.decl)), t: r.type, v: r.value };
    }
    return undefined;
  }
}

function typed(x: Built): Typed {
  return { type: x.t, value: x.v };
}

/** Whether `x` converts to floating type `t` exactly (Kiln's exactness rule). */
function representable(x: Built, t: FloatType): boolean {
  return Math.abs(Number(x.v)) <= exactLimit(t);
}

/** Operators a tree of binary depth `d` can hold (2^d − 1). */
function capacity(d: number): number {
  return d >= 40 ? Number.MAX_SAFE_INTEGER : 2 ** d - 1;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function clamp(v: bigint, lo: bigint, hi: bigint): bigint {
  return v < lo ? lo : v > hi ? hi : v;
}

/** The value a check compares with, in its type's representation (bigint for integers). */
function checkValue(r: Var): bigint | number {
  return r.t.kind === 'int' ? toBigInt(r.v) : (r.v as number);
}

/** The number of binary operators in an expression (the paper's expression size). */
export function countBinary(e: Expr): number {
  let n = 0;
  const rec = (x: Expr): void => {
    switch (x.kind) {
      case 'binary':
        n++;
        rec(x.left);
        rec(x.right);
        break;
      case 'cast':
        rec(x.operand);
        break;
      case 'assign':
        rec(x.value);
        break;
      default:
        break;
    }
  };
  rec(e);
  return n;
}

import { converter } from '../c/convert.js';
import type { ArithType } from '../c/types.js';
import type { FuncDecl, Program, VarDecl } from '../ir/nodes.js';
import { isArith, unqualified, type Type } from '../ir/types.js';
import { EffectAnalysis } from './effects.js';
import type { Cell, MemObject } from './memory.js';
import type { Frame, Runtime } from './runtime.js';

/** An expression closure: evaluates to a cell value (scalars) or an array of cells (records). */
export type Ev = (f: Frame) => Cell | Cell[];
/** An lvalue closure: leaves the designated object and cell in `rt.lo` / `rt.lc`. */
export type Lv = (f: Frame) => void;

/** A compiled function, filled in after all functions are compiled (calls may refer forward). */
export interface FuncSlot {
  decl: FuncDecl;
  invoke: (args: (Cell | Cell[])[]) => Cell | Cell[];
}

/** Where a variable lives at run time. */
export type VarHome =
  | { readonly kind: 'global'; readonly obj: MemObject }
  | { readonly kind: 'frame'; readonly slot: number };

/** Shared state of one program compilation. */
export class CompileContext {
  readonly effects = new EffectAnalysis();
  readonly funcs = new Map<number, FuncSlot>();
  readonly homes = new Map<number, VarHome>();
  readonly decls = new Map<number, VarDecl>();
  /** Dense index of every statement, for the execution counters. */
  readonly stmtIndex = new Map<number, number>();
  /** Dense index of every loop statement, for the iteration counters. */
  readonly loopIndex = new Map<number, number>();
  /**
   * Frame slot of every parameter and local, per function: a declaration keeps its slot across
   * recompilations, so closures of unchanged statements (cached below) stay valid.
   */
  private readonly slotMaps = new Map<number, Map<number, number>>();
  /**
   * Compiled statements per function, by node object: IR nodes are immutable, so a statement the
   * repair loop did not touch compiles to the same closures. Undefined when values are profiled
   * (those closures capture the variables in scope, which depend on the statement's context).
   */
  private stmtCaches: Map<number, WeakMap<object, unknown>> | undefined;
  /** The function being compiled. */
  currentFunc: FuncDecl | undefined;

  constructor(
    public program: Program,
    readonly rt: Runtime,
    readonly profileValues: boolean,
    readonly profileNodes = false,
    readonly profilePoints: ReadonlySet<number> | undefined = undefined,
  ) {
    this.stmtCaches = profileValues || profilePoints ? undefined : new Map();
  }

  /** The frame slot of a parameter or local of function `func` (the same at every recompilation). */
  slotOf(func: number, decl: number): number {
    let m = this.slotMaps.get(func);
    if (!m) this.slotMaps.set(func, (m = new Map()));
    let s = m.get(decl);
    if (s === undefined) m.set(decl, (s = m.size));
    return s;
  }

  /** Number of frame slots function `func` needs (every slot it was ever given). */
  frameSize(func: number): number {
    return this.slotMaps.get(func)?.size ?? 0;
  }

  /** The cache of compiled statements of function `func`, if caching is on. */
  stmtCache(func: number): WeakMap<object, unknown> | undefined {
    const caches = this.stmtCaches;
    if (!caches) return undefined;
    let c = caches.get(func);
    if (!c) caches.set(func, (c = new WeakMap()));
    return c;
  }

  /**
   * Forgets every compiled statement (a signature or a global's object changed: cached closures captured the old ones).
   */
  clearStmtCaches(): void {
    if (this.stmtCaches) this.stmtCaches = new Map();
  }

  /** Where a declared variable lives. */
  home(decl: number): VarHome {
    const h = this.homes.get(decl);
    if (!h) throw new Error(`variable ${decl} is used outside its scope or never declared`);
    return h;
  }
}

/** The conversion applied when a value of type `from` is stored in or used as type `to`; null when none is needed. */
export function conversion(from: Type, to: Type): ((v: Cell | Cell[]) => Cell | Cell[]) | null {
  if (isArith(from) && isArith(to)) {
    const a = unqualified(from) as ArithType;
    const b = unqualified(to) as ArithType;
    if (a.kind === b.kind && a.bits === b.bits && (a.kind === 'float' || (b.kind === 'int' && a.signed === b.signed)))
      return null;
    const k = converter(a, b);
    return k as (v: Cell | Cell[]) => Cell | Cell[];
  }
  return null;
}

/** Applies an optional conversion to a closure's result. */
export function withConversion(ev: Ev, conv: ReturnType<typeof conversion>): Ev {
  if (!conv) return ev;
  return (f) => conv(ev(f));
}

/**
 * An implicit conversion that may be UB (into or out of a floating type: Kiln's exactness rule,
 * or a floating value out of an integer type's range), reported at `node`; in collect mode the
 * run goes on with zero of the target type. Integer conversions never fail and stay unwrapped.
 */
export function withConversionAt(ev: Ev, from: Type, to: Type, rt: Runtime, node: number): Ev {
  const conv = conversion(from, to);
  if (!conv) return ev;
  const a = unqualified(from);
  const b = unqualified(to);
  if (a.kind !== 'float' && b.kind !== 'float') return (f) => conv(ev(f));
  const zero = zeroValue(b);
  return (f) => {
    const v = ev(f);
    try {
      return conv(v);
    } catch (err) {
      rt.kernelFault(err, node);
      return zero;
    }
  };
}

/** The zero of an arithmetic type, as the interpreter represents it (bigint above 32 bits). */
export function zeroValue(t: Type): Cell {
  return t.kind === 'int' && t.bits > 32 ? 0n : 0;
}

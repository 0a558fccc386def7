import type { CValue } from '../c/types.js';
import { UBSignal, type UBDetail, type UBKind } from '../c/ub.js';
import type { FuncDecl, Node, Program } from '../ir/nodes.js';
import type { Type } from '../ir/types.js';
import { walk } from '../ir/visit.js';
import { compileFunction, compileGlobals, type Visible } from './compile-stmt.js';
import { CountMap } from './counts.js';
import { CompileContext } from './context.js';
import { DEFAULT_LIMITS, Frame, Runtime, STOP, type VARIED, type RunLimits } from './runtime.js';

/** Options of an interpreter run. */
export interface InterpOptions {
  /** Overrides of the default limits (step budget, call depth, access-log size). */
  readonly limits?: Partial<RunLimits>;
  /** Record the set of values every integer variable in scope held before each statement. */
  readonly profileValues?: boolean;
  /**
   * Statements at which to record the values every arithmetic cell of every variable in scope
   * held just before it ran (struct fields and array elements included): EMI's sparse value
   * profile. Only these statements pay for it.
   */
  readonly profilePoints?: ReadonlySet<number>;
  /** Record the value each arithmetic expression produced (or that it produced several). */
  readonly profileNodes?: boolean;
  /**
   * Keep going after UB with a provisional value and report every UB site met (first occurrence
   * per node, up to `limits.maxReports`). A run is only trusted if it reports nothing; the repair
   * loop uses this to fix many sites per run.
   */
  readonly collect?: boolean;
}

/** The first UB a run hit. */
export interface UBReport {
  readonly kind: UBKind;
  /** Id of the node whose evaluation is undefined. */
  readonly node: number;
  readonly detail: UBDetail | undefined;
}

/** What a run executed. */
export interface Profile {
  /** Statement executions + loop iterations. */
  readonly steps: number;
  /** Executions per statement id (statements never run are absent). */
  readonly stmtCounts: ReadonlyMap<number, number>;
  /** Iterations per loop statement id (loops never iterated are absent). */
  readonly loopIters: ReadonlyMap<number, number>;
  /** With `profileValues`: statement id → variable decl id → values held just before it ran. */
  readonly values: ReadonlyMap<number, ReadonlyMap<number, ReadonlySet<CValue>>> | undefined;
  /**
   * With `profilePoints`: statement id → variable decl id → per cell index, the values that cell
   * held just before the statement ran (null or absent: not an arithmetic value on some visit).
   */
  readonly points:
    | ReadonlyMap<number, ReadonlyMap<number, readonly (ReadonlySet<CValue> | null | undefined)[]>>
    | undefined;
  /** With `profileNodes`: expression id → its one value, or `VARIED` (absent: never evaluated). */
  readonly nodeValues: ReadonlyMap<number, CValue | typeof VARIED> | undefined;
}

/** The outcome of one run: the program's output, or the first UB. */
export type RunOutcome =
  | { readonly ok: true; readonly output: string; readonly checksum: bigint; readonly profile: Profile }
  | { readonly ok: false; readonly ub: UBReport; readonly reports: readonly UBReport[]; readonly profile: Profile };

const STATEMENT_KINDS: ReadonlySet<string> = new Set([
  'block',
  'expr',
  'if',
  'for',
  'switch',
  'case',
  'return',
  'break',
  'continue',
  'goto',
  'igoto',
  'label',
  'hash',
  'check',
  'unreachable',
  'assume',
]);

/** Formats the checksum line every Kiln program prints. */
export function checksumLine(checksum: bigint): string {
  return `checksum = ${checksum.toString(16).toUpperCase().padStart(16, '0')}`;
}

/**
 * A program compiled to closures; `run` may be called repeatedly (each run starts fresh).
 * `update` recompiles only the functions whose IR changed (nodes are immutable, so an unchanged
 * function is the same object): the repair loop edits a few sites per run, and unchanged
 * functions keep their closures, warm in the JavaScript engine.
 */
export class CompiledProgram {
  private readonly cx: CompileContext;
  private initGlobals: (f: Frame) => void = () => {};
  private readonly compiled = new Map<number, FuncDecl>();
  /** Return and parameter types of every compiled function (a change invalidates cached call sites). */
  private readonly signatures = new Map<number, readonly Type[]>();

  private constructor(p: Program, opts: InterpOptions) {
    const rt = new Runtime({ ...DEFAULT_LIMITS, ...opts.limits }, 1024, 64);
    rt.collect = !!opts.collect;
    this.cx = new CompileContext(p, rt, !!opts.profileValues, !!opts.profileNodes, opts.profilePoints);
  }

  /** Compiles a program for the reference interpreter. */
  static compile(p: Program, opts: InterpOptions = {}): CompiledProgram {
    const c = new CompiledProgram(p, opts);
    c.update(p);
    return c;
  }

  /** Brings the compiled code up to date with a new version of the program. */
  update(p: Program): void {
    const cx = this.cx;
    const rt = cx.rt;
    cx.program = p;
    const changed = p.funcs.filter((f) => this.compiled.get(f.id) !== f);
    // Statements live in functions only, and never inside expressions or initialisers.
    const index = (n: Node): void =>
      walk(n, (x) => {
        if (!STATEMENT_KINDS.has(x.kind)) return x.kind === 'func';
        if (cx.stmtIndex.has(x.id)) return;
        cx.stmtIndex.set(x.id, cx.stmtIndex.size);
        if (x.kind === 'for') cx.loopIndex.set(x.id, cx.loopIndex.size);
      });
    for (const f of changed) index(f);
    rt.ensureCounters(cx.stmtIndex.size, cx.loopIndex.size);
    // Cached statement closures captured global objects and callee signatures: when either
    // changed, they are all recompiled.
    const homesBefore = p.globals.map((g) => cx.homes.get(g.id));
    this.initGlobals = compileGlobals(cx);
    let stale = p.globals.some((g, i) => homesBefore[i] !== undefined && cx.homes.get(g.id) !== homesBefore[i]);
    for (const fn of changed) {
      const sig = [fn.ret, ...fn.params.map((q) => q.type)];
      const before = this.signatures.get(fn.id);
      if (before && (before.length !== sig.length || before.some((t, i) => t !== sig[i]))) stale = true;
      this.signatures.set(fn.id, sig);
    }
    if (stale) cx.clearStmtCaches();
    // Objects made during runs are numbered after every global.
    rt.firstRunUid = rt.nextUid;
    for (const fn of p.funcs) {
      const slot = cx.funcs.get(fn.id);
      if (slot) slot.decl = fn;
      else {
        cx.funcs.set(fn.id, {
          decl: fn,
          invoke: () => {
            throw new Error(`function ${fn.name} called before it was compiled`);
          },
        });
      }
    }
    const globals: Visible[] = p.globals.map((g) => ({ decl: g.id, home: cx.home(g.id), int: g.type.kind === 'int' }));
    // Functions compile at their first call: code behind dead call sites never costs anything.
    for (const fn of changed) {
      const slot = cx.funcs.get(fn.id)!;
      slot.invoke = (args) => {
        const outer = cx.currentFunc;
        cx.currentFunc = fn;
        compileFunction(cx, fn, globals);
        cx.currentFunc = outer;
        return slot.invoke(args);
      };
      this.compiled.set(fn.id, fn);
    }
  }

  /** Sets the steps later runs may take (at most `limits.maxSteps`). */
  setStepBudget(steps: number): void {
    this.cx.rt.stepBudget = Math.min(steps, this.cx.rt.limits.maxSteps);
  }

  /** Runs the program from the start. */
  run(): RunOutcome {
    const rt = this.cx.rt;
    rt.reset();
    rt.values = this.cx.profileValues ? new Map() : undefined;
    rt.nodeValues = this.cx.profileNodes ? new Map() : undefined;
    rt.points = this.cx.profilePoints ? new Map() : undefined;
    const main = this.cx.funcs.get(this.cx.program.main);
    if (!main) throw new Error('program has no main function');
    try {
      this.initGlobals(new Frame(0));
      main.invoke([]);
    } catch (e) {
      if (e instanceof UBSignal) rt.reports.push(e);
      else if (e !== STOP) throw e;
    }
    if (rt.reports.length) {
      const reports = rt.reports.map((r) => ({ kind: r.kind, node: r.node ?? -1, detail: r.detail }));
      return { ok: false, ub: reports[0]!, reports, profile: this.profile() };
    }
    const checksum = rt.hashState;
    // Self-checking programs print one line per check before the checksum line.
    const lines = rt.output.length ? `${rt.output.join('\n')}\n` : '';
    return { ok: true, output: `${lines + checksumLine(checksum)}\n`, checksum, profile: this.profile() };
  }

  private profile(): Profile {
    const rt = this.cx.rt;
    const cx = this.cx;
    // Copies of this run's counters (the next run resets the runtime's), read through the index.
    const stmtCounts = new CountMap(cx.stmtIndex, rt.stmtCounts.slice(0, cx.stmtIndex.size));
    const loopIters = new CountMap(cx.loopIndex, rt.loopIters.slice(0, cx.loopIndex.size));
    return { steps: rt.steps, stmtCounts, loopIters, values: rt.values, nodeValues: rt.nodeValues, points: rt.points };
  }
}

/** Compiles and runs a program once. */
export function interpret(p: Program, opts: InterpOptions = {}): RunOutcome {
  return CompiledProgram.compile(p, opts).run();
}

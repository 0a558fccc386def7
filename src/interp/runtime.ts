import type { CValue } from '../c/types.js';
import { UBSignal, type UBDetail, type UBKind } from '../c/ub.js';
import { MemObject, zeroFill, zeroOf, type Cell, type Layout } from './memory.js';

/** Access-log flag: the access is a write (a side effect). */
const W = 1;
/** Access-log flag: the access is to a volatile object. */
export const V = 2;
/**
 * Access-log flag: the access happened while evaluating a call that has returned (sequenced before the call's value).
 */
const DONE = 4;
/** Access-log flags keep the call depth above this shift. */
const DEPTH_SHIFT = 3;

/** Raises UB at a node. */
export function raise(kind: UBKind, node: number, detail?: UBDetail): never {
  const s = new UBSignal(kind, detail);
  s.node = node;
  throw s;
}

/**
 * Attaches a node id (and the operand values, for the repair rules) to a UB signal thrown by an
 * operator kernel; the innermost node wins.
 */
function atNode(e: unknown, node: number, ...values: (CValue | undefined)[]): unknown {
  if (e instanceof UBSignal && e.node === undefined) {
    e.node = node;
    if (values.length) e.detail = { ...e.detail, values: values.filter((v): v is CValue => v !== undefined) };
  }
  return e;
}

/** Completion codes of statement closures. */
// biome-ignore lint/suspicious/noConstEnum: tsc inlines its members into the interpreter's dispatch loop
export const enum Completion {
  Normal = 0,
  Break = 1,
  Continue = 2,
  Return = 3,
  Goto = 4,
}

/** One activation of a function. */
export class Frame {
  readonly vars: MemObject[];
  ret: Cell | Cell[] = undefined;
  gotoLabel = -1;
  constructor(slots: number) {
    this.vars = new Array<MemObject>(slots);
  }
}

/** What entering a contract call replaced (see `Runtime.enterContract`). */
export interface ContractState {
  readonly writeFloor: number;
  readonly readFloor: number;
  readonly writeFunc: string;
  readonly readFunc: string;
}

/** Marks an expression that took more than one value in a node profile. */
export const VARIED = Symbol('varied');

/** Thrown in collect mode once enough reports were gathered: ends the run early. */
export const STOP = { stop: true } as const;

/** Limits of one interpreter run. */
export interface RunLimits {
  /** Statement executions plus loop iterations before the run counts as non-terminating. */
  readonly maxSteps: number;
  /** Maximum call depth (Kiln programs are not recursive; this guards against bugs). */
  readonly maxDepth: number;
  /** Access-log entries kept while checking one full expression before the check gives up conservatively. */
  readonly maxLog: number;
  /** In collect mode: distinct UB reports gathered before the run stops. */
  readonly maxReports: number;
}

export const DEFAULT_LIMITS: RunLimits = { maxSteps: 5_000_000, maxDepth: 256, maxLog: 1 << 20, maxReports: 64 };

const LOC_SCALE = 2 ** 24;

/**
 * Mutable state of one run: step budget, access log for the sequencing checks, object ids,
 * statement counters and the checksum. One instance per compiled program, reset before each run.
 */
export class Runtime {
  steps = 0;
  depth = 0;
  nextUid = 1;
  /** First uid of objects created during a run (globals, allocated at compile time, come before). */
  firstRunUid = 1;
  /** Whether accesses are being logged (inside a full expression that needs sequencing checks). */
  logging = false;
  /**
   * Whether accesses take the watched path: `logging`, or a call of a `pure` or `const` function
   * is executing. Outside those, reads and writes test only this flag (they tested `logging` before).
   */
  watching = false;
  /**
   * Contract of the innermost executing call of a `pure` or `const` function (0: none): objects
   * with a uid below `writeFloor` existed when that call began, so it may not write them (its
   * own objects, and those of the frames it calls, are numbered from there on); objects below
   * `readFloor` it may not read either (set by `const`, and kept by calls made inside one).
   */
  writeFloor = 0;
  readFloor = 0;
  /** The calls whose contracts `writeFloor` and `readFloor` enforce, for messages. */
  writeFunc = '';
  readFunc = '';
  logKey: number[] = [];
  logFlag: number[] = [];
  logLen = 0;
  /** Set when the access log overflowed; the next check then fails conservatively. */
  logOverflow = false;
  /**
   * Objects with a uid at or above this were created after the innermost checked full expression
   * began: no operand of an active check can reach them, so their accesses are not logged.
   */
  epoch = 0;
  /** Result of the last lvalue evaluation (an object and a cell). */
  lo: MemObject = undefined as unknown as MemObject;
  lc = 0;
  hashState = 0n;
  /** Executions per statement (by dense statement index); grows when an update adds statements. */
  stmtCounts: Uint32Array;
  /** Iterations per loop (by dense loop index). */
  loopIters: Float64Array;
  output: string[] = [];
  /** Value profile (statement → variable → values), when requested. */
  values: Map<number, Map<number, Set<CValue>>> | undefined;
  /** Sampled-point profile (statement → variable → per cell, values), when requested. */
  points: Map<number, Map<number, (Set<CValue> | null)[]>> | undefined;
  /** Node profile (expression id → the value it took, or `VARIED` when it took several), when requested. */
  nodeValues: Map<number, CValue | typeof VARIED> | undefined;
  /**
   * Collect mode (used while repairing): UB is recorded and execution goes on with a provisional
   * value, so one run finds many sites. Only a run with no report at all is trusted.
   */
  collect = false;
  /** Steps a run may take: `limits.maxSteps`, or less for a while (see CompiledProgram.setStepBudget). */
  stepBudget: number;
  /** UB recorded in collect mode, first occurrence per node, in execution order. */
  reports: UBSignal[] = [];
  private reportedNodes = new Set<number>();

  constructor(
    readonly limits: RunLimits,
    stmtCount: number,
    loopCount: number,
  ) {
    this.stepBudget = limits.maxSteps;
    this.stmtCounts = new Uint32Array(stmtCount);
    this.loopIters = new Float64Array(loopCount);
  }

  /** Makes room for at least this many statement and loop counters (closures read the arrays through `rt`). */
  ensureCounters(stmts: number, loops: number): void {
    if (stmts > this.stmtCounts.length) this.stmtCounts = new Uint32Array(Math.max(stmts, this.stmtCounts.length * 2));
    if (loops > this.loopIters.length) this.loopIters = new Float64Array(Math.max(loops, this.loopIters.length * 2));
  }

  /** Prepares for a new run. */
  reset(): void {
    this.steps = 0;
    this.depth = 0;
    this.nextUid = this.firstRunUid;
    this.logging = false;
    this.watching = false;
    this.writeFloor = 0;
    this.readFloor = 0;
    this.writeFunc = '';
    this.readFunc = '';
    this.logLen = 0;
    this.logOverflow = false;
    this.epoch = 0;
    this.hashState = HASH_SEED;
    this.stmtCounts.fill(0);
    this.loopIters.fill(0);
    this.output = [];
    this.reports = [];
    this.reportedNodes.clear();
  }

  /**
   * Reports UB at a node. Outside collect mode it throws; in collect mode it records the first
   * report per node and returns, and the caller continues with a provisional value. After
   * `maxReports` distinct reports the run stops.
   */
  fault(kind: UBKind, node: number, detail?: UBDetail): void {
    if (!this.collect) raise(kind, node, detail);
    if (this.reportedNodes.has(node)) return;
    this.reportedNodes.add(node);
    const s = new UBSignal(kind, detail);
    s.node = node;
    this.reports.push(s);
    if (this.reports.length >= this.limits.maxReports) throw STOP;
  }

  /**
   * Handles an exception thrown by an operator kernel at `node`: UB is tagged with the node and
   * operand values and thrown, or, in collect mode, recorded (the caller then continues with a
   * provisional value). Anything else is rethrown.
   */
  kernelFault(err: unknown, node: number, ...values: (CValue | undefined)[]): void {
    if (!(err instanceof UBSignal) || err.node !== undefined || !this.collect) throw atNode(err, node, ...values);
    this.fault(err.kind, node, { ...err.detail, values: values.filter((v): v is CValue => v !== undefined) });
  }

  /** A fresh zero-filled object standing in for the target of a bad pointer in collect mode. */
  standIn(layout: Layout): MemObject {
    const o = this.alloc(layout, -1, false);
    zeroFill(o, -1);
    return o;
  }

  /** Allocates a fresh (uninitialised) object. */
  alloc(layout: Layout, decl: number, isConst: boolean): MemObject {
    return new MemObject(this.nextUid++, layout, decl, isConst);
  }

  /**
   * An object for a new lifetime of a block local: the previous object of the same frame slot
   * when it is dead (a loop body entered again), with a new uid and generation, else a fresh one.
   */
  renew(prev: MemObject | undefined, layout: Layout, decl: number, isConst: boolean, filled = false): MemObject {
    if (prev === undefined || prev.alive || prev.layout !== layout) return this.alloc(layout, decl, isConst);
    prev.uid = this.nextUid++;
    prev.gen++;
    prev.alive = true;
    // An initialiser that sets every cell first (`filled`) makes clearing the old values useless.
    if (!filled) prev.cells.fill(undefined);
    return prev;
  }

  /** Reads one scalar cell, checking initialisation and union state, and logging the access. */
  read(o: MemObject, c: number, node: number, flags: number): Cell {
    if (o.layout.hasUnions && !this.checkUnionRead(o, c, node)) return zeroOf(o.layout.cellType[c]!, node);
    const v = o.cells[c];
    if (v === undefined) {
      this.fault('uninitialised-read', node);
      return zeroOf(o.layout.cellType[c]!, node);
    }
    if (this.watching) this.watch(o, c, node, flags);
    return v;
  }

  /** Writes one scalar cell, switching union members as needed, and logging the access. */
  write(o: MemObject, c: number, v: Cell, node: number, flags: number): void {
    if (o.isConst) return this.fault('const-write', node);
    if (o.layout.hasUnions) this.activate(o, c);
    if (this.watching) this.watch(o, c, node, flags | W);
    o.cells[c] = v;
  }

  /** Reads `n` cells as an aggregate value (struct or array copy: uninitialised members are copied as such). */
  readRange(o: MemObject, c: number, n: number, node: number, flags: number): Cell[] {
    if (o.layout.hasUnions && o.layout.unions[c]!.length > 0) this.checkUnionRead(o, c, node);
    // (In collect mode an inactive member is copied as it is: its cells are indeterminate.)
    if (this.watching) for (let i = 0; i < n; i++) this.watch(o, c + i, node, flags);
    return o.cells.slice(c, c + n);
  }

  /** Writes an aggregate value into `n` cells. */
  writeRange(o: MemObject, c: number, values: readonly Cell[], node: number, flags: number): void {
    if (o.isConst) return this.fault('const-write', node);
    if (o.layout.hasUnions) this.activate(o, c);
    for (let i = 0; i < values.length; i++) {
      if (this.watching) this.watch(o, c + i, node, flags | W);
      o.cells[c + i] = values[i];
    }
  }

  /** Checks that the unions enclosing cell `c` have the right members active; false after a fault in collect mode. */
  private checkUnionRead(o: MemObject, c: number, node: number): boolean {
    const us = o.layout.unions[c]!;
    for (let i = 0; i < us.length; i++) {
      const [tag, m] = us[i]!;
      const active = o.cells[tag];
      if (active === undefined) {
        this.fault('uninitialised-read', node);
        return false;
      }
      if (active !== m) {
        this.fault('inactive-union-read', node, { member: m, activeMember: active as number });
        return false;
      }
    }
    return true;
  }

  /** Makes the unions enclosing cell `c` have the members containing `c` active (others become indeterminate). */
  private activate(o: MemObject, c: number): void {
    const us = o.layout.unions[c]!;
    for (let i = 0; i < us.length; i++) {
      const [tag, m] = us[i]!;
      if (o.cells[tag] === m) continue;
      const [from, to] = o.layout.unionSpan.get(tag)!;
      for (let k = from; k < to; k++) o.cells[k] = undefined;
      o.cells[tag] = m;
    }
  }

  /** The watched path of an access: logged for the sequencing checks, checked against a running contract. */
  private watch(o: MemObject, c: number, node: number, flags: number): void {
    if (this.logging && o.uid < this.epoch) this.log(o, c, flags);
    if (this.writeFloor !== 0) this.checkContract(o, node, flags);
  }

  /**
   * Enters a call of a `pure` (`readsOwn` false) or `const` function: until `leaveContract`,
   * that call and the calls it makes may write only objects created after this point, access
   * no volatile object, and (for `const`, or inside one) read only objects created after it.
   * Returns what `leaveContract` restores.
   */
  enterContract(name: string, readsOwn: boolean): ContractState {
    const saved: ContractState = {
      writeFloor: this.writeFloor,
      readFloor: this.readFloor,
      writeFunc: this.writeFunc,
      readFunc: this.readFunc,
    };
    this.writeFloor = this.nextUid;
    this.writeFunc = name;
    if (readsOwn) {
      this.readFloor = this.nextUid;
      this.readFunc = name;
    }
    this.watching = true;
    return saved;
  }

  /** Leaves a call entered with `enterContract`. */
  leaveContract(saved: ContractState): void {
    this.writeFloor = saved.writeFloor;
    this.readFloor = saved.readFloor;
    this.writeFunc = saved.writeFunc;
    this.readFunc = saved.readFunc;
    this.watching = this.logging || saved.writeFloor !== 0;
  }

  /** Reports an effect a running `pure` or `const` call may not have: a checksum update or a printed line. */
  contractEffect(node: number, what: string): void {
    this.fault('attribute-contract', node, { message: `${this.writeFunc} ${what}` });
  }

  private checkContract(o: MemObject, node: number, flags: number): void {
    if (flags & V) this.contractEffect(node, `accesses a volatile object (declaration ${o.decl})`);
    else if (flags & W) {
      if (o.uid < this.writeFloor)
        this.contractEffect(node, `writes an object it did not create (declaration ${o.decl})`);
    } else if (o.uid < this.readFloor) {
      this.fault('attribute-contract', node, {
        message: `${this.readFunc} reads an object it did not create (declaration ${o.decl})`,
      });
    }
  }

  /** Records an access for the sequencing checks. */
  log(o: MemObject, c: number, flags: number): void {
    if (this.logLen >= this.limits.maxLog) {
      // A call inside a checked expression ran a very long loop: stop recording, and let the
      // next check fail conservatively (repair then hoists or replaces the call).
      this.logOverflow = true;
      return;
    }
    const i = this.logLen++;
    this.logKey[i] = o.uid * LOC_SCALE + o.layout.loc[c]!;
    this.logFlag[i] = flags | (this.depth << DEPTH_SHIFT);
  }

  /**
   * Checks two unsequenced operands whose accesses are log[s, m) and log[m, e): a write/write or
   * write/read overlap is UB (or an order dependence when made inside a call); volatile accesses
   * on both sides are an observable order (Csmith's one-volatile-access rule).
   */
  checkUnsequenced(s: number, m: number, e: number, node: number, left: number, right: number): void {
    this.checkRanges(s, m, m, e, node, left, right);
  }

  /** The same check for two arbitrary log ranges [ls, le) and [rs, re) (e.g. two call arguments). */
  checkRanges(ls: number, le: number, rs: number, re: number, node: number, left: number, right: number): void {
    if (this.logOverflow)
      return this.fault('order-dependence', node, { operands: [left, right], message: 'access log overflow' });
    if (ls === le || rs === re) return;
    const key = this.logKey;
    const flag = this.logFlag;
    const here = this.depth;
    let lv = false;
    let rv = false;
    for (let i = ls; i < le; i++) if (flag[i]! & V) lv = true;
    for (let j = rs; j < re; j++) if (flag[j]! & V) rv = true;
    if (lv && rv) return this.fault('multiple-volatile-access', node, { operands: [left, right] });
    if ((le - ls) * (re - rs) <= 256) {
      for (let i = ls; i < le; i++) {
        const k = key[i];
        const fi = flag[i]!;
        for (let j = rs; j < re; j++) {
          if (key[j] === k && ((fi | flag[j]!) & W) !== 0) return this.overlap(i, j, here, node, left, right);
        }
      }
      return;
    }
    const firstLeft = new Map<number, number>(); // key → index of a write, else of a read
    for (let i = ls; i < le; i++) {
      const k = key[i]!;
      const prev = firstLeft.get(k);
      if (prev === undefined || (flag[i]! & W && !(flag[prev]! & W))) firstLeft.set(k, i);
    }
    for (let j = rs; j < re; j++) {
      const i = firstLeft.get(key[j]!);
      if (i !== undefined && ((flag[i]! | flag[j]!) & W) !== 0) return this.overlap(i, j, here, node, left, right);
    }
  }

  /**
   * Reports two unsequenced accesses to one location, one of them a write (an order dependence when either was made
   * inside a call).
   */
  private overlap(i: number, j: number, here: number, node: number, left: number, right: number): void {
    const flag = this.logFlag;
    const inCall = flag[i]! >> DEPTH_SHIFT > here || flag[j]! >> DEPTH_SHIFT > here;
    this.fault(inCall ? 'order-dependence' : 'unsequenced-access', node, { operands: [left, right] });
  }

  /**
   * Checks the store of an assignment to (o, c) against side effects on the same location made
   * directly (not inside calls) by either operand, which are unsequenced relative to the store.
   */
  checkStore(o: MemObject, c: number, s: number, e: number, node: number, target: number, value: number): void {
    const k = o.uid * LOC_SCALE + o.layout.loc[c]!;
    for (let i = s; i < e; i++) {
      const f = this.logFlag[i]!;
      if (this.logKey[i] === k && f & W && !(f & DONE))
        return this.fault('unsequenced-access', node, { operands: [target, value] });
    }
  }

  /** Marks log[s, e) as belonging to a call that has returned (its side effects are complete). */
  markDone(s: number, e: number): void {
    for (let i = s; i < e; i++) this.logFlag[i]! |= DONE;
  }

  /** Counts one step; throws when the budget is exhausted. */
  step(node: number): void {
    if (++this.steps > this.stepBudget) raise('step-budget-exceeded', node);
  }

  /** Records the value an arithmetic expression produced. */
  noteNodeValue(id: number, v: CValue): void {
    const m = this.nodeValues!;
    const prev = m.get(id);
    if (prev === undefined) m.set(id, v);
    else if (prev !== VARIED && prev !== v) m.set(id, VARIED);
  }

  /** Adds a 64-bit value to the checksum. */
  hash(v: bigint): void {
    this.hashState = mixHash(this.hashState, v);
  }
}

/** Initial checksum state (the FNV-1a 64-bit offset basis). */
export const HASH_SEED = 0xcbf29ce484222325n;
/** The checksum's multiplier (the FNV-1a 64-bit prime). */
export const HASH_PRIME = 0x100000001b3n;

/**
 * One checksum step over a value already converted to uint64: `h = (h ^ v) * P; h ^= h >> 29`.
 * Each step is a bijection of `h`, so a single wrong value always changes the final checksum.
 */
function mixHash(h: bigint, v: bigint): bigint {
  let x = BigInt.asUintN(64, (h ^ v) * HASH_PRIME);
  x ^= x >> 29n;
  return x;
}

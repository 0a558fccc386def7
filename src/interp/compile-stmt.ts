import { fromBigInt, toBigInt } from '../c/convert.js';
import { hashWidth, promote, type CValue, type IntType } from '../c/types.js';
import { fieldExprType } from '../ir/build.js';
import { checkTarget, type Block, type Expr, type FuncDecl, type Init, type Stmt, type VarDecl } from '../ir/nodes.js';
import { switchCases, walk } from '../ir/visit.js';
import { namedFields, unqualified, type Type } from '../ir/types.js';
import { compileExpr, truthy } from './compile-expr.js';
import { conversion, withConversionAt, type CompileContext, type Ev, type VarHome } from './context.js';
import {
  cellCount,
  fieldOffset,
  isMultiCell,
  layoutOf,
  setCells,
  zeroFill,
  zeroOf,
  type Cell,
  type Layout,
  type MemObject,
} from './memory.js';
import { Completion, Frame, raise, type Runtime } from './runtime.js';

/** A compiled statement: normal execution, and (when it contains labels) entry at a label. */
interface CStmt {
  readonly exec: (f: Frame) => Completion;
  readonly from: ((f: Frame, label: number) => Completion) | undefined;
  readonly labels: ReadonlySet<number>;
}

/** A variable visible at a statement, for the value profiles. */
interface Visible {
  readonly decl: number;
  readonly home: VarHome;
  /** A scalar integer (the whole-program profile records only those; sampled points record every cell). */
  readonly int: boolean;
}

const NO_LABELS: ReadonlySet<number> = new Set();

/** Wraps an expression evaluated as a full expression: sequencing checks are scoped to it. */
function fullExpr(cx: CompileContext, e: Expr): Ev {
  const ev = compileExpr(cx, e);
  if (!cx.effects.needsCheck(e)) return ev;
  const rt = cx.rt;
  return (f) => {
    if (rt.logging) {
      // Inside a call made from a checked expression: keep logging into the outer log, and also
      // log objects created since the outer expression began (this expression's checks see them).
      const saved = rt.epoch;
      rt.epoch = rt.nextUid;
      try {
        return ev(f);
      } finally {
        rt.epoch = saved;
      }
    }
    rt.logging = true;
    rt.watching = true;
    rt.logLen = 0;
    rt.logOverflow = false;
    rt.epoch = rt.nextUid;
    try {
      return ev(f);
    } finally {
      rt.logging = false;
      rt.watching = rt.writeFloor !== 0;
      rt.logLen = 0;
    }
  };
}

/** One step of an initialiser: store a value at a cell offset, copy a record, or select a union member. */
type InitOp =
  | { readonly kind: 'value'; readonly off: number; readonly ev: Ev }
  | { readonly kind: 'fixed'; readonly off: number; readonly value: Cell }
  | { readonly kind: 'copy'; readonly off: number; readonly ev: Ev }
  | { readonly kind: 'tag'; readonly off: number; readonly member: number };

function initOps(cx: CompileContext, t: Type, init: Init, off: number, out: InitOp[]): void {
  if (init.kind === 'init-list') {
    if (t.kind === 'array' || t.kind === 'vector') {
      const esz = t.kind === 'array' ? cellCount(t.of) : 1;
      for (let i = 0; i < init.items.length; i++) initOps(cx, t.of, init.items[i]!, off + i * esz, out);
    } else if (t.kind === 'struct') {
      const fields = namedFields(t);
      init.items.forEach((item, i) => {
        const nf = fields[i];
        if (!nf) throw new Error(`too many initialisers for ${t.name}`);
        initOps(cx, fieldExprType(t, nf.field), item, off + fieldOffset(t, nf.index), out);
      });
    } else if (t.kind === 'union') {
      out.push({ kind: 'tag', off, member: 0 });
      const first = t.fields[0]!;
      if (init.items[0]) initOps(cx, fieldExprType(t, first), init.items[0], off + fieldOffset(t, 0), out);
    } else if (init.items[0]) {
      initOps(cx, t, init.items[0], off, out);
    }
    return;
  }
  if (init.kind === 'const' && !isMultiCell(t)) {
    // A constant initialiser is computed once, here (most initialisers are constants).
    const conv = conversion(init.type, t);
    const raw: CValue =
      init.type.kind === 'int'
        ? init.type.bits > 32
          ? (init.value as bigint)
          : Number(init.value)
        : (init.value as number);
    try {
      out.push({ kind: 'fixed', off, value: (conv ? conv(raw) : raw) as Cell });
      return;
    } catch {
      // A conversion that is UB (float to int out of range) is reported when the program runs.
    }
  }
  const ev = fullExpr(cx, init);
  if (isMultiCell(t)) out.push({ kind: 'copy', off, ev });
  else {
    const conv = conversion(init.type, t);
    out.push({ kind: 'value', off, ev: conv ? (f) => conv(ev(f)) : ev });
  }
}

/**
 * Writes into `cells` what `initOps` would record as `fixed` and `tag` steps, in the same order;
 * false as soon as some part is not a constant (the caller then takes the general path).
 */
function staticImage(t: Type, init: Init, off: number, cells: Cell[]): boolean {
  if (init.kind === 'init-list') {
    if (t.kind === 'array' || t.kind === 'vector') {
      const esz = t.kind === 'array' ? cellCount(t.of) : 1;
      for (let i = 0; i < init.items.length; i++)
        if (!staticImage(t.of, init.items[i]!, off + i * esz, cells)) return false;
      return true;
    }
    if (t.kind === 'struct') {
      const fields = namedFields(t);
      for (let i = 0; i < init.items.length; i++) {
        const nf = fields[i];
        if (!nf) throw new Error(`too many initialisers for ${t.name}`);
        if (!staticImage(fieldExprType(t, nf.field), init.items[i]!, off + fieldOffset(t, nf.index), cells))
          return false;
      }
      return true;
    }
    if (t.kind === 'union') {
      cells[off] = 0;
      return (
        !init.items[0] || staticImage(fieldExprType(t, t.fields[0]!), init.items[0], off + fieldOffset(t, 0), cells)
      );
    }
    return !init.items[0] || staticImage(t, init.items[0], off, cells);
  }
  if (init.kind !== 'const' || isMultiCell(t)) return false;
  const conv = conversion(init.type, t);
  const raw: CValue =
    init.type.kind === 'int'
      ? init.type.bits > 32
        ? (init.value as bigint)
        : Number(init.value)
      : (init.value as number);
  try {
    cells[off] = (conv ? conv(raw) : raw) as Cell;
    return true;
  } catch {
    return false; // a conversion that is UB: reported when the program runs (see initOps)
  }
}

/**
 * Closures of constant initialisers, by declaration. A constant initialiser depends on nothing but
 * its (immutable) declaration, so the repair loop's recompilations, and the reducer's candidates,
 * reuse it instead of walking large array initialisers again.
 */
const constantInits = new WeakMap<VarDecl, (f: Frame, o: MemObject) => void>();

/**
 * A compiled initialiser; `fills`: it sets every cell before evaluating anything (a renewed object need not be cleared
 * first).
 */
interface CInit {
  readonly run: (f: Frame, o: MemObject) => void;
  readonly fills: boolean;
}

/**
 * Compiles a declaration's initialiser into a closure filling a fresh object. Cached with the
 * compiled statements (a global's under function id -1): a declaration is immutable, so a
 * recompiled block, or the globals after a repair elsewhere, reuse its closure instead of walking
 * its initialiser list again. The cache is cleared with the statements' (a global changed type).
 */
function compileInit(cx: CompileContext, d: VarDecl): CInit | undefined {
  const cache = cx.stmtCache(d.storage === 'global' ? -1 : (cx.currentFunc?.id ?? -1));
  const hit = cache?.get(d) as CInit | undefined;
  if (hit) return hit;
  const r = compileInitUncached(cx, d);
  if (r) cache?.set(d, r);
  return r;
}

function compileInitUncached(cx: CompileContext, d: VarDecl): CInit | undefined {
  const needsZero = d.storage === 'global' || d.init?.kind === 'init-list';
  if (!d.init) return needsZero ? { run: (_f, o) => zeroFill(o, d.id), fills: true } : undefined;
  const known = constantInits.get(d);
  if (known) return { run: known, fills: true };
  // Most initialisers are constants throughout (array initialisers are most of a program's
  // nodes): their image is built here directly, the cells `initOps` would set, in its order.
  const layout = layoutOf(d.type);
  const scratch = { layout, cells: new Array<Cell>(layout.size) } as MemObject;
  if (needsZero) zeroFill(scratch, d.id);
  if (staticImage(d.type, d.init, 0, scratch.cells)) {
    const image = scratch.cells;
    const init = (_f: Frame, o: MemObject): void => setCells(o, image);
    constantInits.set(d, init);
    return { run: init, fills: true };
  }
  const ops: InitOp[] = [];
  initOps(cx, d.type, d.init, 0, ops);
  // Some part is not a constant (staticImage said so), so some step is not static.
  const isStatic = (op: InitOp): boolean => op.kind === 'fixed' || op.kind === 'tag';
  const dynamic = ops.filter((op) => !isStatic(op));
  if (needsZero && !refersTo(d.init, d.id)) {
    // An initialiser list mixing constants and expressions: the zeroes and constants form an
    // image built once, and only the expressions run at each entry. No expression can see the
    // difference, since none refers to the object being initialised.
    let image: Cell[] | undefined;
    const run = (f: Frame, o: MemObject): void => {
      if (image) setCells(o, image);
      else {
        zeroFill(o, d.id);
        for (const op of ops)
          if (isStatic(op)) o.cells[op.off] = op.kind === 'tag' ? op.member : (op as { value: Cell }).value;
        image = o.cells.slice();
      }
      applyOps(f, o, dynamic);
    };
    return { run, fills: true };
  }
  return {
    run: (f, o) => {
      if (needsZero) zeroFill(o, d.id);
      applyOps(f, o, ops);
    },
    fills: needsZero,
  };
}

function applyOps(f: Frame, o: MemObject, ops: readonly InitOp[]): void {
  for (const op of ops) {
    if (op.kind === 'tag') o.cells[op.off] = op.member;
    else if (op.kind === 'fixed') o.cells[op.off] = op.value;
    else if (op.kind === 'value') o.cells[op.off] = op.ev(f) as Cell;
    else {
      const v = op.ev(f) as Cell[];
      for (let i = 0; i < v.length; i++) o.cells[op.off + i] = v[i];
    }
  }
}

/** Whether an initialiser names the variable it initialises. */
function refersTo(init: Init, decl: number): boolean {
  let found = false;
  walk(init, (n) => {
    if (n.kind === 'var' && n.decl === decl) found = true;
    return !found;
  });
  return found;
}

/** Allocates and initialises the global objects; returns the closure that (re)initialises them for a run. */
export function compileGlobals(cx: CompileContext): (f: Frame) => void {
  const rt = cx.rt;
  const objs: { o: MemObject; init: ((f: Frame, o: MemObject) => void) | undefined; fills: boolean }[] = [];
  for (const g of cx.program.globals) {
    // Keep the object of a global whose type is unchanged: code compiled earlier refers to it.
    const prev = cx.homes.get(g.id);
    const prevDecl = cx.decls.get(g.id);
    if (!(prev?.kind === 'global' && prevDecl && prevDecl.type === g.type)) {
      cx.homes.set(g.id, { kind: 'global', obj: rt.alloc(layoutOf(g.type), g.id, !!g.type.const) });
    }
    cx.decls.set(g.id, g);
  }
  for (const g of cx.program.globals) {
    const h = cx.homes.get(g.id) as { kind: 'global'; obj: MemObject };
    const init = compileInit(cx, g);
    objs.push({ o: h.obj, init: init?.run, fills: !!init?.fills });
  }
  return (f) => {
    for (const x of objs) {
      // An initialiser that sets every cell before evaluating anything overwrites the last run's values in place.
      if (!x.fills || x.o.cells.length !== x.o.layout.size) x.o.cells = new Array<Cell>(x.o.layout.size);
      x.o.alive = true;
    }
    for (const { o, init } of objs) init?.(f, o);
  };
}

/** Compiles a function; its invoker is stored in the function slot created beforehand. */
export function compileFunction(cx: CompileContext, fn: FuncDecl, globals: readonly Visible[]): void {
  const rt = cx.rt;
  const params = fn.params.map((p) => {
    const slot = cx.slotOf(fn.id, p.id);
    cx.homes.set(p.id, { kind: 'frame', slot });
    cx.decls.set(p.id, p);
    return { slot, layout: layoutOf(p.type), decl: p.id, record: isMultiCell(p.type), isConst: !!p.type.const };
  });
  const scope: Visible[] = [
    ...globals,
    ...fn.params.map((p) => ({ decl: p.id, home: cx.home(p.id), int: p.type.kind === 'int' })),
  ];
  const body = compileBlock(cx, fn.body, scope);
  const nslots = cx.frameSize(fn.id);
  // main may fall off its end (C99 5.1.2.2.3); other functions must return their value.
  const returnsValue = fn.ret.kind !== 'void' && fn.id !== cx.program.main;
  const slot = cx.funcs.get(fn.id)!;
  const zeroRet =
    fn.ret.kind === 'int' || fn.ret.kind === 'float' || fn.ret.kind === 'ptr' ? zeroOf(fn.ret, fn.id) : undefined;
  const maxDepth = rt.limits.maxDepth;
  // Frames of returned calls, reused by later calls: their objects get a new lifetime (uid and
  // generation) exactly as a loop body's locals do at each entry, so a pointer kept from an
  // earlier call is still dangling. A stack, so that even a recursive call gets a frame of its own.
  const spare: Frame[] = [];
  slot.invoke = (args) => {
    if (++rt.depth > maxDepth) raise('step-budget-exceeded', fn.id, { message: 'call depth limit' });
    const f = spare.pop() ?? new Frame(nslots);
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      // Every cell is set below: a reused object needs no clearing.
      const o = rt.renew(f.vars[p.slot], p.layout, p.decl, p.isConst, true);
      const a = args[i]!;
      if (p.record) {
        const cells = a as Cell[];
        for (let k = 0; k < cells.length; k++) o.cells[k] = cells[k];
      } else o.cells[0] = a as Cell;
      f.vars[p.slot] = o;
    }
    const r = body.exec(f);
    if (r === Completion.Goto) throw new Error(`goto to label ${f.gotoLabel} escaped function ${fn.name}`);
    for (const p of params) f.vars[p.slot]!.alive = false;
    rt.depth--;
    const ret = f.ret;
    f.ret = undefined;
    spare.push(f);
    // Falling off the end of a function whose value the caller uses is undefined; Kiln's
    // generators always return, so treat the missing value as an uninitialised read.
    if (returnsValue && r !== Completion.Return) {
      rt.fault('uninitialised-read', fn.id, { message: `${fn.name} ended without return` });
      return zeroRet;
    }
    return ret as Cell;
  };
  const contract = fn.attributes?.find((a) => a.name === 'const' || a.name === 'pure')?.name;
  if (contract) {
    // The attribute is a promise the compiler may act on (merge, hoist or drop calls): every
    // executed call is held to it, so a variant whose attribute does not hold fails its proof.
    const plain = slot.invoke;
    const name = `${fn.name} (${contract})`;
    const readsOwn = contract === 'const';
    slot.invoke = (args) => {
      const saved = rt.enterContract(name, readsOwn);
      const r = plain(args);
      rt.leaveContract(saved);
      return r;
    };
  }
}

function compileStmt(cx: CompileContext, s: Stmt, scope: readonly Visible[]): CStmt {
  const cache = cx.stmtCache(cx.currentFunc!.id);
  const known = cache?.get(s) as CStmt | undefined;
  if (known) return known;
  const compiled = compileStmtUncached(cx, s, scope);
  cache?.set(s, compiled);
  return compiled;
}

function compileStmtUncached(cx: CompileContext, s: Stmt, scope: readonly Visible[]): CStmt {
  const c = compileStmtInner(cx, s, scope);
  const rt = cx.rt;
  const idx = cx.stmtIndex.get(s.id);
  if (idx === undefined) throw new Error(`statement ${s.id} missing from the index`);
  const id = s.id;
  const inner = c.exec;
  let exec: (f: Frame) => Completion = (f) => {
    rt.stmtCounts[idx]++;
    rt.step(id);
    return inner(f);
  };
  if (cx.profileValues) {
    const vis = scope.filter((v) => v.int);
    const counted = exec;
    exec = (f) => {
      recordValues(rt, id, vis, f);
      return counted(f);
    };
  }
  // Sampled points (EMI's value profile): only the chosen statements pay for recording.
  if (cx.profilePoints?.has(id)) {
    const vis = scope;
    const inner2 = exec;
    exec = (f) => {
      recordCells(rt, id, vis, f);
      return inner2(f);
    };
  }
  return { exec, from: c.from, labels: c.labels };
}

/**
 * Values each arithmetic cell held at a sampled point: statement → decl → cell → values (exact, at most 64; null when
 * not arithmetic on some visit, or more values).
 */
function recordCells(rt: Runtime, stmt: number, vis: readonly Visible[], f: Frame): void {
  const points = rt.points;
  if (!points) return;
  let perStmt = points.get(stmt);
  if (!perStmt) points.set(stmt, (perStmt = new Map()));
  for (const v of vis) {
    const o = v.home.kind === 'global' ? v.home.obj : f.vars[v.home.slot];
    if (!o?.alive) continue;
    let cells = perStmt.get(v.decl);
    if (!cells) perStmt.set(v.decl, (cells = []));
    for (let i = 0; i < o.cells.length; i++) {
      const cell = o.cells[i];
      let set = cells[i];
      if (set === null) continue;
      // A cell not arithmetic on some visit (uninitialised, a pointer, a union tag) is never an
      // observable there: reading it on that visit could be undefined.
      if (cell === undefined || typeof cell === 'object') {
        cells[i] = null;
        continue;
      }
      if (!set) cells[i] = set = new Set();
      // A set is exact or absent: predicates are built to hold for every value, so a cell that
      // took more than 64 values at this point is dropped rather than truncated.
      if (set.size >= 64 && !set.has(cell as CValue)) cells[i] = null;
      else set.add(cell as CValue);
    }
  }
}

function recordValues(rt: Runtime, stmt: number, vis: readonly Visible[], f: Frame): void {
  const values = rt.values;
  if (!values) return;
  let perStmt = values.get(stmt);
  if (!perStmt) values.set(stmt, (perStmt = new Map()));
  for (const v of vis) {
    const o = v.home.kind === 'global' ? v.home.obj : f.vars[v.home.slot];
    if (!o?.alive) continue;
    const cell = o.cells[0];
    if (cell === undefined || typeof cell === 'object') continue;
    let set = perStmt.get(v.decl);
    if (!set) perStmt.set(v.decl, (set = new Set()));
    if (set.size < 64) set.add(cell as CValue);
  }
}

function compileStmtInner(cx: CompileContext, s: Stmt, scope: readonly Visible[]): CStmt {
  const rt = cx.rt;
  switch (s.kind) {
    case 'block':
      return compileBlockInner(cx, s, scope);
    case 'expr': {
      const ev = fullExpr(cx, s.expr);
      return {
        exec: (f) => {
          ev(f);
          return Completion.Normal;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'hash': {
      const ev = fullExpr(cx, s.value);
      const t = s.value.type;
      const toU64 =
        t.kind === 'float'
          ? (v: CValue) => BigInt.asUintN(64, BigInt(Math.trunc(v as number)))
          : (v: CValue) => BigInt.asUintN(64, typeof v === 'bigint' ? v : BigInt(v));
      const id = s.id;
      const width = t.kind === 'int' ? BigInt(hashWidth(t)) : 64n;
      if (width > 64n) {
        // A value wider than 64 bits enters the checksum in 64-bit pieces of its unsigned
        // representation, lowest first (the emitter's kiln_hash_wN does the same).
        const n = Number(width);
        return {
          exec: (f) => {
            const u = BigInt.asUintN(n, toBigInt(ev(f) as CValue));
            if (rt.writeFloor !== 0) rt.contractEffect(id, 'updates the checksum');
            for (let k = 0n; k < width; k += 64n) rt.hash(BigInt.asUintN(64, u >> k));
            return Completion.Normal;
          },
          from: undefined,
          labels: NO_LABELS,
        };
      }
      return {
        exec: (f) => {
          const v = toU64(ev(f) as CValue);
          if (rt.writeFloor !== 0) rt.contractEffect(id, 'updates the checksum');
          rt.hash(v);
          return Completion.Normal;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'check': {
      const ev = fullExpr(cx, s.value);
      const t = unqualified(s.value.type);
      if (t.kind !== 'int' && t.kind !== 'float')
        throw new Error(`check ${s.id}: value must be arithmetic, got ${t.kind}`);
      // The expected value in the representation the value's type uses at run time, so one
      // strict comparison decides (floating values are integral; -0 === 0 as -0.0 == 0.0 in C); NaN, which
      // equals nothing, when the type cannot hold it.
      const target = checkTarget(t, s.expected);
      const want =
        target === undefined ? NaN : t.kind === 'float' ? (target as number) : fromBigInt(target as bigint, t);
      const id = s.id;
      return {
        exec: (f) => {
          const ok = ev(f) === want;
          if (rt.writeFloor !== 0) rt.contractEffect(id, 'prints a line');
          rt.output.push(ok ? '@OK@' : '@NG@');
          return Completion.Normal;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'if': {
      const c = fullExpr(cx, s.cond);
      const t = compileBlock(cx, s.then, scope);
      const e = s.else ? compileBlock(cx, s.else, scope) : undefined;
      const labels = new Set([...t.labels, ...(e?.labels ?? [])]);
      return {
        exec: e ? (f) => (truthy(c(f)) ? t.exec(f) : e.exec(f)) : (f) => (truthy(c(f)) ? t.exec(f) : Completion.Normal),
        from: labels.size ? (f, label) => (t.labels.has(label) ? t.from!(f, label) : e!.from!(f, label)) : undefined,
        labels,
      };
    }
    case 'for': {
      const init = s.init ? fullExpr(cx, s.init) : undefined;
      const cond = s.cond ? fullExpr(cx, s.cond) : undefined;
      const step = s.step ? fullExpr(cx, s.step) : undefined;
      const body = compileBlock(cx, s.body, scope);
      const li = cx.loopIndex.get(s.id)!;
      const id = s.id;
      const isDo = s.form === 'do';
      // `first`: a do loop runs its first iteration without testing the condition.
      const loop = (f: Frame, first: boolean): Completion => {
        for (;;) {
          if (!first && cond && !truthy(cond(f))) return Completion.Normal;
          first = false;
          rt.loopIters[li]++;
          rt.step(id);
          const r = body.exec(f);
          if (r === Completion.Break) return Completion.Normal;
          if (r === Completion.Return || r === Completion.Goto) return r;
          if (step) step(f);
        }
      };
      return {
        exec: (f) => {
          if (init) init(f);
          return loop(f, isDo);
        },
        from: body.labels.size
          ? (f, label) => {
              const r = body.from!(f, label);
              if (r === Completion.Break) return Completion.Normal;
              if (r === Completion.Return || r === Completion.Goto) return r;
              if (step) step(f);
              return loop(f, false);
            }
          : undefined,
        labels: body.labels,
      };
    }
    case 'switch': {
      const c = fullExpr(cx, s.cond);
      const ct = promote(unqualified(s.cond.type) as IntType);
      const body = compileBlock(cx, s.body, scope);
      // Case values are converted to the promoted type of the controlling expression (C11 6.8.4.2p5).
      const targets = new Map<string, number>();
      let fallback = -1;
      // Case labels may sit in nested blocks, ifs and loops of the body (Duff's device): the body's
      // `from` enters each of them as it enters a goto's label.
      const cases = switchCases(s.body);
      for (const st of cases) {
        if (st.value === undefined) fallback = st.id;
        else targets.set(String(fromBigInt(st.value, ct)), st.id);
      }
      const toCt = conversion(s.cond.type, ct);
      const dispatch = (r: Completion): Completion => (r === Completion.Break ? Completion.Normal : r);
      return {
        exec: (f) => {
          const v = c(f);
          const target = targets.get(String(toCt ? toCt(v) : v)) ?? fallback;
          if (target < 0) return Completion.Normal;
          return dispatch(body.from!(f, target));
        },
        from: body.labels.size ? (f, label) => dispatch(body.from!(f, label)) : undefined,
        // Case labels are reached only through the switch; only goto labels are visible outside.
        labels: new Set([...body.labels].filter((l) => !cases.some((st) => st.id === l))),
      };
    }
    case 'case':
      return { exec: () => Completion.Normal, from: () => Completion.Normal, labels: new Set([s.id]) };
    case 'return': {
      if (!s.value) {
        return {
          exec: () => Completion.Return,
          from: undefined,
          labels: NO_LABELS,
        };
      }
      const fn = cx.currentFunc!;
      const ev = withConversionAt(fullExpr(cx, s.value), s.value.type, fn.ret, cx.rt, s.value.id);
      return {
        exec: (f) => {
          f.ret = ev(f) as Cell;
          return Completion.Return;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'break':
      return { exec: () => Completion.Break, from: undefined, labels: NO_LABELS };
    case 'continue':
      return { exec: () => Completion.Continue, from: undefined, labels: NO_LABELS };
    case 'goto': {
      const label = s.label;
      return {
        exec: (f) => {
          f.gotoLabel = label;
          return Completion.Goto;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'igoto': {
      // `goto *tbl[index]`: the index is a full expression; outside the table it is a read out of
      // bounds (collect mode goes on at the index the repair gives, (uint32_t)index % length).
      const ev = fullExpr(cx, s.index);
      const table = s.labels;
      const len = table.length;
      const id = s.id;
      return {
        exec: (f) => {
          const v = ev(f) as number | bigint;
          let label = typeof v === 'number' ? table[v] : v >= 0n && v < BigInt(len) ? table[Number(v)] : undefined;
          if (label === undefined) {
            const big = BigInt(v);
            rt.fault('out-of-bounds', id, { index: big, length: len, message: 'indirect goto outside its table' });
            label = table[Number(BigInt.asUintN(32, big) % BigInt(len))]!;
          }
          f.gotoLabel = label;
          return Completion.Goto;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'label':
      return { exec: () => Completion.Normal, from: () => Completion.Normal, labels: new Set([s.id]) };
    case 'unreachable': {
      const id = s.id;
      return {
        exec: () => {
          rt.fault('unreachable-reached', id, { message: '__builtin_unreachable() reached' });
          return Completion.Normal;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
    case 'assume': {
      const c = fullExpr(cx, s.cond);
      const id = s.id;
      return {
        exec: (f) => {
          if (!truthy(c(f))) rt.fault('unreachable-reached', id, { message: '__builtin_assume of a false condition' });
          return Completion.Normal;
        },
        from: undefined,
        labels: NO_LABELS,
      };
    }
  }
}

/** Compiles a block as a statement (counted like any statement). */
function compileBlock(cx: CompileContext, b: Block, scope: readonly Visible[]): CStmt {
  return compileStmt(cx, b, scope);
}

function compileBlockInner(cx: CompileContext, b: Block, outer: readonly Visible[]): CStmt {
  const rt = cx.rt;
  const locals = b.locals.map((d) => {
    const slot = cx.slotOf(cx.currentFunc!.id, d.id);
    cx.homes.set(d.id, { kind: 'frame', slot });
    cx.decls.set(d.id, d);
    return { slot, decl: d.id, layout: layoutOf(d.type) as Layout, isConst: !!d.type.const, init: compileInit(cx, d) };
  });
  const scope = [...outer, ...b.locals.map((d) => ({ decl: d.id, home: cx.home(d.id), int: d.type.kind === 'int' }))];
  const kids = b.stmts.map((s) => compileStmt(cx, s, scope));
  const n = kids.length;
  const labelChild = new Map<number, number>();
  kids.forEach((k, i) => {
    for (const l of k.labels) labelChild.set(l, i);
  });
  const labels: ReadonlySet<number> = labelChild.size ? new Set(labelChild.keys()) : NO_LABELS;
  const enter = (f: Frame, initialise: boolean): void => {
    for (const l of locals) {
      const init = initialise ? l.init : undefined;
      const o = rt.renew(f.vars[l.slot], l.layout, l.decl, l.isConst, init?.fills === true);
      f.vars[l.slot] = o;
      if (init) init.run(f, o);
    }
  };
  const leave = (f: Frame): void => {
    for (const l of locals) f.vars[l.slot]!.alive = false;
  };
  // Runs children from `start`; a goto to a label inside this block resumes at that label.
  const run = (f: Frame, start: number, label: number): Completion => {
    let i = start;
    let r: Completion = Completion.Normal;
    if (label >= 0) {
      r = kids[i]!.from!(f, label);
      i++;
    }
    for (;;) {
      while (r === Completion.Normal && i < n) {
        r = kids[i]!.exec(f);
        i++;
      }
      if (r !== Completion.Goto) return r;
      const k = labelChild.get(f.gotoLabel);
      if (k === undefined) return r;
      r = kids[k]!.from!(f, f.gotoLabel);
      i = k + 1;
    }
  };
  if (locals.length === 0) {
    return {
      exec: (f) => run(f, 0, -1),
      from: labels.size ? (f, label) => run(f, labelChild.get(label)!, label) : undefined,
      labels,
    };
  }
  return {
    exec: (f) => {
      enter(f, true);
      const r = run(f, 0, -1);
      leave(f);
      return r;
    },
    from: labels.size
      ? (f, label) => {
          // Jumping into a block skips its declarations: the objects exist but are uninitialised.
          enter(f, false);
          const r = run(f, labelChild.get(label)!, label);
          leave(f);
          return r;
        }
      : undefined,
    labels,
  };
}

export type { Visible };

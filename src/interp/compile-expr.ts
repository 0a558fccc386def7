import { isTrue } from '../c/convert.js';
import { binaryOperationType } from '../c/eval.js';
import {
  arithKernel,
  binaryKernel,
  isCompare,
  shiftKernel,
  unaryKernel,
  type ArithBinaryOp,
  type CompareOp,
  type OnUB,
} from '../c/ops.js';
import { promote, promoteArith, type ArithType, type CValue, type IntType } from '../c/types.js';
import type { Expr } from '../ir/nodes.js';
import { compoundOperator } from '../ir/nodes.js';
import { unqualified, type Type } from '../ir/types.js';
import {
  conversion,
  withConversion,
  withConversionAt,
  zeroValue,
  type CompileContext,
  type Ev,
  type Lv,
} from './context.js';
import { cellCount, dangling, fieldOffset, isMultiCell, layoutOf, type Cell, type Ptr } from './memory.js';
import { V, type Runtime } from './runtime.js';
import { compileVector } from './vector.js';

/** Safe-math semantics: when the operation would be undefined, the result is the left operand. */
const leftOperand: OnUB = (_kind, a) => a;

/**
 * The UB handler of an operator node: reports UB at `node` with the operand values (throwing,
 * or recording in collect mode) and lets execution continue with the left operand.
 */
function faultAt(rt: Runtime, node: number): OnUB {
  return (kind, a, b) => {
    rt.fault(kind, node, { values: [a, b] });
    return a;
  };
}

/** Truth value of any scalar cell. */
export function truthy(v: Cell | Cell[]): boolean {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return (v as Ptr).obj !== null;
  return isTrue(v as CValue);
}

function accessFlags(t: Type): number {
  return t.volatile ? V : 0;
}

/** Compiles an lvalue expression to a closure that leaves its object and cell in `rt.lo`/`rt.lc`. */
function compileLvalue(cx: CompileContext, e: Expr): Lv {
  const rt = cx.rt;
  const id = e.id;
  switch (e.kind) {
    case 'var': {
      const h = cx.home(e.decl);
      if (h.kind === 'global') {
        const o = h.obj;
        return () => {
          rt.lo = o;
          rt.lc = 0;
        };
      }
      const slot = h.slot;
      return (f) => {
        rt.lo = f.vars[slot]!;
        rt.lc = 0;
      };
    }
    case 'field': {
      const b = compileLvalue(cx, e.base);
      const off = fieldOffset(e.base.type, e.field);
      return (f) => {
        b(f);
        rt.lc += off;
      };
    }
    case 'index': {
      const at = e.base.type;
      if (at.kind !== 'array' && at.kind !== 'vector') throw new Error('index on a non-array');
      const b = compileLvalue(cx, e.base);
      const ix = compileExpr(cx, e.index);
      const len = at.kind === 'array' ? at.length : at.lanes;
      const esz = at.kind === 'array' ? cellCount(at.of) : 1;
      const check = cx.effects.checkAt(e);
      const baseId = e.base.id;
      const indexId = e.index.id;
      const bounds = (i: Cell | Cell[]): number => {
        const n = typeof i === 'bigint' ? (i < 0n || i >= BigInt(len) ? -1 : Number(i)) : (i as number);
        if (n >= 0 && n < len) return n;
        const big = typeof i === 'bigint' ? i : BigInt(i as number);
        rt.fault('out-of-bounds', id, { index: big, length: len });
        // Collect mode: continue at the index the repair would give, (unsigned) i % len.
        return Number(BigInt.asUintN(32, big) % BigInt(len));
      };
      if (!check) {
        return (f) => {
          b(f);
          const o = rt.lo;
          const c = rt.lc;
          const n = bounds(ix(f));
          rt.lo = o;
          rt.lc = c + n * esz;
        };
      }
      return (f) => {
        const s = rt.logLen;
        b(f);
        const o = rt.lo;
        const c = rt.lc;
        const m = rt.logLen;
        const i = ix(f);
        rt.checkUnsequenced(s, m, rt.logLen, id, baseId, indexId);
        const n = bounds(i);
        rt.lo = o;
        rt.lc = c + n * esz;
      };
    }
    case 'deref': {
      const p = compileExpr(cx, e.ptr);
      const pointee = e.type.kind === 'void' ? undefined : layoutOf(e.type);
      return (f) => {
        const v = p(f) as Ptr;
        const o = v.obj;
        if (o === null || !o.alive || o.gen !== v.gen) {
          rt.fault(o === null ? 'null-dereference' : 'dangling-dereference', id, { pointerOrigin: v.origin });
          // Collect mode: continue on a zero-filled stand-in object.
          rt.lo = rt.standIn(pointee!);
          rt.lc = 0;
          return;
        }
        rt.lo = o;
        rt.lc = v.cell;
      };
    }
    default:
      throw new Error(`${e.kind} is not an lvalue`);
  }
}

/** Compiles an rvalue expression to a closure returning its value (recording it when node values are profiled). */
export function compileExpr(cx: CompileContext, e: Expr): Ev {
  const ev = compileExprInner(cx, e);
  if (!cx.profileNodes || (e.type.kind !== 'int' && e.type.kind !== 'float')) return ev;
  const rt = cx.rt;
  const id = e.id;
  return (f) => {
    const v = ev(f);
    rt.noteNodeValue(id, v as CValue);
    return v;
  };
}

function compileExprInner(cx: CompileContext, e: Expr): Ev {
  const rt = cx.rt;
  const id = e.id;
  if (
    e.kind === 'vec' ||
    (e.type.kind === 'vector' && (e.kind === 'unary' || e.kind === 'binary' || e.kind === 'cast'))
  )
    return compileVector(cx, e, compileExpr);
  switch (e.kind) {
    case 'const': {
      const t = e.type;
      const v: CValue = t.kind === 'int' ? (t.bits > 32 ? (e.value as bigint) : Number(e.value)) : (e.value as number);
      return () => v;
    }
    case 'null': {
      const p: Ptr = { obj: null, cell: 0, origin: id, gen: 0 };
      return () => p;
    }
    case 'var':
    case 'field':
    case 'index':
    case 'deref':
      return compileRead(cx, e);
    case 'addr': {
      const l = compileLvalue(cx, e.target);
      // Pointers are immutable values: hand out the last one again when it is the same address
      // (initialisers such as `{&g_1, &g_1, …}` of large local arrays evaluate `&x` very often).
      let last: Ptr | undefined;
      return (f) => {
        l(f);
        const o = rt.lo;
        if (last && last.obj === o && last.cell === rt.lc && last.gen === o.gen) return last;
        return (last = { obj: o, cell: rt.lc, origin: id, gen: o.gen } as Ptr);
      };
    }
    case 'unary': {
      const x = compileExpr(cx, e.operand);
      const ot = e.operand.type;
      if (e.op === '!') return (f) => (truthy(x(f)) ? 0 : 1);
      const pt = promoteArith(unqualified(ot) as ArithType);
      const k = unaryKernel(e.op, pt);
      const xc = withConversion(x, conversion(ot, pt));
      const onUB = faultAt(rt, id);
      return (f) => k(xc(f) as CValue, onUB);
    }
    case 'binary':
      return compileBinary(cx, e);
    case 'cond': {
      const c = compileExpr(cx, e.cond);
      const a = withConversionAt(compileExpr(cx, e.then), e.then.type, e.type, rt, e.then.id);
      const b = withConversionAt(compileExpr(cx, e.else), e.else.type, e.type, rt, e.else.id);
      return (f) => (truthy(c(f)) ? a(f) : b(f));
    }
    case 'cast':
      return withConversionAt(compileExpr(cx, e.operand), e.operand.type, e.type, rt, id);
    case 'call':
      return compileCall(cx, e);
    case 'assign':
      return compileAssign(cx, e);
    case 'incdec': {
      const l = compileLvalue(cx, e.target);
      const tt = unqualified(e.target.type) as IntType;
      const pt = promote(tt);
      const k = arithKernel(e.op === '++' ? '+' : '-', pt);
      const up = conversion(tt, pt);
      const down = conversion(pt, tt);
      const one: CValue = pt.bits > 32 ? 1n : 1;
      const flags = accessFlags(e.target.type);
      const prefix = e.prefix;
      const onUB = faultAt(rt, id);
      return (f) => {
        l(f);
        const o = rt.lo;
        const c = rt.lc;
        const old = rt.read(o, c, id, flags) as CValue;
        const r = k(up ? (up(old) as CValue) : old, one, onUB);
        const nv = down ? (down(r) as CValue) : r;
        rt.write(o, c, nv, id, flags);
        return prefix ? nv : old;
      };
    }
    case 'comma': {
      const l = compileExpr(cx, e.left);
      const r = compileExpr(cx, e.right);
      return (f) => {
        l(f);
        return r(f);
      };
    }
    case 'safe':
      return compileSafe(cx, e);
  }
}

/** Reads the object an lvalue expression designates (scalar value or record cells). */
function compileRead(cx: CompileContext, e: Expr): Ev {
  const rt = cx.rt;
  const id = e.id;
  const t = e.type;
  const flags = accessFlags(t);
  if (t.kind === 'array') throw new Error(`array ${id} used as a value (Kiln has no array-to-pointer decay)`);
  if (isMultiCell(t)) {
    const l = compileLvalue(cx, e);
    const n = cellCount(t);
    if (t.kind === 'vector') {
      // A vector value is computed with, not only copied: every lane must hold a value (in
      // collect mode a lane of an inactive union member or an uninitialised one goes on as 0).
      const zero = zeroValue(t.of);
      return (f) => {
        l(f);
        const lanes = rt.readRange(rt.lo, rt.lc, n, id, flags);
        for (let i = 0; i < n; i++) {
          if (lanes[i] !== undefined) continue;
          rt.fault('uninitialised-read', id);
          lanes[i] = zero;
        }
        return lanes;
      };
    }
    return (f) => {
      l(f);
      return rt.readRange(rt.lo, rt.lc, n, id, flags);
    };
  }
  let read: Ev;
  if (e.kind === 'var') {
    const h = cx.home(e.decl);
    if (h.kind === 'global') {
      const o = h.obj;
      read = () => rt.read(o, 0, id, flags);
    } else {
      const slot = h.slot;
      read = (f) => rt.read(f.vars[slot]!, 0, id, flags);
    }
  } else {
    const l = compileLvalue(cx, e);
    read = (f) => {
      l(f);
      return rt.read(rt.lo, rt.lc, id, flags);
    };
  }
  if (t.kind !== 'ptr') return read;
  return (f) => {
    const p = read(f) as Ptr;
    if (dangling(p)) rt.fault('dangling-pointer-use', id, { pointerOrigin: p.origin });
    return p;
  };
}

function compileBinary(cx: CompileContext, e: Expr & { kind: 'binary' }): Ev {
  const rt = cx.rt;
  const id = e.id;
  const L = compileExpr(cx, e.left);
  const R = compileExpr(cx, e.right);
  if (e.op === '&&') return (f) => (truthy(L(f)) ? (truthy(R(f)) ? 1 : 0) : 0);
  if (e.op === '||') return (f) => (truthy(L(f)) ? 1 : truthy(R(f)) ? 1 : 0);
  let op: (a: Cell | Cell[], b: Cell | Cell[]) => Cell;
  if (e.left.type.kind === 'ptr') {
    const eq = e.op === '==';
    op = (a, b) => {
      const p = a as Ptr;
      const q = b as Ptr;
      return (p.obj === q.obj && (p.obj === null || p.cell === q.cell)) === eq ? 1 : 0;
    };
  } else {
    const lt = unqualified(e.left.type) as ArithType;
    const rtp = unqualified(e.right.type) as ArithType;
    const ot = binaryOperationType(e.op, lt, rtp);
    const shift = e.op === '<<' || e.op === '>>';
    const countType = shift ? promote(rtp as IntType) : undefined;
    const k = shift
      ? shiftKernel(e.op as '<<' | '>>', ot as IntType, countType!)
      : isCompare(e.op)
        ? binaryKernel(e.op as CompareOp, ot)
        : arithKernel(e.op as Exclude<ArithBinaryOp, '<<' | '>>'>, ot);
    const cl = conversion(lt, ot);
    const cr = conversion(rtp, shift ? countType! : ot);
    const onUB = faultAt(rt, id);
    if (ot.kind === 'float' && (lt.kind === 'int' || rtp.kind === 'int')) {
      // An integer operand converted to a floating common type may break the exactness rule:
      // report it at this operator (collect mode goes on with a zero).
      op = (a, b) => {
        let x: CValue;
        let y: CValue;
        try {
          x = (cl ? cl(a) : a) as CValue;
          y = (cr ? cr(b) : b) as CValue;
        } catch (err) {
          rt.kernelFault(err, id);
          return 0;
        }
        return k(x, y, onUB);
      };
    } else op = (a, b) => k((cl ? cl(a) : a) as CValue, (cr ? cr(b) : b) as CValue, onUB);
  }
  if (!cx.effects.checkAt(e)) return (f) => op(L(f), R(f));
  const lid = e.left.id;
  const rid = e.right.id;
  return (f) => {
    const s = rt.logLen;
    const a = L(f);
    const m = rt.logLen;
    const b = R(f);
    rt.checkUnsequenced(s, m, rt.logLen, id, lid, rid);
    return op(a, b);
  };
}

function compileSafe(cx: CompileContext, e: Expr & { kind: 'safe' }): Ev {
  const rt = cx.rt;
  const id = e.id;
  const lt = unqualified(e.left.type) as IntType;
  const ot = e.type as IntType;
  const L = withConversion(compileExpr(cx, e.left), conversion(lt, ot));
  if (e.op === 'neg') {
    const k = unaryKernel('-', ot);
    return (f) => k(L(f) as CValue, leftOperand);
  }
  const right = e.right!;
  const rtp = unqualified(right.type) as IntType;
  const shift = e.op === '<<' || e.op === '>>';
  const countType = shift ? promote(rtp) : ot;
  const R = withConversion(compileExpr(cx, right), conversion(rtp, countType));
  const k = shift
    ? shiftKernel(e.op as '<<' | '>>', ot, countType)
    : arithKernel(e.op as '+' | '-' | '*' | '/' | '%', ot);
  const apply = (a: CValue, b: CValue): CValue => k(a, b, leftOperand);
  if (!cx.effects.checkAt(e)) return (f) => apply(L(f) as CValue, R(f) as CValue);
  const lid = e.left.id;
  const rid = right.id;
  return (f) => {
    const s = rt.logLen;
    const a = L(f) as CValue;
    const m = rt.logLen;
    const b = R(f) as CValue;
    rt.checkUnsequenced(s, m, rt.logLen, id, lid, rid);
    return apply(a, b);
  };
}

function compileCall(cx: CompileContext, e: Expr & { kind: 'call' }): Ev {
  const call = compileCallValue(cx, e);
  if (cx.funcs.get(e.func)!.decl.ret.kind !== 'ptr') return call;
  // A returned pointer to the callee's own local or parameter is dangling the moment the call
  // ends, and using that value is undefined (C11 6.2.4p2, J.2), even when nothing dereferences it:
  // GCC returns a null pointer instead of a local's address (measured: Eva's `\dangling` alarm on
  // a Kiln program that only passed such a value on).
  const rt = cx.rt;
  const id = e.id;
  return (f) => {
    const p = call(f) as Ptr;
    if (dangling(p)) rt.fault('dangling-pointer-use', id, { pointerOrigin: p.origin });
    return p;
  };
}

function compileCallValue(cx: CompileContext, e: Expr & { kind: 'call' }): Ev {
  const rt = cx.rt;
  const id = e.id;
  const slot = cx.funcs.get(e.func);
  if (!slot) throw new Error(`call to unknown function ${e.func}`);
  const params = slot.decl.params;
  const args = e.args.map((a, i) => withConversionAt(compileExpr(cx, a), a.type, params[i]!.type, rt, a.id));
  const n = args.length;
  const check = cx.effects.checkAt(e);
  const argIds = e.args.map((a) => a.id);
  if (!check) {
    return (f) => {
      const s = rt.logLen;
      const vals = new Array<Cell | Cell[]>(n);
      for (let i = 0; i < n; i++) vals[i] = args[i]!(f);
      const r = slot.invoke(vals);
      if (rt.logging) rt.markDone(s, rt.logLen);
      return r;
    };
  }
  return (f) => {
    const s = rt.logLen;
    const marks = new Array<number>(n + 1);
    const vals = new Array<Cell | Cell[]>(n);
    for (let i = 0; i < n; i++) {
      marks[i] = rt.logLen;
      vals[i] = args[i]!(f);
    }
    marks[n] = rt.logLen;
    for (let i = 0; i + 1 < n; i++) {
      for (let j = i + 1; j < n; j++)
        rt.checkRanges(marks[i]!, marks[i + 1]!, marks[j]!, marks[j + 1]!, id, argIds[i]!, argIds[j]!);
    }
    const r = slot.invoke(vals);
    rt.markDone(s, rt.logLen);
    return r;
  };
}

function compileAssign(cx: CompileContext, e: Expr & { kind: 'assign' }): Ev {
  const rt = cx.rt;
  const id = e.id;
  const tl = compileLvalue(cx, e.target);
  const tt = e.target.type;
  const flags = accessFlags(tt);
  const check = cx.effects.checkAt(e);
  const tid = e.target.id;
  const vid = e.value.id;
  if (e.op === '=') {
    const V0 = withConversionAt(compileExpr(cx, e.value), e.value.type, tt, rt, e.value.id);
    if (isMultiCell(tt)) {
      return (f) => {
        const s = rt.logLen;
        tl(f);
        const o = rt.lo;
        const c = rt.lc;
        const m = rt.logLen;
        const v = V0(f) as Cell[];
        if (check) {
          rt.checkUnsequenced(s, m, rt.logLen, id, tid, vid);
          rt.checkStore(o, c, s, rt.logLen, id, tid, vid);
        }
        rt.writeRange(o, c, v, id, flags);
        return v;
      };
    }
    if (!check) {
      return (f) => {
        tl(f);
        const o = rt.lo;
        const c = rt.lc;
        const v = V0(f) as Cell;
        rt.write(o, c, v, id, flags);
        return v;
      };
    }
    return (f) => {
      const s = rt.logLen;
      tl(f);
      const o = rt.lo;
      const c = rt.lc;
      const m = rt.logLen;
      const v = V0(f) as Cell;
      rt.checkUnsequenced(s, m, rt.logLen, id, tid, vid);
      rt.checkStore(o, c, s, rt.logLen, id, tid, vid);
      rt.write(o, c, v, id, flags);
      return v;
    };
  }
  // Compound assignment: E1 op= E2 is E1 = E1 op E2 with E1 evaluated once.
  const op = compoundOperator(e.op);
  const lt = unqualified(tt) as ArithType;
  const vt = unqualified(e.value.type) as ArithType;
  const shift = op === '<<' || op === '>>';
  const ot = binaryOperationType(op, lt, vt);
  const countType = shift ? promote(vt as IntType) : ot;
  const k = shift
    ? shiftKernel(op as '<<' | '>>', ot as IntType, countType as IntType)
    : arithKernel(op as Exclude<ArithBinaryOp, '<<' | '>>'>, ot);
  const up = conversion(lt, ot);
  const rc = conversion(vt, countType);
  const down = conversion(ot, lt);
  const V1 = compileExpr(cx, e.value);
  const onUB = faultAt(rt, id);
  return (f) => {
    const s = rt.logLen;
    tl(f);
    const o = rt.lo;
    const c = rt.lc;
    const old = rt.read(o, c, id, flags) as CValue;
    const m = rt.logLen;
    const b = V1(f) as CValue;
    if (check) {
      rt.checkUnsequenced(s, m, rt.logLen, id, tid, vid);
      rt.checkStore(o, c, s, rt.logLen, id, tid, vid);
    }
    let nv: CValue;
    try {
      const r = k((up ? up(old) : old) as CValue, (rc ? rc(b) : b) as CValue, onUB);
      nv = (down ? down(r) : r) as CValue;
    } catch (err) {
      // A conversion into or out of a floating type broke the exactness rule or a range.
      rt.kernelFault(err, id);
      nv = zeroValue(lt) as CValue;
    }
    rt.write(o, c, nv, id, flags);
    return nv;
  };
}

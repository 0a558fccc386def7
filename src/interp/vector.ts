import { converter } from '../c/convert.js';
import {
  arithKernel,
  compareKernel,
  isCompare,
  shiftKernel,
  unaryKernel,
  type ArithBinaryOp,
  type BinaryKernel,
  type CompareOp,
  type OnUB,
} from '../c/ops.js';
import { bitInt, type CValue, type FloatType, type IntType } from '../c/types.js';
import type { Expr } from '../ir/nodes.js';
import { unqualified, type VectorT } from '../ir/types.js';
import type { CompileContext, Ev } from './context.js';
import type { Cell } from './memory.js';
import type { Runtime } from './runtime.js';

/**
 * GNU vector operations (src/ir/vector.ts): a vector value is an array of lane values, each held
 * as the lane type's scalars are (numbers up to 32 bits, bigints above). A lane is computed at its
 * own width, never promoted: the scalar kernels of a bit-precise type of the lane's width compute
 * exactly that (`_BitInt(8)` arithmetic is never promoted either), so signed overflow, shift counts
 * and division report the same UB kinds lane by lane, at the operator's node.
 */

/** The type whose scalar kernels compute a lane of type `t`: its width, never promoted (floats as they are). */
function laneOpType(t: IntType | FloatType): IntType | FloatType {
  if (t.kind === 'float') return t;
  return t.bits < 32 ? bitInt(t.bits, t.signed) : unqualified(t);
}

/** The bits of a lane as an unsigned bigint of its width (a float's or double's IEEE-754 encoding). */
function laneBits(t: IntType | FloatType, v: CValue): bigint {
  if (t.kind === 'float') {
    const view = new DataView(new ArrayBuffer(8));
    if (t.bits === 32) {
      view.setFloat32(0, v as number, true);
      return BigInt(view.getUint32(0, true));
    }
    view.setFloat64(0, v as number, true);
    return view.getBigUint64(0, true);
  }
  return BigInt.asUintN(t.bits, BigInt(v));
}

function faultAt(rt: Runtime, node: number): OnUB {
  return (kind, a, b) => {
    rt.fault(kind, node, { values: [a, b] });
    return a;
  };
}

type Lanes = readonly CValue[];

/** A lane of integer type `t` from an unsigned bigint of its width. */
function laneFromBits(t: IntType, bits: bigint): CValue {
  const v = t.signed ? BigInt.asIntN(t.bits, bits) : bits;
  return t.bits > 32 ? v : Number(v);
}

/**
 * The bytes of a vector of type `from` read as one of type `to` (x86_64 is little endian); `to`
 * has integer lanes unless it is `from` itself (src/ir/vector.ts).
 */
function reinterpret(from: VectorT, to: VectorT): (v: Lanes) => CValue[] {
  const fw = BigInt(from.of.bits);
  const tw = BigInt(to.of.bits);
  if (to.of.kind === 'float') return (v) => [...v];
  const lane = to.of;
  if (from.of.kind === 'int' && from.of.bits === lane.bits) {
    const conv = converter(from.of, lane);
    return (v) => v.map(conv);
  }
  const fromLane = from.of;
  return (v) => {
    let all = 0n;
    for (let i = v.length - 1; i >= 0; i--) all = (all << fw) | laneBits(fromLane, v[i]!);
    const out = new Array<CValue>(to.lanes);
    for (let i = 0; i < to.lanes; i++) {
      out[i] = laneFromBits(lane, BigInt.asUintN(lane.bits, all));
      all >>= tw;
    }
    return out;
  };
}

/** The kernel of binary operator `op` on lanes of type `t` (comparisons give the 0/-1 mask lane). */
function laneKernel(op: Exclude<ArithBinaryOp | CompareOp, never>, t: IntType | FloatType): BinaryKernel {
  const ot = laneOpType(t);
  if (isCompare(op)) {
    // The mask lane has the lane's width: a bigint from 64 bits up (doubles' masks are 64-bit too).
    const k = compareKernel(op);
    return t.bits > 32 ? (a, b) => (k(a, b) ? -1n : 0n) : (a, b) => (k(a, b) ? -1 : 0);
  }
  if (op === '<<' || op === '>>') {
    if (ot.kind !== 'int') throw new Error(`${op} on ${ot.name} lanes`);
    return shiftKernel(op, ot, ot);
  }
  return arithKernel(op, ot);
}

/** Evaluates operands left to right, checking unsequenced conflicts between them when the node needs it. */
function operands(cx: CompileContext, e: Expr, args: readonly Expr[], compile: (cx: CompileContext, e: Expr) => Ev) {
  const rt = cx.rt;
  const evs = args.map((a) => compile(cx, a));
  const n = evs.length;
  const id = e.id;
  const ids = args.map((a) => a.id);
  if (!cx.effects.checkAt(e)) return (f: Parameters<Ev>[0]) => evs.map((ev) => ev(f));
  return (f: Parameters<Ev>[0]) => {
    const marks = new Array<number>(n + 1);
    const vals = new Array<Cell | Cell[]>(n);
    for (let i = 0; i < n; i++) {
      marks[i] = rt.logLen;
      vals[i] = evs[i]!(f);
    }
    marks[n] = rt.logLen;
    for (let i = 0; i + 1 < n; i++)
      for (let j = i + 1; j < n; j++)
        rt.checkRanges(marks[i]!, marks[i + 1]!, marks[j]!, marks[j + 1]!, id, ids[i]!, ids[j]!);
    return vals;
  };
}

/**
 * Compiles an expression of vector type that is an operator, a cast or a vector builtin
 * (reads of vector objects are compiled as records are). `compile` compiles the operands.
 */
export function compileVector(cx: CompileContext, e: Expr, compile: (cx: CompileContext, e: Expr) => Ev): Ev {
  const rt = cx.rt;
  const vt = e.type as VectorT;
  const n = vt.lanes;
  switch (e.kind) {
    case 'unary': {
      const x = compile(cx, e.operand);
      const ot = laneOpType(vt.of);
      if (e.op !== '-' && e.op !== '~') throw new Error(`unary ${e.op} on a vector`);
      const k = unaryKernel(e.op, ot);
      const onUB = faultAt(rt, e.id);
      return (f) => (x(f) as Lanes).map((a) => k(a, onUB));
    }
    case 'binary': {
      const ev = operands(cx, e, [e.left, e.right], compile);
      const lv = e.left.type.kind === 'vector';
      const rv = e.right.type.kind === 'vector';
      const lane = (lv ? (e.left.type as VectorT) : (e.right.type as VectorT)).of;
      if (e.op === '&&' || e.op === '||') throw new Error(`${e.op} on vectors`);
      const k = laneKernel(e.op, lane);
      const onUB = faultAt(rt, e.id);
      return (f) => {
        const [a, b] = ev(f) as [Cell | Cell[], Cell | Cell[]];
        const out = new Array<CValue>(n);
        for (let i = 0; i < n; i++) {
          const x = (lv ? (a as Cell[])[i] : a) as CValue;
          const y = (rv ? (b as Cell[])[i] : b) as CValue;
          out[i] = k(x, y, onUB);
        }
        return out;
      };
    }
    case 'cast': {
      const x = compile(cx, e.operand);
      const re = reinterpret(unqualified(e.operand.type as VectorT), vt);
      return (f) => re(x(f) as Lanes);
    }
    case 'vec':
      return compileBuiltin(cx, e, compile);
    default:
      throw new Error(`${e.kind} is not a vector operation`);
  }
}

/** A vector built by `(vT){…}` or a builtin (src/ir/nodes.ts, `VecExpr`). */
function compileBuiltin(
  cx: CompileContext,
  e: Expr & { kind: 'vec' },
  compile: (cx: CompileContext, e: Expr) => Ev,
): Ev {
  const vt = e.type;
  const n = vt.lanes;
  const ev = operands(cx, e, e.args, compile);
  switch (e.op) {
    case 'lanes':
      return (f) => ev(f) as CValue[];
    case 'convertvector': {
      // A lane conversion to or from a floating type may be UB (Kiln's exactness rule, or a
      // value out of an integer type's range): reported at this node, as a scalar cast's is.
      const conv = converter((e.args[0]!.type as VectorT).of, vt.of);
      const rt = cx.rt;
      return (f) =>
        ((ev(f) as Cell[][])[0] as Lanes).map((v) => {
          try {
            return conv(v);
          } catch (err) {
            rt.kernelFault(err, e.id, v);
            return v;
          }
        });
    }
    case 'shufflevector': {
      const idx = e.indices ?? [];
      return (f) => {
        const [a, b] = ev(f) as [CValue[], CValue[]];
        const both = [...a, ...b];
        return idx.map((i) => both[i]!);
      };
    }
    case 'shuffle': {
      const mt = e.args[e.args.length - 1]!.type as VectorT;
      const total = BigInt(n * (e.args.length - 1));
      return (f) => {
        const vals = ev(f) as CValue[][];
        const mask = vals[vals.length - 1]!;
        const both = vals.slice(0, -1).flat();
        return mask.map((m) => both[Number(BigInt.asUintN(mt.of.bits, BigInt(m)) % total)]!);
      };
    }
  }
}

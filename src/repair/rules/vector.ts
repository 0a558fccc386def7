import { toUnsigned } from '../../c/types.js';
import type { UBReport } from '../../interp/interpret.js';
import type { Expr, Node } from '../../ir/nodes.js';
import { unqualified } from '../../ir/types.js';
import { intLane, isFloatVector, unsignedVector, vecBinary, vecCast, vecUnary } from '../../ir/vector.js';
import type { Editor } from '../edit.js';
import { repaired, type Repaired } from '../state.js';

/**
 * Lane-wise UB of a vector operator (signed overflow, shift counts, division): the operation is
 * rewritten in its unsigned form, which has none, and the result read back as the signed type:
 * `(vS)((vU)a op (vU)b)`, with a shift count masked to the lane width (`& (w - 1)`) and a divisor
 * or-ed with 1. Every lane's UB goes in one rewrite (lanes hit different cases in one run), and
 * the operator stays visible to the vectorisers, as a safe-math wrapper per lane would not be.
 */
export function repairVectorArithmetic(ed: Editor, ub: UBReport): Repaired | undefined {
  const n = ed.find(ub.node);
  if (!n || (n.kind !== 'binary' && n.kind !== 'unary') || n.type.kind !== 'vector') return undefined;
  const b = ed.b;
  const t = unqualified(n.type);
  // Floating lanes' UB (an inexact value, a division by zero) is repairFloat's.
  if (isFloatVector(t)) return undefined;
  const lane = intLane(t);
  const ut = unsignedVector(t);
  const ulane = toUnsigned(lane);
  const toU = (e: Expr): Expr =>
    e.type.kind === 'vector' ? (lane.signed ? vecCast(b, ut, e) : e) : lane.signed ? b.cast(ulane, e) : e;
  const back = (e: Expr): Expr => (lane.signed ? vecCast(b, t, e) : e);
  if (n.kind === 'unary') {
    const r = back(vecUnary(b, '-', toU(n.operand)));
    return repaired(
      ed.replace(n.id, () => r),
      'vector-unsigned-form',
    );
  }
  if (n.kind !== 'binary') return undefined;
  const mask = (e: Expr, op: '&' | '|', v: bigint): Expr =>
    e.type.kind === 'vector'
      ? vecBinary(b, op, e, ed.constant(ulane, v))
      : b.cast(ulane, b.bin(op, e, ed.constant(ulane, v)));
  if (n.op === '>>') {
    // A right shift stays as it is (arithmetic on signed lanes, never UB once the count is in range).
    const count = mask(toU(n.right), '&', BigInt(lane.bits - 1));
    const signedCount = count.type.kind === 'vector' ? back(count) : lane.signed ? b.cast(lane, count) : count;
    const r = vecBinary(b, '>>', n.left, signedCount);
    return repaired(
      ed.replace(n.id, () => r),
      'vector-shift-count-mask',
    );
  }
  let right = toU(n.right);
  if (n.op === '<<') right = mask(right, '&', BigInt(lane.bits - 1));
  else if (n.op === '/' || n.op === '%') right = mask(right, '|', 1n);
  const r = back(vecBinary(b, n.op, toU(n.left), right));
  return repaired(
    ed.replace(n.id, () => r),
    'vector-unsigned-form',
  );
}

/** Whether a node is an operator computed lane by lane on vectors (the sites of lane-wise UB). */
export function isVectorOperator(n: Node): boolean {
  return (n.kind === 'binary' || n.kind === 'unary') && n.type.kind === 'vector';
}

/**
 * Kinds of undefined (and, for Kiln's purposes, unspecified) behaviour the reference
 * interpreter detects. The names are stable: they appear in repair statistics, stored
 * findings and tests.
 */
export type UBKind =
  // arithmetic (src/c)
  | 'signed-overflow'
  | 'division-by-zero'
  | 'division-overflow' // MIN / -1
  | 'remainder-overflow' // MIN % -1
  | 'shift-count-negative'
  | 'shift-count-too-large'
  | 'shift-negative-value' // left shift of a negative value
  | 'shift-overflow' // signed left shift whose result is not representable
  | 'float-to-int-overflow' // conversion of a floating value outside the target range
  | 'float-inexact' // Kiln's exactness rule for floating point (values must stay integral)
  // memory and objects (src/interp)
  | 'out-of-bounds'
  | 'uninitialised-read'
  | 'null-dereference'
  | 'dangling-dereference'
  | 'dangling-pointer-use'
  | 'const-write'
  | 'inactive-union-read'
  // evaluation order (src/interp)
  | 'unsequenced-access'
  | 'order-dependence'
  | 'multiple-volatile-access'
  // termination
  | 'step-budget-exceeded'
  // facts (EMI variants): __builtin_unreachable() reached, or a false __builtin_assume
  | 'unreachable-reached'
  // EMI variants: a call of a `pure` or `const` function broke the attribute's contract
  | 'attribute-contract';

/** Every UB kind, for exhaustive tests and statistics tables. */
export const UB_KINDS: readonly UBKind[] = [
  'signed-overflow',
  'division-by-zero',
  'division-overflow',
  'remainder-overflow',
  'shift-count-negative',
  'shift-count-too-large',
  'shift-negative-value',
  'shift-overflow',
  'float-to-int-overflow',
  'float-inexact',
  'out-of-bounds',
  'uninitialised-read',
  'null-dereference',
  'dangling-dereference',
  'dangling-pointer-use',
  'const-write',
  'inactive-union-read',
  'unsequenced-access',
  'order-dependence',
  'multiple-volatile-access',
  'step-budget-exceeded',
  'unreachable-reached',
  'attribute-contract',
];

/**
 * Thrown by operator kernels and the interpreter when execution would hit UB. It is not
 * an `Error` on purpose: UB is an expected outcome during generation, and capturing a
 * stack trace for each of the many signals raised while repairing would be wasted work.
 * `node` is filled in by the innermost interpreter closure that sees the signal.
 */
export class UBSignal {
  node: number | undefined;
  /** Extra facts for the repair step (e.g. the other access of an unsequenced pair). */
  detail: UBDetail | undefined;
  constructor(
    readonly kind: UBKind,
    detail?: UBDetail,
  ) {
    this.node = undefined;
    this.detail = detail;
  }
}

/** Facts the interpreter attaches to a UB signal so that repair rules can act precisely. */
export interface UBDetail {
  /** For unsequenced/order-dependent accesses: node ids of the two conflicting operands. */
  readonly operands?: readonly [number, number];
  /** For pointer errors: id of the expression that produced the pointer value. */
  readonly pointerOrigin?: number;
  /** For out-of-bounds: the index value and the array length. */
  readonly index?: bigint;
  readonly length?: number;
  /** For step budget: the loop statement that ran most often. */
  readonly hottestLoop?: number;
  /** For union reads: the member read and the member last stored. */
  readonly member?: number;
  readonly activeMember?: number;
  /** For arithmetic UB: the operand values the operator saw (already converted to the operation types). */
  readonly values?: readonly (number | bigint)[];
  /** Free text for humans. */
  readonly message?: string;
}

import { converter, isTrue } from './convert.js';
import { binaryKernel, isShift, unaryKernel, type BinaryOp, type UnaryOp } from './ops.js';
import { C, promote, promoteArith, usualArithmetic, type ArithType, type CTypes, type CValue } from './types.js';
import { UBSignal, type UBKind } from './ub.js';

/** A typed value: the result of evaluating a C expression. */
export interface Typed {
  readonly type: ArithType;
  readonly value: CValue;
}

/** Either a typed value or the UB the operation would hit. */
export type EvalResult =
  | { readonly ok: true; readonly type: ArithType; readonly value: CValue }
  | { readonly ok: false; readonly ub: UBKind };

/** The static result type of `a op b` for operand types `ta` and `tb`. */
export function binaryResultType(op: BinaryOp, ta: ArithType, tb: ArithType, types: CTypes = C): ArithType {
  if (
    op === '<' ||
    op === '>' ||
    op === '<=' ||
    op === '>=' ||
    op === '==' ||
    op === '!=' ||
    op === '&&' ||
    op === '||'
  ) {
    return types.int;
  }
  if (isShift(op)) return promoteArith(ta, types);
  return usualArithmetic(ta, tb, types);
}

/** The static type in which `a op b` is computed (the common type; for shifts the promoted left type). */
export function binaryOperationType(op: BinaryOp, ta: ArithType, tb: ArithType, types: CTypes = C): ArithType {
  if (isShift(op)) return promoteArith(ta, types);
  return usualArithmetic(ta, tb, types);
}

/** The static result type of a unary operator. */
export function unaryResultType(op: UnaryOp, t: ArithType, types: CTypes = C): ArithType {
  return op === '!' ? types.int : promoteArith(t, types);
}

/** The static type of `c ? a : b` for arithmetic arms. */
export function conditionalResultType(ta: ArithType, tb: ArithType, types: CTypes = C): ArithType {
  return usualArithmetic(ta, tb, types);
}

function attempt(f: () => Typed): EvalResult {
  try {
    const r = f();
    return { ok: true, type: r.type, value: r.value };
  } catch (e) {
    if (e instanceof UBSignal) return { ok: false, ub: e.kind };
    throw e;
  }
}

/**
 * Evaluates `a op b` on typed operands exactly as C does on the target: promotions, the usual
 * arithmetic conversions, the operator, and every UB case. `&&` and `||` take both operand
 * values (the caller decides about short circuit).
 */
export function evalBinary(op: BinaryOp, a: Typed, b: Typed, types: CTypes = C): EvalResult {
  return attempt(() => {
    if (op === '&&') return { type: types.int, value: isTrue(a.value) && isTrue(b.value) ? 1 : 0 };
    if (op === '||') return { type: types.int, value: isTrue(a.value) || isTrue(b.value) ? 1 : 0 };
    if (isShift(op)) {
      if (a.type.kind !== 'int' || b.type.kind !== 'int') throw new Error('shift operands must be integers');
      const lt = promote(a.type, types);
      const rt = promote(b.type, types);
      const k = binaryKernel(op, lt, rt);
      return { type: lt, value: k(converter(a.type, lt)(a.value), converter(b.type, rt)(b.value)) };
    }
    const t = usualArithmetic(a.type, b.type, types);
    const k = binaryKernel(op, t);
    const value = k(converter(a.type, t)(a.value), converter(b.type, t)(b.value));
    return { type: binaryResultType(op, a.type, b.type, types), value };
  });
}

/** Evaluates a unary operator on a typed operand. */
export function evalUnary(op: UnaryOp, a: Typed, types: CTypes = C): EvalResult {
  return attempt(() => {
    const t = promoteArith(a.type, types);
    const value = unaryKernel(op, t)(converter(a.type, t)(a.value));
    return { type: unaryResultType(op, a.type, types), value };
  });
}

/** Evaluates `c ? a : b` given all three values (only the chosen arm is converted). */
export function evalConditional(c: Typed, a: Typed, b: Typed, types: CTypes = C): EvalResult {
  const t = conditionalResultType(a.type, b.type, types);
  const chosen = isTrue(c.value) ? a : b;
  return attempt(() => ({ type: t, value: converter(chosen.type, t)(chosen.value) }));
}

/** Converts a typed value to another arithmetic type (an explicit cast or an assignment). */
export function evalCast(a: Typed, to: ArithType): EvalResult {
  return attempt(() => ({ type: to, value: converter(a.type, to)(a.value) }));
}

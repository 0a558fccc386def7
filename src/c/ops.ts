import { UBSignal, type UBKind } from './ub.js';
import type { ArithType, CValue, FloatType, IntType } from './types.js';

/** Binary operators whose operands are both evaluated (no short circuit). */
export type ArithBinaryOp = '+' | '-' | '*' | '/' | '%' | '<<' | '>>' | '&' | '|' | '^';
/** Relational and equality operators (result `int` 0 or 1). */
export type CompareOp = '<' | '>' | '<=' | '>=' | '==' | '!=';
/** Short-circuit logical operators. */
export type LogicalOp = '&&' | '||';
/** Every binary operator of C's integer expressions. */
export type BinaryOp = ArithBinaryOp | CompareOp | LogicalOp;
/** Unary arithmetic operators. */
export type UnaryOp = '-' | '+' | '~' | '!';

export const ARITH_BINARY_OPS: readonly ArithBinaryOp[] = ['+', '-', '*', '/', '%', '<<', '>>', '&', '|', '^'];
export const COMPARE_OPS: readonly CompareOp[] = ['<', '>', '<=', '>=', '==', '!='];
export const LOGICAL_OPS: readonly LogicalOp[] = ['&&', '||'];
export const BINARY_OPS: readonly BinaryOp[] = [...ARITH_BINARY_OPS, ...COMPARE_OPS, ...LOGICAL_OPS];
export const UNARY_OPS: readonly UnaryOp[] = ['-', '+', '~', '!'];

/** Whether `op` is a shift (its operands are promoted separately, not converted to a common type). */
export function isShift(op: BinaryOp): op is '<<' | '>>' {
  return op === '<<' || op === '>>';
}

/** Whether `op` is a comparison. */
export function isCompare(op: BinaryOp): op is CompareOp {
  return op === '<' || op === '>' || op === '<=' || op === '>=' || op === '==' || op === '!=';
}

/** Whether `op` only accepts integer operands. */
export function isIntegerOnly(op: BinaryOp | UnaryOp): boolean {
  return op === '%' || op === '<<' || op === '>>' || op === '&' || op === '|' || op === '^' || op === '~';
}

/**
 * Called by a kernel instead of throwing when `onUB` is given: returns the value the operation
 * should produce anyway (e.g. the left operand, as a safe-math wrapper does).
 */
export type OnUB = (kind: UBKind, a: CValue, b: CValue) => CValue;

/**
 * A binary operator kernel: operands already converted to the operation type. On UB it calls
 * `onUB` when given, and otherwise throws {@link UBSignal}.
 */
export type BinaryKernel = (a: CValue, b: CValue, onUB?: OnUB) => CValue;
/** A unary operator kernel on a promoted operand (same UB convention, with `b` = 0). */
export type UnaryKernel = (a: CValue, onUB?: OnUB) => CValue;

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;
const I64_MIN = -(1n << 63n);

function ub(kind: UBKind, a: CValue, b: CValue, onUB: OnUB | undefined): CValue {
  if (onUB) return onUB(kind, a, b);
  throw new UBSignal(kind);
}

/**
 * The kernel of an arithmetic binary operator (not a shift) whose operands have already been
 * converted to the common type `t`. Results are exact; every UB case throws.
 */
export function arithKernel(op: Exclude<ArithBinaryOp, '<<' | '>>'>, t: ArithType): BinaryKernel {
  if (t.kind === 'float') return floatKernel(op, t);
  if (t.bits === 32) return t.signed ? int32Kernel(op) : uint32Kernel(op);
  if (t.bits > 32) return wideKernel(op, t);
  if (t.bitPrecise) return narrowKernel(op, t);
  throw new Error(`no arithmetic on ${t.bits}-bit values: operands must be promoted first`);
}

/**
 * Any width up to 32 bits held in JS numbers (bit-precise types are never promoted): the exact
 * result, then UB outside a signed type's range or reduction modulo 2^N for an unsigned one.
 */
function narrowKernel(op: Exclude<ArithBinaryOp, '<<' | '>>'>, t: IntType): BinaryKernel {
  const n = t.bits;
  const max = 2 ** (n - 1) - 1;
  const min = -(2 ** (n - 1));
  const s = 32 - n;
  const wrap = (x: number) => ((x << s) >>> s) as number;
  if (t.signed) {
    const checked = (r: number, a: CValue, b: CValue, onUB: OnUB | undefined) =>
      r > max || r < min ? ub('signed-overflow', a, b, onUB) : r + 0;
    switch (op) {
      case '+':
        return (a, b, onUB) => checked((a as number) + (b as number), a, b, onUB);
      case '-':
        return (a, b, onUB) => checked((a as number) - (b as number), a, b, onUB);
      case '*':
        // Operands below 2^31 in magnitude: an in-range product is exact in a double.
        return (a, b, onUB) => checked((a as number) * (b as number), a, b, onUB);
      case '/':
      case '%':
        return (a, b, onUB) => {
          if (b === 0) return ub('division-by-zero', a, b, onUB);
          if (a === min && b === -1) return ub(op === '/' ? 'division-overflow' : 'remainder-overflow', a, b, onUB);
          return op === '/' ? Math.trunc((a as number) / (b as number)) + 0 : ((a as number) % (b as number)) + 0;
        };
      case '&':
        return (a, b) => (a as number) & (b as number);
      case '|':
        return (a, b) => (a as number) | (b as number);
      case '^':
        return (a, b) => (a as number) ^ (b as number);
    }
  }
  switch (op) {
    case '+':
      return (a, b) => wrap((a as number) + (b as number));
    case '-':
      return (a, b) => wrap((a as number) - (b as number));
    case '*':
      return (a, b) => wrap(Math.imul(a as number, b as number));
    case '/':
      return (a, b, onUB) => (b === 0 ? ub('division-by-zero', a, b, onUB) : Math.trunc((a as number) / (b as number)));
    case '%':
      return (a, b, onUB) => (b === 0 ? ub('division-by-zero', a, b, onUB) : (a as number) % (b as number));
    case '&':
      return (a, b) => wrap((a as number) & (b as number));
    case '|':
      return (a, b) => wrap((a as number) | (b as number));
    case '^':
      return (a, b) => wrap((a as number) ^ (b as number));
  }
}

/**
 * Any width above 32 bits held in bigints (64-bit types, `__int128`, `_BitInt(N)`): the exact
 * result, then UB outside a signed type's range or reduction modulo 2^N for an unsigned one.
 */
function wideKernel(op: Exclude<ArithBinaryOp, '<<' | '>>'>, t: IntType): BinaryKernel {
  const n = t.bits;
  const max = (1n << BigInt(n - 1)) - 1n;
  const min = -(1n << BigInt(n - 1));
  if (t.signed) {
    const checked = (r: bigint, a: CValue, b: CValue, onUB: OnUB | undefined) =>
      r > max || r < min ? ub('signed-overflow', a, b, onUB) : r;
    switch (op) {
      case '+':
        return (a, b, onUB) => checked((a as bigint) + (b as bigint), a, b, onUB);
      case '-':
        return (a, b, onUB) => checked((a as bigint) - (b as bigint), a, b, onUB);
      case '*':
        return (a, b, onUB) => checked((a as bigint) * (b as bigint), a, b, onUB);
      case '/':
      case '%':
        return (a, b, onUB) => {
          if (b === 0n) return ub('division-by-zero', a, b, onUB);
          if (a === min && b === -1n) return ub(op === '/' ? 'division-overflow' : 'remainder-overflow', a, b, onUB);
          return op === '/' ? (a as bigint) / (b as bigint) : (a as bigint) % (b as bigint);
        };
      case '&':
        return (a, b) => (a as bigint) & (b as bigint);
      case '|':
        return (a, b) => (a as bigint) | (b as bigint);
      case '^':
        return (a, b) => (a as bigint) ^ (b as bigint);
    }
  }
  const w = (x: bigint) => BigInt.asUintN(n, x);
  switch (op) {
    case '+':
      return (a, b) => w((a as bigint) + (b as bigint));
    case '-':
      return (a, b) => w((a as bigint) - (b as bigint));
    case '*':
      return (a, b) => w((a as bigint) * (b as bigint));
    case '/':
      return (a, b, onUB) => (b === 0n ? ub('division-by-zero', a, b, onUB) : (a as bigint) / (b as bigint));
    case '%':
      return (a, b, onUB) => (b === 0n ? ub('division-by-zero', a, b, onUB) : (a as bigint) % (b as bigint));
    case '&':
      return (a, b) => (a as bigint) & (b as bigint);
    case '|':
      return (a, b) => (a as bigint) | (b as bigint);
    case '^':
      return (a, b) => (a as bigint) ^ (b as bigint);
  }
}

function int32Kernel(op: Exclude<ArithBinaryOp, '<<' | '>>'>): BinaryKernel {
  switch (op) {
    case '+':
      return (a, b, onUB) => {
        const r = (a as number) + (b as number);
        return r > I32_MAX || r < I32_MIN ? ub('signed-overflow', a, b, onUB) : r;
      };
    case '-':
      return (a, b, onUB) => {
        const r = (a as number) - (b as number);
        return r > I32_MAX || r < I32_MIN ? ub('signed-overflow', a, b, onUB) : r;
      };
    case '*':
      return (a, b, onUB) => {
        // The double product is exact whenever it is in range, and rounding is monotonic,
        // so an out-of-range product can never round back into range.
        const r = (a as number) * (b as number);
        return r > I32_MAX || r < I32_MIN ? ub('signed-overflow', a, b, onUB) : r | 0;
      };
    case '/':
      return (a, b, onUB) => {
        if (b === 0) return ub('division-by-zero', a, b, onUB);
        if (a === I32_MIN && b === -1) return ub('division-overflow', a, b, onUB);
        return ((a as number) / (b as number)) | 0;
      };
    case '%':
      return (a, b, onUB) => {
        if (b === 0) return ub('division-by-zero', a, b, onUB);
        if (a === I32_MIN && b === -1) return ub('remainder-overflow', a, b, onUB);
        return ((a as number) % (b as number)) | 0;
      };
    case '&':
      return (a, b) => (a as number) & (b as number);
    case '|':
      return (a, b) => (a as number) | (b as number);
    case '^':
      return (a, b) => (a as number) ^ (b as number);
  }
}

function uint32Kernel(op: Exclude<ArithBinaryOp, '<<' | '>>'>): BinaryKernel {
  switch (op) {
    case '+':
      return (a, b) => ((a as number) + (b as number)) >>> 0;
    case '-':
      return (a, b) => ((a as number) - (b as number)) >>> 0;
    case '*':
      return (a, b) => Math.imul(a as number, b as number) >>> 0;
    case '/':
      return (a, b, onUB) => (b === 0 ? ub('division-by-zero', a, b, onUB) : ((a as number) / (b as number)) >>> 0);
    case '%':
      return (a, b, onUB) => (b === 0 ? ub('division-by-zero', a, b, onUB) : (a as number) % (b as number));
    case '&':
      return (a, b) => ((a as number) & (b as number)) >>> 0;
    case '|':
      return (a, b) => ((a as number) | (b as number)) >>> 0;
    case '^':
      return (a, b) => ((a as number) ^ (b as number)) >>> 0;
  }
}

function floatKernel(op: Exclude<ArithBinaryOp, '<<' | '>>'>, t: FloatType): BinaryKernel {
  // Kiln keeps floating values integral and inside the mantissa range (Nagai et al.'s rule),
  // so every operation below is exact and no tolerance is needed in the oracle.
  const round = t.bits === 32 ? Math.fround : (x: number) => x;
  const limit = t.bits === 32 ? 2 ** 24 : 2 ** 53;
  const exact = (r: number, a: CValue, b: CValue, onUB: OnUB | undefined): CValue => {
    if (!(r >= -limit && r <= limit) || !Number.isInteger(r)) return ub('float-inexact', a, b, onUB);
    // The sign of a zero is kept as IEEE 754 (and C without -ffast-math) gives it: 0 * -5 and
    // -(0.0) are -0.0. Only the bits show it (a vector's floating lanes read as integers); values,
    // comparisons and conversions to integers treat -0.0 as 0.
    return round(r);
  };
  switch (op) {
    case '+':
      return (a, b, onUB) => exact((a as number) + (b as number), a, b, onUB);
    case '-':
      return (a, b, onUB) => exact((a as number) - (b as number), a, b, onUB);
    case '*':
      return (a, b, onUB) => exact((a as number) * (b as number), a, b, onUB);
    case '/':
      return (a, b, onUB) =>
        b === 0 ? ub('division-by-zero', a, b, onUB) : exact((a as number) / (b as number), a, b, onUB);
    default:
      throw new Error(`operator ${op} does not apply to floating operands`);
  }
}

/**
 * The kernel of `<<` or `>>` with left operand of promoted type `lt` and count of promoted type `rt`.
 * UB: negative count, count ≥ width of `lt`, left shift of a negative value, and a signed left
 * shift whose mathematical result is not representable (C11 6.5.7).
 */
export function shiftKernel(op: '<<' | '>>', lt: IntType, rt: IntType): BinaryKernel {
  const width = lt.bits;
  const wideCount = rt.bits > 32;
  /** The count as a number, or the UB kind of an invalid count. */
  const count = (b: CValue): number | UBKind => {
    if (wideCount) {
      const c = b as bigint;
      if (c < 0n) return 'shift-count-negative';
      if (c >= BigInt(width)) return 'shift-count-too-large';
      return Number(c);
    }
    const c = b as number;
    if (c < 0) return 'shift-count-negative';
    if (c >= width) return 'shift-count-too-large';
    return c;
  };
  const generic = lt.bitPrecise || width === 128;
  if (width !== 32 && width !== 64 && !generic)
    throw new Error(`no shift on ${width}-bit values: operands must be promoted first`);
  const wide = width > 32;
  let shift: (x: CValue, n: number, a: CValue, b: CValue, onUB: OnUB | undefined) => CValue;
  if (op === '>>') {
    // Right shift of a negative value is arithmetic (implementation-defined; gcc and clang agree).
    shift = wide
      ? (x, n) => (x as bigint) >> BigInt(n)
      : lt.signed
        ? (x, n) => (x as number) >> n
        : (x, n) => (x as number) >>> n;
  } else if (!lt.signed) {
    const s = 32 - width;
    shift = wide
      ? (x, n) => BigInt.asUintN(width, (x as bigint) << BigInt(n))
      : width === 32
        ? (x, n) => ((x as number) << n) >>> 0
        : (x, n) => (((x as number) << n) << s) >>> s;
  } else if (wide) {
    const max = (1n << BigInt(width - 1)) - 1n;
    shift = (x, n, a, b, onUB) => {
      if ((x as bigint) < 0n) return ub('shift-negative-value', a, b, onUB);
      if ((x as bigint) > max >> BigInt(n)) return ub('shift-overflow', a, b, onUB);
      return (x as bigint) << BigInt(n);
    };
  } else {
    const max = 2 ** (width - 1) - 1;
    shift = (x, n, a, b, onUB) => {
      if ((x as number) < 0) return ub('shift-negative-value', a, b, onUB);
      if ((x as number) > Math.floor(max / 2 ** n)) return ub('shift-overflow', a, b, onUB);
      return (x as number) * 2 ** n;
    };
  }
  return (a, b, onUB) => {
    const n = count(b);
    if (typeof n === 'string') return ub(n, a, b, onUB);
    return shift(a, n, a, b, onUB);
  };
}

/** The kernel of a comparison of two operands converted to the common type; result is `int` 0/1. */
export function compareKernel(op: CompareOp): BinaryKernel {
  switch (op) {
    case '<':
      return (a, b) => (a < b ? 1 : 0);
    case '>':
      return (a, b) => (a > b ? 1 : 0);
    case '<=':
      return (a, b) => (a <= b ? 1 : 0);
    case '>=':
      return (a, b) => (a >= b ? 1 : 0);
    case '==':
      return (a, b) => (a === b ? 1 : 0);
    case '!=':
      return (a, b) => (a !== b ? 1 : 0);
  }
}

/** The kernel of a unary operator on an operand of promoted type `t`. `!` yields `int`. */
export function unaryKernel(op: UnaryOp, t: ArithType): UnaryKernel {
  if (op === '+') return (a) => a;
  if (op === '!') return (a) => (a === 0 || a === 0n ? 1 : 0);
  if (t.kind === 'float') {
    if (op === '-') return (a) => -(a as number);
    throw new Error('~ does not apply to floating operands');
  }
  if (t.bits === 32) {
    if (t.signed) {
      return op === '-'
        ? (a, onUB) => (a === I32_MIN ? ub('signed-overflow', a, 0, onUB) : 0 - (a as number))
        : (a) => ~(a as number);
    }
    return op === '-' ? (a) => (0 - (a as number)) >>> 0 : (a) => ~(a as number) >>> 0;
  }
  if (t.bits === 64) {
    if (t.signed) {
      return op === '-'
        ? (a, onUB) => (a === I64_MIN ? ub('signed-overflow', a, 0n, onUB) : -(a as bigint))
        : (a) => ~(a as bigint);
    }
    return op === '-' ? (a) => BigInt.asUintN(64, -(a as bigint)) : (a) => BigInt.asUintN(64, ~(a as bigint));
  }
  if (t.bitPrecise || t.bits === 128) {
    const n = t.bits;
    if (n > 32) {
      const min = -(1n << BigInt(n - 1));
      if (t.signed) {
        return op === '-'
          ? (a, onUB) => (a === min ? ub('signed-overflow', a, 0n, onUB) : -(a as bigint))
          : (a) => ~(a as bigint);
      }
      return op === '-' ? (a) => BigInt.asUintN(n, -(a as bigint)) : (a) => BigInt.asUintN(n, ~(a as bigint));
    }
    const min = -(2 ** (n - 1));
    if (t.signed) {
      return op === '-'
        ? (a, onUB) => (a === min ? ub('signed-overflow', a, 0, onUB) : 0 - (a as number))
        : (a) => ~(a as number);
    }
    const s = 32 - n;
    return op === '-' ? (a) => ((0 - (a as number)) << s) >>> s : (a) => (~(a as number) << s) >>> s;
  }
  throw new Error(`no unary arithmetic on ${t.bits}-bit values: operand must be promoted first`);
}

/** The kernel for any non-logical binary operator, given the operation (or left/right promoted) types. */
export function binaryKernel(
  op: ArithBinaryOp | CompareOp,
  operationType: ArithType,
  countType?: IntType,
): BinaryKernel {
  if (op === '<<' || op === '>>') {
    if (operationType.kind !== 'int' || !countType) throw new Error('shift kernels need integer left and count types');
    return shiftKernel(op, operationType, countType);
  }
  if (isCompare(op)) return compareKernel(op);
  return arithKernel(op, operationType);
}

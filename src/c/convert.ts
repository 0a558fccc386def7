import { UBSignal } from './ub.js';
import type { ArithType, CValue, IntType } from './types.js';

/** Largest magnitude of the integers a `float` holds exactly under Kiln's exactness rule (2^24). */
export const FLOAT_EXACT_LIMIT = 2 ** 24;
/** Largest magnitude of the integers a `double` holds exactly under Kiln's exactness rule (2^53). */
export const DOUBLE_EXACT_LIMIT = 2 ** 53;

/** A conversion between two arithmetic types' value representations. */
export type Converter = (v: CValue) => CValue;

const identity: Converter = (v) => v;

/**
 * Returns the kernel converting a value of type `from` to type `to` (C11 6.3.1.3):
 * to an unsigned type, the value modulo 2^N; to a signed type, GCC's documented
 * choice (reduction modulo 2^N into range). Floating → integer traps as UB when the
 * truncated value is out of range (C11 6.3.1.4p1).
 */
export function converter(from: ArithType, to: ArithType): Converter {
  if (from.kind === 'float' || to.kind === 'float') return floatConverter(from, to);
  if (from.bits === to.bits && from.signed === to.signed) return identity;
  const wideFrom = from.bits > 32;
  if (to.bits > 32) {
    // Target is a bigint type.
    const n = to.bits;
    if (wideFrom) {
      // Widening without a change of sign keeps the value.
      if (to.signed === from.signed ? to.bits >= from.bits : to.signed && to.bits > from.bits) return identity;
      return to.signed ? (v) => BigInt.asIntN(n, v as bigint) : (v) => BigInt.asUintN(n, v as bigint);
    }
    return to.signed ? (v) => BigInt(v as number) : (v) => BigInt.asUintN(n, BigInt(v as number));
  }
  const narrow = narrowNumber(to);
  if (wideFrom) {
    // Take the low 32 bits first; every narrower conversion commutes with that truncation.
    return (v) => narrow(Number(BigInt.asIntN(32, v as bigint)));
  }
  // Widening a number without changing signedness is the identity.
  if (to.bits > from.bits && (to.signed || !from.signed)) return identity;
  return narrow as Converter;
}

/**
 * Kernel reducing an exact integer held in a JS number (|v| < 2^53) to a type of at most 32 bits
 * (bit-field types included): modulo 2^N, then into the signed range for signed types.
 */
export function narrowNumber(to: IntType): (v: number) => number {
  const b = to.bits;
  if (b < 1 || b > 32) throw new Error(`unsupported integer width ${b}`);
  if (b === 32) return to.signed ? (v) => v | 0 : (v) => v >>> 0;
  const s = 32 - b;
  // ToInt32 inside << already reduces modulo 2^32; the shifts then keep the low b bits.
  return to.signed ? (v) => (v << s) >> s : (v) => (v << s) >>> s;
}

function floatConverter(from: ArithType, to: ArithType): Converter {
  if (from.kind === 'float' && to.kind === 'float') {
    if (to.bits === 32 && from.bits === 64) {
      return (v) => {
        if (!(Math.abs(v as number) <= FLOAT_EXACT_LIMIT)) throw new UBSignal('float-inexact');
        return Math.fround(v as number);
      };
    }
    return identity;
  }
  if (to.kind === 'float') {
    // Integer → floating: Kiln's exactness rule keeps floating values integers of at most the
    // mantissa's width (2^24 for float, 2^53 for double), so the conversion never rounds and
    // every later operation stays exact; a larger magnitude is reported like an inexact result.
    const limit = to.bits === 32 ? FLOAT_EXACT_LIMIT : DOUBLE_EXACT_LIMIT;
    if (from.kind === 'int' && from.bits > 32) {
      const big = BigInt(limit);
      return (v) => {
        const x = v as bigint;
        if (x > big || x < -big) throw new UBSignal('float-inexact');
        return Number(x);
      };
    }
    return (v) => {
      if (!(Math.abs(v as number) <= limit)) throw new UBSignal('float-inexact');
      return v as number;
    };
  }
  // Floating → integer: truncate toward zero; out of range is UB.
  const t = to as IntType;
  const lo = t.signed ? -(2 ** (t.bits - 1)) : 0;
  const hiExclusive = t.signed ? 2 ** (t.bits - 1) : 2 ** t.bits;
  const wide = t.bits > 32;
  return (v) => {
    const x = Math.trunc(v as number);
    if (!(x >= lo && x < hiExclusive)) throw new UBSignal('float-to-int-overflow');
    return wide ? BigInt(x) : x === 0 ? 0 : x;
  };
}

/** Converts a value of any arithmetic type to its truth value (C: compare with 0). */
export function isTrue(v: CValue): boolean {
  return v !== 0 && v !== 0n;
}

/** Converts an exact integer (bigint) to the runtime representation of `t`, reducing modulo 2^N. */
export function fromBigInt(value: bigint, t: ArithType): CValue {
  if (t.kind === 'float') return t.bits === 32 ? Math.fround(Number(value)) : Number(value);
  if (t.bits > 32) return t.signed ? BigInt.asIntN(t.bits, value) : BigInt.asUintN(t.bits, value);
  return t.signed ? Number(BigInt.asIntN(t.bits, value)) : Number(BigInt.asUintN(t.bits, value));
}

/** Converts a runtime integer value to an exact bigint. */
export function toBigInt(v: CValue): bigint {
  return typeof v === 'bigint' ? v : BigInt(v);
}

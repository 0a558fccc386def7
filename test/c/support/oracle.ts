// The C side of the src/c oracle tests, and the JS mirror of its bookkeeping.
//
// The C oracle decides UB on its own (compiler builtins and explicit checks written from
// C11 6.5.5–6.5.7, never from Kiln's code) and evaluates every defined case with the C
// operator itself. Results travel as 64-bit two's-complement bit patterns (signed results
// sign-extended through `long long`, unsigned ones zero-extended), so one format covers
// every result type; the result *type* travels separately as the name `_Generic` gives it.
import type { EvalResult } from '../../../src/c/eval.js';
import type { BinaryOp, UnaryOp } from '../../../src/c/ops.js';
import { C, type IntType } from '../../../src/c/types.js';

/** UB categories shared by the C oracle and the JS side; index 0 means "defined". */
export const UB_CATEGORIES = [
  'ok',
  'signed-overflow',
  'division-by-zero',
  'division-overflow',
  'remainder-overflow',
  'shift-count-negative',
  'shift-count-too-large',
  'shift-negative-value',
  'shift-overflow',
] as const;
/** Code for a UB kind the integer kernels must never report (e.g. 'float-inexact'). */
export const UNEXPECTED_KIND = 99;

const CATEGORY_CODE = new Map<string, number>(UB_CATEGORIES.map((k, i) => [k, i]));

/** The category code of an evaluation result (0 when defined). */
export function categoryOf(r: EvalResult): number {
  if (r.ok) return 0;
  return CATEGORY_CODE.get(r.ub) ?? UNEXPECTED_KIND;
}

export function categoryName(code: number): string {
  return UB_CATEGORIES[code] ?? `unexpected(${code})`;
}

/**
 * The classic type Kiln's model says `t` is, found from Kiln's rank/signedness/width (not
 * from its name), spelled as C spells it. A type no classic entry matches yields a
 * descriptive string that can never equal a `_Generic` name.
 */
export function kilnCanonicalName(t: IntType): string {
  // Plain char is its own type whichever sign the model gives it.
  if ((t.name as string) === 'char') return 'char';
  for (const c of C.classic) {
    // Width aside: the model fixes it (a 32-bit `long` on ILP32 is still `long`).
    if (c.rank === t.rank && c.signed === t.signed && (c.name === 'char') === (t.name === 'char')) {
      return c.name;
    }
  }
  return `<no classic type: ${t.name} rank ${t.rank} ${t.signed ? 'signed' : 'unsigned'} ${t.bits} bits>`;
}

/** A C constant expression of type `t` with exact value `v` (which must be in range). */
export function cLiteral(v: bigint, t: IntType): string {
  if (v >= 0n) return `((${t.name})${v}ULL)`;
  // -(2^63) has no literal; write it as -(|v| - 1) - 1 in long long.
  return `((${t.name})(-${-v - 1n}LL - 1))`;
}

/** JS runtime representation of an exact value of type `t` (number up to 32 bits, bigint above). */
export function jsValue(v: bigint, t: IntType): number | bigint {
  return t.bits > 32 ? v : Number(v);
}

/** Low and high 32-bit words of the 64-bit two's-complement pattern of an integer value. */
function valueWords(v: number | bigint): [number, number] {
  if (typeof v === 'number') return [v >>> 0, v < 0 ? 0xffffffff : 0];
  return [Number(v & 0xffffffffn), Number((v >> 32n) & 0xffffffffn)];
}

/** The 64-bit pattern as 16 hex digits (what the C oracle prints with %016llx). */
export function valueHex(v: number | bigint): string {
  const [lo, hi] = valueWords(v);
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}

/** Why `value` is not a valid runtime representation of `t`, or undefined when it is. */
export function representationError(value: unknown, t: IntType): string | undefined {
  if (t.bits > 32) {
    if (typeof value !== 'bigint') return `${t.name} value ${String(value)} is a ${typeof value}, expected bigint`;
    const lo = t.signed ? -(1n << BigInt(t.bits - 1)) : 0n;
    const hi = t.signed ? (1n << BigInt(t.bits - 1)) - 1n : (1n << BigInt(t.bits)) - 1n;
    return value < lo || value > hi ? `${t.name} value ${value} out of range` : undefined;
  }
  if (typeof value !== 'number') return `${t.name} value ${String(value)} is a ${typeof value}, expected number`;
  if (!Number.isInteger(value)) return `${t.name} value ${value} is not an integer`;
  if (Object.is(value, -0)) return `${t.name} value is negative zero`;
  const lo = t.signed ? -(2 ** (t.bits - 1)) : 0;
  const hi = t.signed ? 2 ** (t.bits - 1) - 1 : 2 ** t.bits - 1;
  return value < lo || value > hi ? `${t.name} value ${value} out of range` : undefined;
}

/**
 * Order-dependent 64-bit hash (two independent 32-bit lanes), computed bit-identically by the
 * C oracle (`hcase` in {@link ORACLE_HEADER}). Each case contributes a tag word (0xC0DE0000 |
 * category) and, when defined, the two words of its value.
 */
export class CaseHash {
  private x = 0x811c9dc5 | 0;
  private y = 0x2545f491 | 0;

  private word(w: number): void {
    let x = Math.imul(this.x ^ w, 0x9e3779b1 | 0);
    x ^= x >>> 15;
    this.x = x;
    let y = Math.imul(this.y ^ w, 0x85ebca77 | 0);
    y ^= y >>> 13;
    this.y = y;
  }

  add(category: number, value: number | bigint | undefined): void {
    this.word(0xc0de0000 | category | 0);
    if (category === 0) {
      if (typeof value === 'number') {
        this.word(value | 0);
        this.word(value < 0 ? -1 : 0);
      } else {
        const [lo, hi] = valueWords(value as bigint);
        this.word(lo | 0);
        this.word(hi | 0);
      }
    }
  }

  hex(): string {
    return (this.x >>> 0).toString(16).padStart(8, '0') + (this.y >>> 0).toString(16).padStart(8, '0');
  }
}

/**
 * C11 prelude of every oracle program. The O_* macros take operand *variables* `a`, `b`
 * and assign the category to `kind` and, when defined, the value bits to `bits`.
 *
 * UB decisions, each written from the standard:
 * - `+ - *`: in the common type `__typeof__(a op b)`; when it is signed, the GCC/Clang
 *   overflow builtins on the converted operands (infinite-precision check).
 * - `/ %`: divisor zero; signed common type with dividend MIN and divisor -1.
 * - `<< >>`: count (promoted right operand) negative, or ≥ the width of the promoted left
 *   type; then for `<<` on a signed promoted left operand: negative value, or value × 2^count
 *   not representable (checked with `__builtin_mul_overflow` into the promoted type).
 *   Counts are checked before the left value (that order is a convention Kiln shares).
 * - unary `-`: signed promoted type and `__builtin_sub_overflow(0, a)`.
 * Every other operator is defined on every integer input.
 */
export const ORACLE_HEADER = String.raw`
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef unsigned long long u64;
enum { K_OK = 0, K_SIGNED_OVERFLOW = 1, K_DIV_ZERO = 2, K_DIV_OVF = 3, K_REM_OVF = 4,
       K_SHIFT_NEG_COUNT = 5, K_SHIFT_BIG_COUNT = 6, K_SHIFT_NEG_VALUE = 7, K_SHIFT_OVERFLOW = 8 };

#define SIGNED_T(T) ((T)-1 < (T)0)
#define BITS_OF(x) (SIGNED_T(__typeof__(x)) ? (u64)(long long)(x) : (u64)(x))
#define TMAX_S(T) ((T)(~0ULL >> (65 - (int)sizeof(T) * 8)))
#define TMIN_S(T) ((T)(-TMAX_S(T) - 1))

#define TNAME(x) _Generic((x), \
  char: "char", signed char: "signed char", unsigned char: "unsigned char", \
  short: "short", unsigned short: "unsigned short", int: "int", unsigned int: "unsigned int", \
  long: "long", unsigned long: "unsigned long", long long: "long long", \
  unsigned long long: "unsigned long long", default: "?")

#define O_ADD(a, b, kind, bits) O_ASM_(__builtin_add_overflow, +, a, b, kind, bits)
#define O_SUB(a, b, kind, bits) O_ASM_(__builtin_sub_overflow, -, a, b, kind, bits)
#define O_MUL(a, b, kind, bits) O_ASM_(__builtin_mul_overflow, *, a, b, kind, bits)
#define O_ASM_(BUILTIN, OP, a, b, kind, bits) do { \
    __typeof__((a) OP (b)) ca_ = (a), cb_ = (b), r_; \
    if (SIGNED_T(__typeof__(r_)) && BUILTIN(ca_, cb_, &r_)) kind = K_SIGNED_OVERFLOW; \
    else { kind = K_OK; bits = BITS_OF((a) OP (b)); } \
  } while (0)

#define O_DIV(a, b, kind, bits) O_DM_(/, K_DIV_OVF, a, b, kind, bits)
#define O_REM(a, b, kind, bits) O_DM_(%, K_REM_OVF, a, b, kind, bits)
#define O_DM_(OP, OVF, a, b, kind, bits) do { \
    __typeof__((a) OP (b)) ca_ = (a), cb_ = (b); \
    if (cb_ == 0) kind = K_DIV_ZERO; \
    else if (SIGNED_T(__typeof__(ca_)) && ca_ == TMIN_S(__typeof__(ca_)) && cb_ == (__typeof__(cb_))-1) kind = OVF; \
    else { kind = K_OK; bits = BITS_OF((a) OP (b)); } \
  } while (0)

#define O_SHCOUNT_(pa_, pb_, kind) \
    (SIGNED_T(__typeof__(pb_)) && pb_ < 0) ? (kind = K_SHIFT_NEG_COUNT, 1) : \
    (pb_ >= (int)sizeof(pa_) * 8) ? (kind = K_SHIFT_BIG_COUNT, 1) : 0
#define O_SHL(a, b, kind, bits) do { \
    __typeof__(+(a)) pa_ = (a), r_; __typeof__(+(b)) pb_ = (b); \
    if (O_SHCOUNT_(pa_, pb_, kind)) {} \
    else if (SIGNED_T(__typeof__(pa_)) && pa_ < 0) kind = K_SHIFT_NEG_VALUE; \
    else if (SIGNED_T(__typeof__(pa_)) && __builtin_mul_overflow(pa_, 1ULL << pb_, &r_)) kind = K_SHIFT_OVERFLOW; \
    else { kind = K_OK; bits = BITS_OF((a) << (b)); } \
  } while (0)
#define O_SHR(a, b, kind, bits) do { \
    __typeof__(+(a)) pa_ = (a); __typeof__(+(b)) pb_ = (b); \
    if (O_SHCOUNT_(pa_, pb_, kind)) {} \
    else { kind = K_OK; bits = BITS_OF((a) >> (b)); } \
  } while (0)

#define O_PLAIN_(OP, a, b, kind, bits) do { kind = K_OK; bits = BITS_OF((a) OP (b)); } while (0)
#define O_AND(a, b, kind, bits) O_PLAIN_(&, a, b, kind, bits)
#define O_OR(a, b, kind, bits) O_PLAIN_(|, a, b, kind, bits)
#define O_XOR(a, b, kind, bits) O_PLAIN_(^, a, b, kind, bits)
#define O_LT(a, b, kind, bits) O_PLAIN_(<, a, b, kind, bits)
#define O_GT(a, b, kind, bits) O_PLAIN_(>, a, b, kind, bits)
#define O_LE(a, b, kind, bits) O_PLAIN_(<=, a, b, kind, bits)
#define O_GE(a, b, kind, bits) O_PLAIN_(>=, a, b, kind, bits)
#define O_EQ(a, b, kind, bits) O_PLAIN_(==, a, b, kind, bits)
#define O_NE(a, b, kind, bits) O_PLAIN_(!=, a, b, kind, bits)
#define O_LAND(a, b, kind, bits) O_PLAIN_(&&, a, b, kind, bits)
#define O_LOR(a, b, kind, bits) O_PLAIN_(||, a, b, kind, bits)

#define O_NEG(a, kind, bits) do { \
    __typeof__(-(a)) pa_ = (a), r_; \
    if (SIGNED_T(__typeof__(pa_)) && __builtin_sub_overflow((__typeof__(pa_))0, pa_, &r_)) kind = K_SIGNED_OVERFLOW; \
    else { kind = K_OK; bits = BITS_OF(-(a)); } \
  } while (0)
#define O_POS(a, kind, bits) do { kind = K_OK; bits = BITS_OF(+(a)); } while (0)
#define O_CPL(a, kind, bits) do { kind = K_OK; bits = BITS_OF(~(a)); } while (0)
#define O_NOT(a, kind, bits) do { kind = K_OK; bits = BITS_OF(!(a)); } while (0)

typedef struct { uint32_t x, y; } hash_t;
static void hinit(hash_t *h) { h->x = 0x811C9DC5u; h->y = 0x2545F491u; }
static void hword(hash_t *h, uint32_t w) {
  h->x = (h->x ^ w) * 0x9E3779B1u; h->x ^= h->x >> 15;
  h->y = (h->y ^ w) * 0x85EBCA77u; h->y ^= h->y >> 13;
}
static void hcase(hash_t *h, int kind, u64 bits) {
  hword(h, 0xC0DE0000u | (uint32_t)kind);
  if (kind == K_OK) { hword(h, (uint32_t)bits); hword(h, (uint32_t)(bits >> 32)); }
}
`;

/** The oracle macro of each binary operator. */
export const BINARY_MACRO: Readonly<Record<BinaryOp, string>> = {
  '+': 'O_ADD',
  '-': 'O_SUB',
  '*': 'O_MUL',
  '/': 'O_DIV',
  '%': 'O_REM',
  '<<': 'O_SHL',
  '>>': 'O_SHR',
  '&': 'O_AND',
  '|': 'O_OR',
  '^': 'O_XOR',
  '<': 'O_LT',
  '>': 'O_GT',
  '<=': 'O_LE',
  '>=': 'O_GE',
  '==': 'O_EQ',
  '!=': 'O_NE',
  '&&': 'O_LAND',
  '||': 'O_LOR',
};

/** The oracle macro of each unary operator. */
export const UNARY_MACRO: Readonly<Record<UnaryOp, string>> = {
  '-': 'O_NEG',
  '+': 'O_POS',
  '~': 'O_CPL',
  '!': 'O_NOT',
};

/** A C string literal. */
export function cString(s: string): string {
  return JSON.stringify(s);
}

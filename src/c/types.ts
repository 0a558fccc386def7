import { LP64, TARGETS, type TargetModel } from './target.js';

/**
 * Integer conversion rank (C11 6.3.1.1): `_Bool` < char < short < int < long < long long <
 * `__int128` (6). Bit-precise types (`_BitInt(N)`, 7) rank by width instead (C23 6.3.1.1): see
 * {@link rankKey}, the one place ranks are compared.
 */
export type Rank = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;

/** Spellings Kiln prints. Exact-width names alias a classic type of the same rank. */
export type IntName =
  | 'char'
  | 'signed char'
  | 'unsigned char'
  | 'short'
  | 'unsigned short'
  | 'int'
  | 'unsigned int'
  | 'long'
  | 'unsigned long'
  | 'long long'
  | 'unsigned long long'
  | 'int8_t'
  | 'uint8_t'
  | 'int16_t'
  | 'uint16_t'
  | 'int32_t'
  | 'uint32_t'
  | 'int64_t'
  | 'uint64_t'
  | '__int128'
  | 'unsigned __int128'
  | '_BitInt'
  | 'unsigned _BitInt';

/** An integer type of the target. Values of types up to 32 bits are JS numbers, wider ones bigints. */
export interface IntType {
  readonly kind: 'int';
  readonly name: IntName;
  readonly bits: number;
  readonly signed: boolean;
  readonly rank: Rank;
  /** A bit-precise type `_BitInt(N)` (C23): `bits` is N; never promoted. */
  readonly bitPrecise?: boolean;
  /**
   * A bit-field of bit-precise type: `bits` is the field's width, `declBits` the N of its declared
   * `_BitInt(N)`, to which its value converts in expressions (C23 6.3.1.1p2).
   */
  readonly declBits?: number;
}

/** `float` or `double` (IEEE-754 binary32/binary64 on every target Kiln models). */
export interface FloatType {
  readonly kind: 'float';
  readonly name: 'float' | 'double';
  readonly bits: 32 | 64;
}

/** Types on which C arithmetic operates. */
export type ArithType = IntType | FloatType;

/** A runtime value of an arithmetic type: number for ≤ 32-bit integers and floats, bigint for wider integers. */
export type CValue = number | bigint;

/** The arithmetic types of one target model, by name. */
export interface CTypes {
  readonly model: TargetModel;
  readonly char: IntType;
  readonly schar: IntType;
  readonly uchar: IntType;
  readonly short: IntType;
  readonly ushort: IntType;
  readonly int: IntType;
  readonly uint: IntType;
  readonly long: IntType;
  readonly ulong: IntType;
  readonly llong: IntType;
  readonly ullong: IntType;
  readonly int8: IntType;
  readonly uint8: IntType;
  readonly int16: IntType;
  readonly uint16: IntType;
  readonly int32: IntType;
  readonly uint32: IntType;
  readonly int64: IntType;
  readonly uint64: IntType;
  /** `__int128` and `unsigned __int128` (only programs for 64-bit targets use them). */
  readonly int128: IntType;
  readonly uint128: IntType;
  readonly float: FloatType;
  readonly double: FloatType;
  /** The classic spellings, one per distinct (rank, signedness) plus plain char. */
  readonly classic: readonly IntType[];
  /** The exact-width spellings `int8_t … uint64_t`. */
  readonly exact: readonly IntType[];
  /** Every integer spelling. */
  readonly allInts: readonly IntType[];
}

function it(name: IntName, bits: number, signed: boolean, rank: Rank): IntType {
  return Object.freeze({ kind: 'int', name, bits, signed, rank });
}

/** Builds the arithmetic types of a target model. */
export function makeCTypes(model: TargetModel): CTypes {
  const rankOfStd = (bits: 8 | 16 | 32 | 64): Rank => {
    const n = model.stdint[bits];
    return n === 'signed char' ? 1 : n === 'short' ? 2 : n === 'int' ? 3 : n === 'long' ? 4 : 5;
  };
  const classic = [
    it('char', model.charBits, model.charSigned, 1),
    it('signed char', model.charBits, true, 1),
    it('unsigned char', model.charBits, false, 1),
    it('short', model.shortBits, true, 2),
    it('unsigned short', model.shortBits, false, 2),
    it('int', model.intBits, true, 3),
    it('unsigned int', model.intBits, false, 3),
    it('long', model.longBits, true, 4),
    it('unsigned long', model.longBits, false, 4),
    it('long long', model.longLongBits, true, 5),
    it('unsigned long long', model.longLongBits, false, 5),
  ];
  const exact = [
    it('int8_t', 8, true, rankOfStd(8)),
    it('uint8_t', 8, false, rankOfStd(8)),
    it('int16_t', 16, true, rankOfStd(16)),
    it('uint16_t', 16, false, rankOfStd(16)),
    it('int32_t', 32, true, rankOfStd(32)),
    it('uint32_t', 32, false, rankOfStd(32)),
    it('int64_t', 64, true, rankOfStd(64)),
    it('uint64_t', 64, false, rankOfStd(64)),
  ];
  // biome-ignore format: data table
  const [char, schar, uchar, short, ushort, int, uint, long, ulong, llong, ullong] = classic as [
    IntType, IntType, IntType, IntType, IntType, IntType, IntType, IntType, IntType, IntType, IntType,
  ];
  // biome-ignore format: data table
  const [int8, uint8, int16, uint16, int32, uint32, int64, uint64] = exact as [
    IntType, IntType, IntType, IntType, IntType, IntType, IntType, IntType,
  ];
  // biome-ignore format: data table
  return Object.freeze({
    model,
    char, schar, uchar, short, ushort, int, uint, long, ulong, llong, ullong,
    int8, uint8, int16, uint16, int32, uint32, int64, uint64,
    int128: it('__int128', 128, true, 6),
    uint128: it('unsigned __int128', 128, false, 6),
    float: Object.freeze({ kind: 'float', name: 'float', bits: 32 }) as FloatType,
    double: Object.freeze({ kind: 'float', name: 'double', bits: 64 }) as FloatType,
    classic,
    exact,
    allInts: [...classic, ...exact],
  });
}

/** The arithmetic types of the default target (x86-64 Linux, LP64). */
export const C: CTypes = makeCTypes(LP64);

// Built once per model (they are frozen): the generator asks for its model's types per program.
const TYPES_BY_TARGET: ReadonlyMap<string, CTypes> = new Map(
  TARGETS.map((m) => [m.name, m === LP64 ? C : makeCTypes(m)]),
);

/** The arithmetic types of a target model (by model or name); the default model gives {@link C} itself. */
export function typesOf(model: TargetModel | string): CTypes {
  const name = typeof model === 'string' ? model : model.name;
  const types = TYPES_BY_TARGET.get(name);
  if (types) return types;
  if (typeof model === 'string') throw new Error(`unknown target model ${model}`);
  return makeCTypes(model);
}

/** Whether two integer types are the same C type (spelling aside; plain char is its own type). */
export function sameIntType(a: IntType, b: IntType): boolean {
  if (a.rank !== b.rank || a.signed !== b.signed || a.bits !== b.bits) return false;
  if (a.declBits !== b.declBits) return false;
  // char, signed char and unsigned char are three distinct types with the same rank.
  const aPlain = a.name === 'char';
  const bPlain = b.name === 'char';
  return aPlain === bPlain;
}

/** Whether two arithmetic types are the same C type. */
export function sameArithType(a: ArithType, b: ArithType): boolean {
  if (a.kind === 'float' || b.kind === 'float') return a.kind === b.kind && a.bits === b.bits;
  return sameIntType(a, b);
}

/** Whether values of this type are represented as bigint (wider than 32 bits). */
export function isWide(t: ArithType): boolean {
  return t.kind === 'int' && t.bits > 32;
}

/** Smallest value of an integer type. */
export function intMin(t: IntType): bigint {
  return t.signed ? (SIGNED_MIN[t.bits] ??= -(1n << BigInt(t.bits - 1))) : 0n;
}

/** Largest value of an integer type. */
export function intMax(t: IntType): bigint {
  return t.signed
    ? (SIGNED_MAX[t.bits] ??= (1n << BigInt(t.bits - 1)) - 1n)
    : (UNSIGNED_MAX[t.bits] ??= (1n << BigInt(t.bits)) - 1n);
}

// Limits by width, computed once: the generator and interpreter ask for them per value.
const SIGNED_MIN: bigint[] = [];
const SIGNED_MAX: bigint[] = [];
const UNSIGNED_MAX: bigint[] = [];

/** Whether an exact integer value is representable in `t`. */
export function fits(value: bigint, t: IntType): boolean {
  return value >= intMin(t) && value <= intMax(t);
}

/** The unsigned type of the same rank and spelling family (`long long` → `unsigned long long`). */
export function toUnsigned(t: IntType, types: CTypes = C): IntType {
  if (!t.signed) return t;
  if (t.bitPrecise) return t.declBits ? bitIntField(bitInt(t.declBits, false), t.bits) : bitInt(t.bits, false);
  if (t.name === '__int128') return types.uint128;
  const byName: Partial<Record<IntName, IntType>> = {
    char: types.uchar,
    'signed char': types.uchar,
    short: types.ushort,
    int: types.uint,
    long: types.ulong,
    'long long': types.ullong,
    int8_t: types.uint8,
    int16_t: types.uint16,
    int32_t: types.uint32,
    int64_t: types.uint64,
  };
  const u = byName[t.name];
  if (!u) throw new Error(`no unsigned counterpart for ${t.name}`);
  return sameWidth(u, t);
}

/** The signed type of the same rank and spelling family. */
export function toSigned(t: IntType, types: CTypes = C): IntType {
  if (t.signed) return t;
  if (t.bitPrecise) {
    const n = t.declBits ?? t.bits;
    if (n < 2) throw new Error('no signed counterpart for unsigned _BitInt(1)');
    return t.declBits ? bitIntField(bitInt(n, true), t.bits) : bitInt(n, true);
  }
  if (t.name === 'unsigned __int128') return types.int128;
  const byName: Partial<Record<IntName, IntType>> = {
    'unsigned char': types.schar,
    'unsigned short': types.short,
    'unsigned int': types.int,
    'unsigned long': types.long,
    'unsigned long long': types.llong,
    uint8_t: types.int8,
    uint16_t: types.int16,
    uint32_t: types.int32,
    uint64_t: types.int64,
  };
  const s = t.name === 'char' ? types.schar : byName[t.name];
  if (!s) throw new Error(`no signed counterpart for ${t.name}`);
  return sameWidth(s, t);
}

/**
 * The counterpart keeps the width and rank of the type it was derived from: `t` already carries
 * its model's width (a 32-bit `long` on ILP32), so the result is right even when a caller passes
 * another model's table (int, the only type the table is otherwise asked for, is 32 bits on all).
 */
function sameWidth(counterpart: IntType, t: IntType): IntType {
  if (counterpart.bits === t.bits && counterpart.rank === t.rank) return counterpart;
  return it(counterpart.name, t.bits, counterpart.signed, t.rank);
}

/**
 * Integer promotion (C11 6.3.1.1p2): a type of rank below `int`, or a bit-field narrower than
 * `int` (an IntType whose `bits` is the field width), becomes `int` when `int` holds all its
 * values, `unsigned int` otherwise. Other types are unchanged.
 */
export function promote(t: IntType, types: CTypes = C): IntType {
  // Bit-precise types are not promoted; a bit-field of one converts to its declared type.
  if (t.bitPrecise) return t.declBits ? bitInt(t.declBits, t.signed) : t;
  if (t.rank > types.int.rank) return t;
  if (t.rank === types.int.rank && t.bits === types.int.bits) return t;
  const fitsInInt = t.signed ? t.bits <= types.int.bits : t.bits < types.int.bits;
  return fitsInInt ? types.int : types.uint;
}

/**
 * The expression type of a bit-field member of declared type `int`/`unsigned int` and the given
 * width: an IntType whose `bits` is the width, so promotion and conversion follow from the width
 * ("as restricted by the width", C11 6.3.1.1p2).
 */
export function bitfieldType(signed: boolean, width: number, types: CTypes = C): IntType {
  if (!Number.isInteger(width) || width < 1 || width > types.int.bits) {
    throw new Error(`bit-field width must be in 1..${types.int.bits}, got ${width}`);
  }
  if (width === types.int.bits) return signed ? types.int : types.uint;
  return Object.freeze({
    kind: 'int',
    name: signed ? 'int' : 'unsigned int',
    bits: width,
    signed,
    rank: types.int.rank,
  });
}

/** Whether an integer type is a bit-field type made by {@link bitfieldType}. */
export function isBitfieldType(t: IntType, types: CTypes = C): boolean {
  return t.rank === types.int.rank && t.bits < types.int.bits;
}

/** Promotion of any arithmetic type (floats are unchanged; `float` is not promoted to `double` in expressions). */
export function promoteArith(t: ArithType, types: CTypes = C): ArithType {
  return t.kind === 'float' ? t : promote(t, types);
}

/**
 * The usual arithmetic conversions (C11 6.3.1.8): the common type of two operands.
 * Mind LP64: `unsigned long` with `long long` gives `unsigned long long`, because `long long`
 * cannot represent every `unsigned long` value and outranks it.
 */
export function usualArithmetic(a: ArithType, b: ArithType, types: CTypes = C): ArithType {
  if (a.kind === 'float' || b.kind === 'float') {
    if ((a.kind === 'float' && a.bits === 64) || (b.kind === 'float' && b.bits === 64)) return types.double;
    return types.float;
  }
  return usualArithmeticInt(a, b, types);
}

/** The usual arithmetic conversions for two integer operands. */
export function usualArithmeticInt(a: IntType, b: IntType, types: CTypes = C): IntType {
  const pa = promote(a, types);
  const pb = promote(b, types);
  const ka = rankKey(pa);
  const kb = rankKey(pb);
  if (pa.signed === pb.signed) {
    if (ka === kb) return pa;
    return ka > kb ? pa : pb;
  }
  const u = pa.signed ? pb : pa;
  const s = pa.signed ? pa : pb;
  if (rankKey(u) >= rankKey(s)) return u;
  if (s.bits > u.bits) return s;
  return toUnsigned(s, types);
}

/**
 * A number ordering integer conversion ranks (C11 6.3.1.1p1, C23 6.3.1.1p1): by width first
 * (every model's standard ranks grow with width), then standard and extended types above a
 * bit-precise type of the same width, then the standard rank (`long` below `long long` at 64
 * bits). `__int128` against `_BitInt(128)` is implementation-defined; gcc and clang both give
 * `__int128` the higher rank, as this does (the value is the same either way).
 */
function rankKey(t: IntType): number {
  return t.bits * 16 + (t.bitPrecise ? 0 : 8 + t.rank);
}

// One frozen object per (width, signedness): IR types are compared by field, but the generator
// and interpreter ask for the same few types very often.
const BIT_INTS = new Map<number, IntType>();

/** `_BitInt(bits)` or `unsigned _BitInt(bits)` (C23: signed needs at least 2 bits, unsigned 1). */
export function bitInt(bits: number, signed: boolean): IntType {
  if (!Number.isInteger(bits) || bits < (signed ? 2 : 1))
    throw new Error(`no ${signed ? '' : 'unsigned '}_BitInt(${bits})`);
  const key = signed ? bits : -bits;
  let t = BIT_INTS.get(key);
  if (!t) {
    t = Object.freeze({
      kind: 'int',
      name: signed ? '_BitInt' : 'unsigned _BitInt',
      bits,
      signed,
      rank: 7,
      bitPrecise: true,
    });
    BIT_INTS.set(key, t);
  }
  return t;
}

/** The expression type of a bit-field of width `width` declared with bit-precise type `decl`. */
export function bitIntField(decl: IntType, width: number): IntType {
  const n = decl.declBits ?? decl.bits;
  if (!decl.bitPrecise || width < 1 || width > n) throw new Error(`bad _BitInt(${n}) bit-field width ${width}`);
  if (width === n) return bitInt(n, decl.signed);
  return Object.freeze({ ...bitInt(n, decl.signed), bits: width, declBits: n });
}

/** Whether a type is `__int128` or `unsigned __int128`. */
export function isInt128(t: IntType): boolean {
  return t.rank === 6;
}

/** The C spelling of an arithmetic type: `_BitInt(N)` with its width (a bit-field's declared one). */
export function typeName(t: ArithType): string {
  if (t.kind === 'int' && t.bitPrecise) return `${t.name}(${t.declBits ?? t.bits})`;
  return t.name;
}

/**
 * The width in which a value of type `t` enters the checksum: 64 bits (converted to `uint64_t`)
 * for every type up to 64 bits, else its (promoted) width, hashed in 64-bit pieces of its
 * unsigned representation, lowest first, by the interpreter and the emitted program alike.
 */
export function hashWidth(t: IntType): number {
  const p = promote(t);
  return p.bits > 64 ? p.bits : 64;
}

/**
 * The type an object holding a value of expression type `t` is declared with: a bit-field's
 * declared type (`int`, `unsigned int`, or the `_BitInt(N)` of a bit-precise bit-field), else `t`.
 */
export function declaredType(t: IntType, types: CTypes = C): IntType {
  if (t.declBits) return bitInt(t.declBits, t.signed);
  return isBitfieldType(t, types) ? (t.signed ? types.int : types.uint) : t;
}

import { LP64, TARGETS, type TargetModel } from './target.js';

/** Integer conversion rank (C11 6.3.1.1): `_Bool` < char < short < int < long < long long. */
export type Rank = 0 | 1 | 2 | 3 | 4 | 5;

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
  | 'uint64_t';

/** An integer type of the target. Values of types up to 32 bits are JS numbers, wider ones bigints. */
export interface IntType {
  readonly kind: 'int';
  readonly name: IntName;
  readonly bits: number;
  readonly signed: boolean;
  readonly rank: Rank;
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
  if (pa.signed === pb.signed) {
    if (pa.rank === pb.rank) return pa;
    return pa.rank > pb.rank ? pa : pb;
  }
  const u = pa.signed ? pb : pa;
  const s = pa.signed ? pa : pb;
  if (u.rank >= s.rank) return u;
  if (s.bits > u.bits) return s;
  return toUnsigned(s, types);
}

/** The C spelling of an arithmetic type. */
export function typeName(t: ArithType): string {
  return t.name;
}

import { sameIntType, type FloatType, type IntType } from '../c/types.js';

/** Type qualifiers carried by every IR type (C11 6.7.3). */
export interface Quals {
  readonly const?: boolean;
  readonly volatile?: boolean;
}

/** An integer type, possibly qualified. */
export type IntT = IntType & Quals;
/** A floating type, possibly qualified. */
export type FloatT = FloatType & Quals;

/** A pointer; the pointee carries its own qualifiers (`int const * volatile p` → ptr{to: int const, volatile}). */
export interface PointerT extends Quals {
  readonly kind: 'ptr';
  readonly to: Type;
}

/** A fixed-length array. Element qualifiers live on `of` (C has no qualified array types). */
export interface ArrayT extends Quals {
  readonly kind: 'array';
  readonly of: Type;
  readonly length: number;
}

/** A member of a struct or union. `bits` marks a bit-field; width 0 is an unnamed `:0` field. */
export interface Field {
  readonly name: string;
  readonly type: Type;
  readonly bits?: number;
}

/** A struct type (nominal: identified by `id`). */
export interface StructT extends Quals {
  readonly kind: 'struct';
  readonly id: number;
  readonly name: string;
  readonly fields: readonly Field[];
  /** Emitted inside `#pragma pack(push, 1)` … `#pragma pack(pop)`. */
  readonly packed?: boolean;
}

/** A union type (nominal: identified by `id`). */
export interface UnionT extends Quals {
  readonly kind: 'union';
  readonly id: number;
  readonly name: string;
  readonly fields: readonly Field[];
}

/**
 * A GNU vector, `typedef T vN __attribute__((vector_size(B)))`: `lanes` elements of the integer
 * or floating type `of` (B = lanes × sizeof(T), a power of two). Operators apply lane by lane at
 * the lane's own width (no promotion); lanes are reached by subscript, never by address
 * (src/ir/vector.ts).
 */
export interface VectorT extends Quals {
  readonly kind: 'vector';
  readonly of: IntType | FloatType;
  readonly lanes: number;
}

/** `void`, only as a function return type or a pointee. */
export interface VoidT extends Quals {
  readonly kind: 'void';
}

/** Any IR type. */
export type Type = IntT | FloatT | PointerT | ArrayT | StructT | UnionT | VectorT | VoidT;
/** Types with a single value (integers, floats, pointers). */
export type ScalarT = IntT | FloatT | PointerT;
/** Struct or union. */
export type RecordT = StructT | UnionT;

/** The `void` type. */
export const VOID: VoidT = Object.freeze({ kind: 'void' });

/** Whether a type is an arithmetic type. */
export function isArith(t: Type): t is IntT | FloatT {
  return t.kind === 'int' || t.kind === 'float';
}

/** Whether a type is a scalar (arithmetic or pointer). */
export function isScalar(t: Type): t is ScalarT {
  return t.kind === 'int' || t.kind === 'float' || t.kind === 'ptr';
}

/** Whether a type is a struct or union. */
export function isRecord(t: Type): t is RecordT {
  return t.kind === 'struct' || t.kind === 'union';
}

/** The same type with the given qualifiers added. */
export function qualify<T extends Type>(t: T, q: Quals): T {
  if ((!q.const || t.const) && (!q.volatile || t.volatile)) return t;
  return Object.freeze({
    ...t,
    ...(q.const ? { const: true } : {}),
    ...(q.volatile ? { volatile: true } : {}),
  }) as unknown as T;
}

/**
 * The type with qualifiers added the way C applies them to a member or object: on an array they
 * apply to its elements (C11 6.7.3p9: there are no qualified array types).
 */
export function qualifyMember(t: Type, q: Quals): Type {
  if (!q.const && !q.volatile) return t;
  if (t.kind === 'array') return arrayOf(qualifyMember(t.of, q), t.length);
  return qualify(t, q);
}

/** The same type without top-level qualifiers. */
export function unqualified<T extends Type>(t: T): T {
  if (!t.const && !t.volatile) return t;
  const { const: _c, volatile: _v, ...rest } = t as T & Quals;
  return Object.freeze(rest) as T;
}

/** Pointer to `to`, optionally qualified itself. */
export function pointerTo(to: Type, q: Quals = {}): PointerT {
  return qualify(Object.freeze({ kind: 'ptr', to }) as PointerT, q);
}

/** Array of `length` elements of `of`. */
export function arrayOf(of: Type, length: number): ArrayT {
  if (!Number.isInteger(length) || length < 1)
    throw new Error(`array length must be a positive integer, got ${length}`);
  return Object.freeze({ kind: 'array', of, length });
}

/** Whether two types are the same C type; top-level qualifiers are compared only when `withQuals`. */
export function sameType(a: Type, b: Type, withQuals = false): boolean {
  if (withQuals && (!!a.const !== !!b.const || !!a.volatile !== !!b.volatile)) return false;
  switch (a.kind) {
    case 'int':
      return b.kind === 'int' && sameIntType(a, b);
    case 'float':
      return b.kind === 'float' && a.bits === b.bits;
    case 'void':
      return b.kind === 'void';
    case 'ptr':
      return b.kind === 'ptr' && sameType(a.to, b.to, true);
    case 'array':
      return b.kind === 'array' && a.length === b.length && sameType(a.of, b.of, true);
    case 'struct':
    case 'union':
      return b.kind === a.kind && b.id === a.id;
    case 'vector':
      return b.kind === 'vector' && a.lanes === b.lanes && sameType(a.of, b.of);
  }
}

/** The number of pointer levels (`int **` → 2). */
export function pointerDepth(t: Type): number {
  let d = 0;
  while (t.kind === 'ptr') {
    d++;
    t = t.to;
  }
  return d;
}

/** The innermost non-pointer, non-array type. */
export function baseType(t: Type): Type {
  while (t.kind === 'ptr' || t.kind === 'array') t = t.kind === 'ptr' ? t.to : t.of;
  return t;
}

/** Whether any scalar reachable inside the object (fields, elements) is const-qualified. */
export function hasConstMember(t: Type): boolean {
  if (t.const) return true;
  if (t.kind === 'array') return hasConstMember(t.of);
  if (t.kind === 'struct' || t.kind === 'union') return t.fields.some((f) => hasConstMember(f.type));
  return false;
}

/** Whether any part of the object is volatile-qualified. */
export function hasVolatileMember(t: Type): boolean {
  if (t.volatile) return true;
  if (t.kind === 'array') return hasVolatileMember(t.of);
  if (t.kind === 'struct' || t.kind === 'union') return t.fields.some((f) => hasVolatileMember(f.type));
  return false;
}

/** Named fields only (unnamed `:0` bit-fields cannot be accessed). */
export function namedFields(t: RecordT): readonly { field: Field; index: number }[] {
  const out: { field: Field; index: number }[] = [];
  t.fields.forEach((field, index) => {
    if (field.bits !== 0) out.push({ field, index });
  });
  return out;
}

import { C, isInt128, typeName, type IntType } from '../c/types.js';
import type { SafeOp } from '../ir/nodes.js';
import type { Type, VectorT } from '../ir/types.js';

/** Short suffix naming a promoted integer type in wrapper names (`int` → `i32`, `long long` → `ll`). */
function typeSuffix(t: IntType): string {
  if (t.bitPrecise) return `${t.signed ? 'b' : 'ub'}${t.declBits ?? t.bits}`;
  if (isInt128(t)) return t.signed ? 'i128' : 'u128';
  if (t.rank === C.llong.rank) return t.signed ? 'll' : 'ull';
  // An ILP32 `long` is as wide as `int` but another type: its wrappers need their own names.
  if (t.rank === C.long.rank && t.bits === 32) return t.signed ? 'l32' : 'ul32';
  return `${t.signed ? 'i' : 'u'}${t.bits}`;
}

const OP_NAMES: Record<SafeOp, string> = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '/': 'div',
  '%': 'mod',
  '<<': 'shl',
  '>>': 'shr',
  neg: 'neg',
};

/** Name of the safe-math wrapper for an operator on operation type `t` (and count type `ct` for shifts). */
export function safeName(op: SafeOp, t: IntType, ct?: IntType, prefix = ''): string {
  const base = `${prefix}kiln_${OP_NAMES[op]}_${typeSuffix(t)}`;
  return ct ? `${base}_${typeSuffix(ct)}` : base;
}

/** The typedef name of a vector type: lanes' kind and width, then their count (`vec_i32x4`, `vec_f64x2`). */
export function vectorTypedefName(t: VectorT, prefix = ''): string {
  const kind = t.of.kind === 'float' ? 'f' : t.of.signed ? 'i' : 'u';
  return `${prefix}vec_${kind}${t.of.bits}x${t.lanes}`;
}

/** The C spelling of a type's qualifiers, with a trailing space when non-empty. */
function qualPrefix(t: Type): string {
  return `${t.const ? 'const ' : ''}${t.volatile ? 'volatile ' : ''}`;
}

/** The spelling of a non-derived type (no pointer/array declarator parts); `prefix` qualifies record tags. */
export function baseSpelling(t: Type, prefix = ''): string {
  switch (t.kind) {
    case 'int':
      if (t.bitPrecise) return typeName(t);
      // Bit-field expression types print as their declared type.
      return t.bits < 32 && t.rank === C.int.rank ? (t.signed ? 'int' : 'unsigned int') : t.name;
    case 'float':
      return t.name;
    case 'void':
      return 'void';
    case 'struct':
      return `struct ${prefix}${t.name}`;
    case 'union':
      return `union ${prefix}${t.name}`;
    case 'vector':
      return vectorTypedefName(t, prefix);
    default:
      throw new Error(`${t.kind} has no base spelling`);
  }
}

/**
 * A C declaration of `name` with type `t`: `int32_t * const * volatile p`, `struct S0 a[2][3]`.
 * An empty name gives an abstract declarator (for casts and prototypes).
 */
export function declare(t: Type, name: string, prefix = ''): string {
  switch (t.kind) {
    case 'array':
      return declare(t.of, `${name}[${t.length}]`, prefix);
    case 'ptr': {
      if (t.to.kind === 'array') throw new Error('pointers to arrays are not supported');
      const q = `${t.const ? ' const' : ''}${t.volatile ? ' volatile' : ''}`;
      const inner = `*${q}${name ? (q ? ' ' : '') + name : ''}`;
      return declare(t.to, inner, prefix);
    }
    default:
      return `${qualPrefix(t)}${baseSpelling(t, prefix)}${name ? ` ${name}` : ''}`;
  }
}

import type { Expr, Program } from '../ir/nodes.js';
import { isCompare } from '../c/ops.js';
import { unqualified, type Type, type VectorT } from '../ir/types.js';
import { vectorBytes } from '../ir/vector.js';
import { walkProgram } from '../ir/visit.js';
import { baseSpelling, vectorTypedefName } from './names.js';

/**
 * The printing of GNU vectors: one typedef per vector type a program mentions (declarations,
 * record fields, expression types), printed before the records, and the vector builtins.
 */

/** The vector types mentioned anywhere in a program, in first-mention order (records first). */
function vectorTypes(p: Program): VectorT[] {
  const seen = new Map<string, VectorT>();
  const visiting = new Set<Type>();
  const note = (t: Type): void => {
    switch (t.kind) {
      case 'vector': {
        const name = vectorTypedefName(t);
        if (!seen.has(name)) seen.set(name, t);
        return;
      }
      case 'array':
        return note(t.of);
      case 'ptr':
        return note(t.to);
      case 'struct':
      case 'union':
        if (visiting.has(t)) return;
        visiting.add(t);
        for (const f of t.fields) note(f.type);
        return;
      default:
        return;
    }
  };
  for (const r of p.records) note(r);
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl') note(n.type);
    else if (n.kind === 'func') note(n.ret);
    else if ('type' in n && n.type) note(n.type as Type);
  });
  return [...seen.values()];
}

/** `typedef int32_t vec_i32x4 __attribute__((vector_size(16)));` for each vector type of the program. */
export function vectorTypedefs(p: Program, prefix: string): string[] {
  return vectorTypes(p).map(
    (t) =>
      `typedef ${baseSpelling(t.of)} ${vectorTypedefName(t, prefix)} __attribute__((vector_size(${vectorBytes(t)})));`,
  );
}

/** The text of an expression of the `vec` kind, its operands printed by `print`. */
export function printVec(e: Expr & { kind: 'vec' }, print: (e: Expr) => string, prefix: string): string {
  const args = e.args.map(print);
  const name = vectorTypedefName(e.type, prefix);
  switch (e.op) {
    case 'lanes':
      return `((${name}){${args.join(', ')}})`;
    case 'convertvector':
      return `__builtin_convertvector(${args[0]}, ${name})`;
    case 'shufflevector':
      return `__builtin_shufflevector(${args.join(', ')}, ${(e.indices ?? []).join(', ')})`;
    case 'shuffle':
      return `__builtin_shuffle(${args.join(', ')})`;
  }
}

/**
 * A binary operator with a vector operand: a scalar operand is cast to the lane type (a constant's
 * literal has its promoted type, which clang refuses to splat when the value could not fit), and a
 * comparison is cast to its mask typedef (gcc and clang differ on the type they give it when lanes
 * are `long`).
 */
export function printVecBinary(e: Expr & { kind: 'binary' }, print: (e: Expr) => string, prefix: string): string {
  const side = (x: Expr): string =>
    x.type.kind === 'int' || x.type.kind === 'float' ? `((${baseSpelling(unqualified(x.type))})${print(x)})` : print(x);
  const text = `(${side(e.left)} ${e.op} ${side(e.right)})`;
  return isCompare(e.op) ? `((${vectorTypedefName(e.type as VectorT, prefix)})${text})` : text;
}

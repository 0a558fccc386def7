import { isCompare, isIntegerOnly, isShift, type BinaryOp } from '../c/ops.js';
import { C, toSigned, toUnsigned, type FloatType, type IntType } from '../c/types.js';
import type { IRBuilder } from './build.js';
import { isLvalue, type Expr, type Node, type VecExpr } from './nodes.js';
import { qualifyMember, sameType, unqualified, type Field, type Type, type VectorT } from './types.js';

/**
 * GNU vectors in the IR. A vector type is `lanes` integers of one exact-width type, or `lanes`
 * floats or doubles; every operator works lane by lane at the lane's own width, as gcc and clang
 * compute it:
 * - `+ - * / % & | ^ << >>` on two vectors of one type, or a vector and a scalar of exactly its
 *   lane type (the scalar stands for a vector of copies of it: gcc and clang both accept a scalar
 *   of the element type without a conversion warning); `-` and `~` on one vector;
 * - comparisons give the mask type ({@link maskType}): signed lanes of the same width, -1 where
 *   the comparison holds and 0 elsewhere;
 * - a cast between two vector types of the same size reinterprets the bytes (little endian);
 * - `v[i]` is a lane of a vector object (never of a value, never with its address taken);
 * - signed overflow, shift counts outside [0, lane width) and division by zero or of the lane
 *   minimum by -1 are undefined lane by lane, as for scalars.
 * Floating lanes (csmith mode with `features.floats`) hold values by Kiln's exactness rule, as
 * floating scalars do (integers the type represents exactly): `+ - * /`, unary `-` and the
 * comparisons only; a cast reinterprets a floating vector's bytes as an integer vector, never the
 * other way (arbitrary bits are not exact values); `__builtin_convertvector` converts lane by lane
 * as a cast of each lane would, with the same UB.
 * The builders here validate as the scalar ones in build.ts do.
 */

/** Byte sizes of vector types drawn (`vector_size`): 4 to 64. */
export const VECTOR_BYTES = [4, 8, 16, 32, 64] as const;

/** A vector type of `lanes` lanes of `of` (its size must be a power of two). */
export function vectorOf(of: IntType | FloatType, lanes: number): VectorT {
  const bytes = (of.bits / 8) * lanes;
  if (
    (of.kind === 'int' && of.bitPrecise) ||
    !Number.isInteger(bytes) ||
    bytes < 1 ||
    (bytes & (bytes - 1)) !== 0 ||
    lanes < 2
  )
    throw new Error(`no vector type of ${lanes} lanes of ${of.name}`);
  return Object.freeze({ kind: 'vector', of: unqualified(of), lanes });
}

/** The size of a vector type in bytes (its `vector_size`, and its alignment on x86_64). */
export function vectorBytes(t: VectorT): number {
  return (t.of.bits / 8) * t.lanes;
}

/** Whether a vector type has floating lanes. */
export function isFloatVector(t: VectorT): t is VectorT & { readonly of: FloatType } {
  return t.of.kind === 'float';
}

/** The integer lane type of a vector type with integer lanes (an error for floating lanes). */
export function intLane(t: VectorT): IntType {
  if (t.of.kind !== 'int') fail(`${t.of.name} lanes where integer lanes are needed`);
  return t.of;
}

/** The signed integer type of a floating lane's width (`int32_t` for `float`, `int64_t` for `double`). */
function sameWidthInt(t: FloatType): IntType {
  return t.bits === 32 ? C.int32 : C.int64;
}

/** The type of a comparison of two vectors of type `t`: signed integer lanes of the same width. */
export function maskType(t: VectorT): VectorT {
  if (t.of.kind === 'float') return vectorOf(sameWidthInt(t.of), t.lanes);
  return t.of.signed ? unqualified(t) : vectorOf(toSigned(t.of), t.lanes);
}

/** The vector type with unsigned lanes of the same width (where signed lane arithmetic wraps). */
export function unsignedVector(t: VectorT): VectorT {
  const lane = intLane(t);
  return lane.signed ? vectorOf(toUnsigned(lane), t.lanes) : unqualified(t);
}

/**
 * Whether a union puns vectors with arrays: every member a vector, or a one-dimensional array of
 * integers, of one lane type and count (`union { vec_i32x4 v; int32_t a[4]; }`). Its members are
 * the same bytes in the same order (x86_64: the lanes of a vector are in memory as an array's
 * elements are), so a read of any member after a store to another is defined, as GNU C says
 * of type punning through a union.
 */
export function isPunUnion(t: Type): boolean {
  if (t.kind !== 'union' || t.fields.length < 2) return false;
  const shape = (f: Field): string | undefined => {
    const ft = unqualified(f.type);
    if (f.bits !== undefined || f.type.const || f.type.volatile) return undefined;
    if (ft.kind === 'vector') return `${ft.of.name}:${ft.lanes}`;
    if (
      ft.kind === 'array' &&
      (ft.of.kind === 'float' || (ft.of.kind === 'int' && !ft.of.bitPrecise)) &&
      !ft.of.const &&
      !ft.of.volatile
    )
      return `${ft.of.name}:${ft.length}`;
    return undefined;
  };
  const first = shape(t.fields[0]!);
  return (
    first !== undefined && t.fields.some((f) => f.type.kind === 'vector') && t.fields.every((f) => shape(f) === first)
  );
}

/** Whether `e` is a lane subscript `v[i]` of a vector object. */
function isLaneAccess(e: Expr): boolean {
  return e.kind === 'index' && e.base.type.kind === 'vector';
}

function fail(message: string): never {
  throw new Error(`vector IR: ${message}`);
}

function vectorType(e: Expr): VectorT {
  if (e.type.kind !== 'vector') fail(`expected a vector operand, got ${e.type.kind}`);
  return unqualified(e.type);
}

/**
 * `left op right` with a vector operand: both vectors of one type, or one a scalar of exactly the
 * other's lane type (broadcast). Not `&&` or `||`.
 */
export function vecBinary(b: IRBuilder, op: BinaryOp, left: Expr, right: Expr): Expr {
  if (op === '&&' || op === '||') fail(`${op} on vectors`);
  const lv = left.type.kind === 'vector';
  const vt = lv ? vectorType(left) : vectorType(right);
  const other = lv ? right : left;
  if (other.type.kind === 'vector') {
    if (!sameType(unqualified(other.type), vt)) fail('vector operands of different types');
  } else if (!sameType(unqualified(other.type), vt.of)) {
    fail(`a scalar operand of a vector operation must have the lane type ${vt.of.name}`);
  }
  if (isShift(op) && !lv) fail('a shift of a scalar by a vector');
  if (isFloatVector(vt) && isIntegerOnly(op)) fail(`${op} on ${vt.of.name} lanes`);
  const type = isCompare(op) ? maskType(vt) : vt;
  return { kind: 'binary', id: b.id(), type, op, left, right };
}

/** `-v` or `~v` (`~` on integer lanes only). */
export function vecUnary(b: IRBuilder, op: '-' | '~', operand: Expr): Expr {
  const t = vectorType(operand);
  if (op === '~' && isFloatVector(t)) fail(`~ on ${t.of.name} lanes`);
  return { kind: 'unary', id: b.id(), type: t, op, operand };
}

/** `(t)v`: the bytes of `v` read as a vector of type `t` of the same size (never as floating lanes). */
export function vecCast(b: IRBuilder, t: VectorT, operand: Expr): Expr {
  const from = vectorType(operand);
  if (vectorBytes(from) !== vectorBytes(t)) fail('a cast between vectors of different sizes');
  if (isFloatVector(t) && !sameType(from, unqualified(t))) fail(`a cast to ${t.of.name} lanes reinterprets bits`);
  return { kind: 'cast', id: b.id(), type: unqualified(t), operand };
}

/** `(vT){a0, a1, …}`: one side-effect-free scalar of the lane type per lane. */
export function vecLanes(b: IRBuilder, t: VectorT, lanes: readonly Expr[]): VecExpr {
  if (lanes.length !== t.lanes) fail(`${lanes.length} values for ${t.lanes} lanes`);
  for (const l of lanes) if (!sameType(unqualified(l.type), t.of)) fail('a lane of another type');
  return { kind: 'vec', id: b.id(), type: unqualified(t), op: 'lanes', args: lanes };
}

/** `__builtin_convertvector(v, t)`: the same lane count, each lane converted as by a cast. */
export function vecConvert(b: IRBuilder, t: VectorT, v: Expr): VecExpr {
  if (vectorType(v).lanes !== t.lanes) fail('convertvector between different lane counts');
  return { kind: 'vec', id: b.id(), type: unqualified(t), op: 'convertvector', args: [v] };
}

/** `__builtin_shufflevector(x, y, indices…)`: lanes of `x` then `y`, one index per result lane. */
export function vecShuffleVector(b: IRBuilder, x: Expr, y: Expr, indices: readonly number[]): VecExpr {
  const xt = vectorType(x);
  if (!sameType(xt, vectorType(y))) fail('shufflevector operands of different types');
  if (indices.some((i) => !Number.isInteger(i) || i < 0 || i >= 2 * xt.lanes)) fail('shufflevector index out of range');
  const type = vectorOf(xt.of, indices.length);
  return { kind: 'vec', id: b.id(), type, op: 'shufflevector', args: [x, y], indices };
}

/** GCC's `__builtin_shuffle(x, mask)` or `(x, y, mask)`: the mask has lanes of the same width and count. */
export function vecShuffle(b: IRBuilder, operands: readonly Expr[], mask: Expr): VecExpr {
  const xt = vectorType(operands[0] ?? fail('shuffle without operands'));
  if (operands.length > 2 || operands.some((o) => !sameType(vectorType(o), xt))) fail('shuffle operands');
  const mt = vectorType(mask);
  if (mt.lanes !== xt.lanes || mt.of.bits !== xt.of.bits || isFloatVector(mt)) fail('a shuffle mask of another shape');
  return { kind: 'vec', id: b.id(), type: xt, op: 'shuffle', args: [...operands, mask] };
}

/** Whether a lane subscript may be built on `e` (an object, so `e[i]` is an lvalue or a read of one). */
function laneBase(e: Expr): boolean {
  return e.type.kind === 'vector' && isLvalue(e);
}

/**
 * The type of an expression with a vector operand whose children carry current types, or
 * undefined when `e` involves no vector (retype.ts asks this first).
 */
export function vectorExprType(e: Expr): Type | undefined {
  switch (e.kind) {
    case 'vec':
      return e.type;
    case 'index':
      if (e.base.type.kind !== 'vector') return undefined;
      return qualifyMember(e.base.type.of, { const: !!e.base.type.const, volatile: !!e.base.type.volatile });
    case 'unary':
      return e.operand.type.kind === 'vector' ? unqualified(e.operand.type) : undefined;
    case 'cast':
      return e.type.kind === 'vector' ? e.type : undefined;
    case 'binary': {
      const vt =
        e.left.type.kind === 'vector' ? e.left.type : e.right.type.kind === 'vector' ? e.right.type : undefined;
      if (!vt) return undefined;
      return isCompare(e.op) ? maskType(vt) : unqualified(vt);
    }
    default:
      return undefined;
  }
}

/**
 * Why a node with a vector operand breaks the rules the builders here enforce, `null` when it
 * keeps them, or undefined when the node involves no vector (retype.ts's `typeError` asks this
 * first; a reducer's candidate that breaks them would not compile).
 */
export function vectorNodeError(n: Node): string | null | undefined {
  const check = (f: () => unknown): string | null => {
    try {
      f();
      return null;
    } catch (err) {
      return (err as Error).message;
    }
  };
  const scratch = { id: () => 0 } as unknown as IRBuilder;
  switch (n.kind) {
    case 'vec':
      return check(() => {
        if (n.op === 'lanes') vecLanes(scratch, n.type, n.args);
        else if (n.op === 'convertvector') vecConvert(scratch, n.type, n.args[0]!);
        else if (n.op === 'shufflevector') vecShuffleVector(scratch, n.args[0]!, n.args[1]!, n.indices ?? []);
        else vecShuffle(scratch, n.args.slice(0, -1), n.args[n.args.length - 1]!);
      });
    case 'binary':
      if (n.left.type.kind !== 'vector' && n.right.type.kind !== 'vector') return undefined;
      return check(() => vecBinary(scratch, n.op, n.left, n.right));
    case 'unary':
      if (n.operand.type.kind !== 'vector') return undefined;
      return n.op === '-' || (n.op === '~' && !isFloatVector(n.operand.type as VectorT))
        ? null
        : `unary ${n.op} on a vector`;
    case 'cast':
      if (n.type.kind !== 'vector' && n.operand.type.kind !== 'vector') return undefined;
      if (n.type.kind !== 'vector') return 'a cast of a vector to a scalar';
      return check(() => vecCast(scratch, n.type as VectorT, n.operand));
    case 'index':
      if (n.base.type.kind !== 'vector') return undefined;
      return laneBase(n.base) ? null : 'a lane subscript of a vector value';
    case 'addr':
      return isLaneAccess(n.target) ? 'the address of a vector lane' : undefined;
    case 'assign':
    case 'incdec':
      if (n.target.type.kind !== 'vector') return undefined;
      return n.kind === 'assign' && n.op === '=' ? undefined : `${n.kind === 'assign' ? n.op : n.op} on a vector`;
    default:
      return undefined;
  }
}

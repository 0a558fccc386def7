import type { BinaryOp } from '../c/ops.js';
import type { FloatType, IntType } from '../c/types.js';
import { sameAccess, type Expr, type InitList, type Stmt } from '../ir/nodes.js';
import { arrayOf, sameType, unqualified, type RecordT, type Type, type VectorT } from '../ir/types.js';
import {
  intLane,
  isFloatVector,
  maskType,
  unsignedVector,
  VECTOR_BYTES,
  vecBinary,
  vecCast,
  vecConvert,
  vecLanes,
  vecShuffle,
  vecShuffleVector,
  vectorBytes,
  vectorOf,
  vecUnary,
} from '../ir/vector.js';
import type { Rng } from '../random/rng.js';
import { pickLvalue } from './access.js';
import type { GenContext } from './context.js';
import { genFloat, genInt } from './expr.js';
import { callFunction } from './func.js';
import { constant } from './types.js';

/**
 * GNU vectors in generated programs (policy `features.vectors`, csmith mode): a program that uses
 * them has a small pool of vector types, drawn once, so that operations find operands of their
 * type; variables, fields and elements take those types, assignments store whole vectors computed
 * by element-wise operators and builtins, and scalar code reads and writes lanes through access
 * paths (`v[i]`, like an array element, never by address). Lane-wise UB is the interpreter's, and
 * repair rewrites such an operator in its unsigned form (src/repair/rules/vector.ts).
 */

/** Weights of the vector sizes in bytes: 16 (SSE) most, 64 (AVX-512) least. */
const SIZE_WEIGHTS: Readonly<Record<(typeof VECTOR_BYTES)[number], number>> = { 4: 1, 8: 2, 16: 4, 32: 2, 64: 1 };

/**
 * Decides, from a stream of its own (so the program's other draws are untouched), whether this
 * program uses vectors, and draws its vector types: one or two sizes, one to three lane types
 * each (x86_64 only: the alignment and ABI of vectors are the target's).
 */
export function enableVectors(g: GenContext, rng: Rng): void {
  const p = g.policy;
  if (!p.features.vectors || p.target !== 'x86_64' || p.choices.vectorShare <= 0) return;
  if (!rng.chance(p.choices.vectorPrograms)) return;
  const types: VectorT[] = [];
  const sizes = rng.shuffle([...VECTOR_BYTES]).slice(0, rng.int(1, 2));
  // Floating lanes only with `features.floats` (programs without floats draw exactly as before).
  const floats: (IntType | FloatType)[] = p.features.floats ? [g.types.float, g.types.double] : [];
  for (const bytes of sizes.length ? sizes : [16]) {
    const lanes = [...g.intTypes, ...floats].filter((t) => t.bits <= bytes * 4);
    for (const of of rng.shuffle(lanes).slice(0, rng.int(1, 3))) types.push(vectorOf(of, (bytes * 8) / of.bits));
  }
  // A size by its weight: re-draw the pool's order so that common sizes come first.
  types.sort((a, b) => SIZE_WEIGHTS[vectorBytes(b) as 16] - SIZE_WEIGHTS[vectorBytes(a) as 16]);
  if (types.length) g.vectorTypes = types;
}

/** A vector type of the program's pool, or undefined in a program without vectors. */
function poolVectorType(g: GenContext): VectorT | undefined {
  const pool = g.vectorTypes;
  return pool && g.rng.pick(pool);
}

/**
 * Draws whether a new variable, field or element gets a vector type (`choices.vectorShare`); no
 * draw at all in a program without vectors.
 */
export function maybeVectorType(g: GenContext): VectorT | undefined {
  if (!g.vectorTypes || !g.rng.chance(g.policy.choices.vectorShare)) return undefined;
  return poolVectorType(g);
}

/**
 * Whether an object of type `t` may be passed by value without gcc's `-Wpsabi` diagnostics: no
 * vector wider than 16 bytes in it (without AVX, passing one changes the ABI, and gcc says so).
 */
export function passableByValue(t: Type): boolean {
  switch (t.kind) {
    case 'vector':
      return vectorBytes(t) <= 16;
    case 'array':
      return passableByValue(t.of);
    case 'struct':
    case 'union':
      return t.fields.every((f) => passableByValue(f.type));
    default:
      return true;
  }
}

/**
 * A vector type for a parameter (at most 16 bytes), drawn by `choices.vectorShare`; none in a
 * program without vectors.
 */
export function vectorParamType(g: GenContext): VectorT | undefined {
  const small = g.vectorTypes?.filter((t) => vectorBytes(t) <= 16);
  if (!small?.length || !g.rng.chance(g.policy.choices.vectorShare)) return undefined;
  return g.rng.pick(small);
}

/**
 * In half of the programs with vectors, a union punning one of their vector types with an array
 * of its lanes (`union { vec_i32x4 f0; int32_t f1[4]; }`, members in either order): stores
 * through one member and reads through the other are defined, and the compilers must agree on
 * where each lane is.
 */
export function punUnion(g: GenContext): RecordT | undefined {
  if (!g.vectorTypes || !g.rng.chance(0.5)) return undefined;
  const t = poolVectorType(g)!;
  const types: Type[] = [t, arrayOf(t.of, t.lanes)];
  if (g.rng.chance(0.5)) types.reverse();
  return g.b.union(
    g.name('U'),
    types.map((type, i) => ({ name: `f${i}`, type })),
  );
}

/** A constant of a lane type: as a scalar variable of the type is initialised. */
function laneConstant(g: GenContext, lane: IntType | FloatType): Expr {
  return lane.kind === 'float' ? g.b.lit(g.rng.int(-100, 100), lane) : constant(g, lane);
}

/** `{c0, c1, …}`: constants from a pool of one to three values, as array initialisers are. */
export function vectorInitialiser(g: GenContext, t: VectorT): InitList {
  const pool = Array.from({ length: g.rng.int(1, 3) }, () => laneConstant(g, t.of));
  return g.b.list(Array.from({ length: t.lanes }, () => g.b.copy(g.rng.pick(pool))));
}

/** `v = e;` with `v` a vector object and `e` a vector expression of its type, or undefined. */
export function vectorAssignment(g: GenContext): Stmt | undefined {
  const t = poolVectorType(g);
  if (!t) return undefined;
  const lv = pickLvalue(g, { type: t, writable: true });
  if (lv?.type.kind !== 'vector') return undefined;
  // `v = v` is clang's -Wself-assign (a leaf value drawn at the top, or a builtin's fallback).
  for (let i = 0; i < 3; i++) {
    const value = genVector(g, t);
    if (!sameAccess(lv, value)) return g.b.stmt(g.b.assign(lv, value));
  }
  return undefined;
}

type VecKind =
  | 'leaf'
  | 'binary'
  | 'broadcast'
  | 'unary'
  | 'compare'
  | 'cast'
  | 'convertvector'
  | 'shufflevector'
  | 'shuffle';

/** A vector expression of type `t`: a tree of element-wise operators and builtins over vector objects and constants. */
export function genVector(g: GenContext, t: VectorT, depth = 0): Expr {
  const { rng } = g;
  const w = g.policy.choices.vectorBuiltins;
  const inner = depth < 3;
  // Floating lanes: no comparison or reinterpreting cast gives them (masks and bits are integers).
  const int = !isFloatVector(t);
  const kind = rng.weighted<VecKind>([
    ['leaf', depth === 0 ? 1 : 3 + depth * 2],
    ['binary', inner ? 5 : 0],
    ['broadcast', inner ? 1.5 : 0],
    ['unary', inner ? 0.7 : 0],
    ['compare', inner && int ? 1 : 0],
    ['cast', inner && int ? 0.6 : 0],
    ['convertvector', inner ? w.convertvector : 0],
    ['shufflevector', inner ? w.shufflevector : 0],
    ['shuffle', inner ? w.shuffle : 0],
  ]);
  const b = g.b;
  switch (kind) {
    case 'leaf':
      return vectorLeaf(g, t);
    case 'binary': {
      const op = vectorOp(g, int);
      const right = op === '<<' || op === '>>' ? shiftCounts(g, t, depth) : genVector(g, t, depth + 1);
      return vecBinary(b, op, notConstant(g, t, genVector(g, t, depth + 1), right), right);
    }
    case 'broadcast': {
      const op = vectorOp(g, int);
      const scalar = op === '<<' || op === '>>' ? countConstant(g, intLane(t)) : laneScalar(g, t.of);
      return vecBinary(b, op, notConstant(g, t, genVector(g, t, depth + 1), scalar), scalar);
    }
    case 'unary':
      return vecUnary(b, !int || rng.chance(0.5) ? '-' : '~', notConstant(g, t, genVector(g, t, depth + 1)));
    case 'compare': {
      // Operands of the same lane width and count, signed or not, or floating lanes of the width
      // of `t`'s when it is a mask type; the mask read as `t`.
      const lane = intLane(t);
      const floating = floatTwin(g, t);
      const u =
        floating && rng.chance(0.5) ? floating : rng.chance(0.5) ? t : lane.signed ? unsignedVector(t) : maskType(t);
      const op = rng.pick(['<', '>', '<=', '>=', '==', '!='] as const);
      const cmp = vecBinary(b, op, genVector(g, u, depth + 1), genVector(g, u, depth + 1));
      return cmp.type.kind === 'vector' && sameVector(cmp.type, t) ? cmp : vecCast(b, t, cmp);
    }
    case 'cast': {
      const from = sizedLike(g, t, (u) => vectorBytes(u) === vectorBytes(t) && !sameVector(u, t));
      return from ? vecCast(b, t, genVector(g, from, depth + 1)) : vectorLeaf(g, t);
    }
    case 'convertvector': {
      const from = sizedLike(g, t, (u) => u.lanes === t.lanes && !sameVector(u, t) && exactConversion(u.of, t.of));
      return from ? vecConvert(b, t, genVector(g, from, depth + 1)) : vectorLeaf(g, t);
    }
    case 'shufflevector': {
      const from = sizedLike(g, t, (u) => sameLaneKind(u.of, t.of));
      if (!from) return vectorLeaf(g, t);
      const indices = Array.from({ length: t.lanes }, () => rng.int(0, 2 * from.lanes - 1));
      return vecShuffleVector(b, genVector(g, from, depth + 1), genVector(g, from, depth + 1), indices);
    }
    case 'shuffle': {
      const two = rng.chance(0.5);
      const operands = [genVector(g, t, depth + 1), ...(two ? [genVector(g, t, depth + 1)] : [])];
      const mt = rng.chance(0.5) ? unsignedVector(maskType(t)) : maskType(t);
      return vecShuffle(b, operands, genVector(g, mt, depth + 1));
    }
  }
}

/**
 * `left`, or a vector object in its place when it and `right` are constants: clang folds an
 * operation on constant lanes and warns when a lane overflows (-Winteger-overflow), which in code
 * that never runs no repair sees (8-bit lanes overflow at small values).
 */
function notConstant(g: GenContext, t: VectorT, left: Expr, right?: Expr): Expr {
  if (!isConstant(left) || (right && !isConstant(right))) return left;
  const v = pickLvalue(g, { type: t });
  return v?.type.kind === 'vector' ? v : left;
}

/** Whether an operand is a constant: a literal, or a lane list of them. */
function isConstant(e: Expr): boolean {
  if (e.kind === 'const') return true;
  return e.kind === 'vec' && e.op === 'lanes' && e.args.every((a) => a.kind === 'const');
}

/** Whether two lane types are the same type. */
function sameLaneKind(a: IntType | FloatType, b: IntType | FloatType): boolean {
  if (a.kind === 'float' || b.kind === 'float') return a.kind === b.kind && a.bits === b.bits;
  return a.bits === b.bits && a.signed === b.signed;
}

/** Whether two vector types are the same type. */
function sameVector(a: VectorT, b: VectorT): boolean {
  return a.lanes === b.lanes && sameLaneKind(a.of, b.of);
}

/**
 * Whether converting every value of lane type `from` to `to` is exact and defined under Kiln's
 * rule for floating values (integers of at most 2^24 in magnitude for float, 2^53 for double):
 * integers of up to 16 bits to float and 32 to double, float to double, floating values to signed
 * integers that hold them (32 bits from float, 64 from double). The other directions would mostly
 * be repaired to vectors of zeros, and `__builtin_convertvector` between integer lanes is always
 * defined.
 */
function exactConversion(from: IntType | FloatType, to: IntType | FloatType): boolean {
  if (from.kind === 'int' && to.kind === 'int') return true;
  if (to.kind === 'float') return from.kind === 'int' ? from.bits <= (to.bits === 32 ? 16 : 32) : from.bits <= to.bits;
  return to.signed && to.bits >= (from.bits === 32 ? 32 : 64);
}

/**
 * A pool type, or a twin of `t`, that `ok` accepts, or undefined. Twins: the signed or unsigned
 * twin of integer lanes; with `features.floats`, the floating type of 32- or 64-bit signed lanes
 * (whose comparisons give `t`), and the integer type floating lanes convert from exactly.
 */
function sizedLike(g: GenContext, t: VectorT, ok: (u: VectorT) => boolean): VectorT | undefined {
  const twins = isFloatVector(t) ? [] : [intLane(t).signed ? unsignedVector(t) : maskType(t)];
  const floating = floatTwin(g, t);
  if (floating) twins.push(floating);
  if (isFloatVector(t)) twins.push(vectorOf(t.of.bits === 32 ? g.types.int16 : g.types.int32, t.lanes));
  const candidates = [...(g.vectorTypes ?? []), ...twins].filter(ok);
  return candidates.length ? g.rng.pick(candidates) : undefined;
}

/**
 * With `features.floats`, the vector of floating lanes whose comparisons give mask type `t`
 * (float for 32-bit signed lanes, double for 64-bit), or undefined.
 */
function floatTwin(g: GenContext, t: VectorT): VectorT | undefined {
  if (!g.policy.features.floats || t.of.kind !== 'int' || !t.of.signed) return undefined;
  if (t.of.bits === 32) return vectorOf(g.types.float, t.lanes);
  return t.of.bits === 64 ? vectorOf(g.types.double, t.lanes) : undefined;
}

/**
 * A binary element-wise operator, by the program's operator weights (division only with
 * `features.divs`); `+ - * /` alone on floating lanes (`int` false).
 */
function vectorOp(g: GenContext, int = true): Exclude<BinaryOp, '&&' | '||' | '<' | '>' | '<=' | '>=' | '==' | '!='> {
  const w = g.policy.operators;
  const f = g.policy.features;
  const i = int ? 1 : 0;
  return g.rng.weighted([
    ['+', w['+']],
    ['-', w['-']],
    ['*', f.muls ? w['*'] : 0],
    ['/', f.divs ? w['/'] : 0],
    ['%', f.divs ? w['%'] * i : 0],
    ['&', w['&'] * i],
    ['|', w['|'] * i],
    ['^', w['^'] * i],
    ['<<', w['<<'] * i],
    ['>>', w['>>'] * i],
  ]);
}

/** Shift counts: mostly constants below the lane width, sometimes any vector (repair masks it). */
function shiftCounts(g: GenContext, t: VectorT, depth: number): Expr {
  if (g.rng.chance(0.3)) return genVector(g, t, depth + 1);
  const lane = intLane(t);
  return vecLanes(
    g.b,
    t,
    Array.from({ length: t.lanes }, () => countConstant(g, lane)),
  );
}

function countConstant(g: GenContext, lane: IntType): Expr {
  return g.b.lit(g.rng.int(0, lane.bits - 1), lane);
}

/** A scalar of exactly the lane type for a broadcast: a constant or a small expression, cast. */
function laneScalar(g: GenContext, lane: IntType | FloatType): Expr {
  if (g.rng.chance(0.4)) return laneConstant(g, lane);
  const saved = g.complexity;
  g.complexity = Math.min(saved, 2);
  const e = lane.kind === 'float' ? genFloat(g, lane) : genInt(g, lane);
  g.complexity = saved;
  return sameType(unqualified(e.type), lane) ? e : g.b.cast(lane, e);
}

/** A vector object of type `t` (sometimes a new one), a vector constant, or a scalar object read into every lane. */
function vectorLeaf(g: GenContext, t: VectorT): Expr {
  const { rng, b } = g;
  const r = rng.float();
  if (r < 0.1 && vectorBytes(t) <= 16 && g.policy.choices.userCall > 0) {
    // A call of a function returning the vector (vectors wider than 16 bytes are not passed: -Wpsabi).
    const c = callFunction(g, t);
    if (c) return c;
  }
  if (r < 0.6) {
    const v = pickLvalue(g, { type: t });
    if (v?.type.kind === 'vector') return v;
  }
  if (r < 0.85 || t.lanes > 16) {
    const pool = Array.from({ length: rng.int(1, 3) }, () => laneConstant(g, t.of));
    return vecLanes(
      b,
      t,
      Array.from({ length: t.lanes }, () => b.copy(rng.pick(pool))),
    );
  }
  // A side-effect-free read (no volatile object, whose reads are side effects) in every lane.
  const x = pickLvalue(g, { type: t.of, noVolatile: true });
  if (!x || x.type.kind !== t.of.kind) return vectorLeaf(g, t);
  return vecLanes(
    b,
    t,
    Array.from({ length: t.lanes }, (_, i) => (i === 0 ? x : b.copy(x))),
  );
}

import { bitIntField, intMax, intMin, type IntType } from '../c/types.js';
import type { Expr, Init } from '../ir/nodes.js';
import {
  arrayOf,
  namedFields,
  pointerTo,
  qualify,
  unqualified,
  type Field,
  type RecordT,
  type Type,
} from '../ir/types.js';
import type { GenContext } from './context.js';
import { maybeVectorType, punUnion, vectorInitialiser } from './gnu-vector.js';

/**
 * Types and constants: struct/union definitions, the types of new variables, and constant
 * values (biased to the boundary values Csmith's case studies credit, §6.5.1).
 */

/** Creates the program's struct and union types up front (each may nest earlier ones). */
export function genRecords(g: GenContext): void {
  const { rng, policy } = g;
  const f = policy.features;
  if (!f.structs && !f.unions) return;
  const n = rng.int(0, policy.limits.maxRecords);
  for (let i = 0; i < n; i++) {
    const isUnion = f.unions && (!f.structs || rng.chance(0.3));
    g.records.push(isUnion ? genUnion(g) : genStruct(g));
  }
  const pun = f.unions ? punUnion(g) : undefined;
  if (pun) g.records.push(pun);
}

function fieldType(g: GenContext, allowRecord: boolean): Type {
  const { rng } = g;
  const vector = maybeVectorType(g);
  if (vector) return vector;
  const earlier = g.records.filter((r) => r.kind === 'struct' || g.policy.features.unions);
  if (allowRecord && earlier.length && rng.chance(0.15)) return rng.pick(earlier);
  if (g.policy.features.pointers && rng.chance(0.08)) return pointerType(g);
  if (g.policy.features.arrays && rng.chance(0.08))
    return arrayOf(g.intType(), rng.int(2, Math.max(2, Math.min(5, g.policy.limits.maxArrayLen))));
  return g.intType();
}

function genStruct(g: GenContext): RecordT {
  const { rng, policy } = g;
  const fields: Field[] = [];
  const n = rng.int(1, Math.max(1, policy.limits.maxStructFields));
  const bitfields = policy.features.bitfields && rng.chance(0.5);
  for (let i = 0; i < n; i++) {
    const name = `f${fields.filter((x) => x.bits !== 0).length}`;
    if (bitfields && rng.chance(policy.choices.bitfieldShare)) {
      if (rng.chance(0.1)) {
        fields.push({ name: '', type: g.types.uint, bits: 0 });
        continue;
      }
      if (g.wide.bitInt && rng.chance(g.policy.choices.bitIntShare)) {
        // A bit-field of bit-precise type: any width up to its type's.
        const t = g.bitIntType();
        fields.push({ name, type: qualifyField(g, t), bits: rng.int(t.signed ? 2 : 1, t.bits) });
        continue;
      }
      const signed = rng.chance(0.5);
      fields.push({ name, type: qualifyField(g, signed ? g.types.int : g.types.uint), bits: rng.int(1, 32) });
      continue;
    }
    fields.push({ name, type: qualifyField(g, fieldType(g, true)) });
  }
  if (fields.every((x) => x.bits === 0)) fields.push({ name: 'f0', type: g.intType() });
  const packed = policy.features.packedStructs && rng.chance(policy.choices.packedShare);
  return g.b.struct(g.name('S'), fields, packed);
}

function genUnion(g: GenContext): RecordT {
  const { rng, policy } = g;
  const fields: Field[] = [];
  const n = rng.int(1, Math.max(1, policy.limits.maxUnionFields));
  for (let i = 0; i < n; i++) fields.push({ name: `f${i}`, type: fieldType(g, true) });
  return g.b.union(g.name('U'), fields);
}

function qualifyField(g: GenContext, t: Type): Type {
  const { rng, policy } = g;
  // Const fields make whole-struct assignment impossible, so keep them rare.
  const c = policy.features.const && t.kind === 'int' && rng.chance(0.03);
  const v = policy.features.volatile && t.kind === 'int' && rng.chance(0.05);
  return c || v ? qualify(t, { const: c, volatile: v }) : t;
}

/** A type for a new variable: integer, array, record or pointer, per the policy's shares. */
export function newVarType(g: GenContext, scope: 'global' | 'local'): Type {
  const { rng, policy } = g;
  const ch = policy.choices;
  const f = policy.features;
  let t: Type = g.intType();
  const r = rng.float();
  if (f.pointers && r < ch.pointerShare) t = pointerType(g);
  else if (g.records.length && r < ch.pointerShare + ch.recordShare) t = rng.pick(g.records);
  // Draws only with floats enabled, so programs without them are unchanged.
  else if (f.floats && rng.chance(ch.floatShare)) t = rng.pick([g.types.float, g.types.double]);
  if (t.kind === 'int') t = maybeVectorType(g) ?? t;
  if (f.arrays && t.kind !== 'ptr' && rng.chance(ch.arrayShare)) t = arrayType(g, t);
  if (scope === 'global' && t.kind === 'int') {
    const c = f.const && rng.chance(ch.constShare);
    const v = f.volatile && rng.chance(ch.volatileShare);
    if (c || v) t = qualify(t, { const: c, volatile: v });
  }
  return t;
}

/** An array of `elem` with 1…maxArrayDims dimensions (small dimensions favoured). */
function arrayType(g: GenContext, elem: Type): Type {
  const { rng, policy } = g;
  const dims = rng.int(1, Math.max(1, Math.min(policy.limits.maxArrayDims, rng.chance(0.7) ? 1 : 3)));
  let t = elem;
  for (let i = 0; i < dims; i++) t = arrayOf(t, rng.int(1, Math.max(1, policy.limits.maxArrayLen)));
  return t;
}

/** A pointer type up to the policy's depth, to an integer or a record. */
export function pointerType(g: GenContext): Type {
  const { rng, policy } = g;
  let base: Type = g.records.length && rng.chance(0.25) ? rng.pick(g.records) : g.intType();
  if (policy.features.const && rng.chance(policy.choices.constShare)) base = qualify(base, { const: true });
  if (policy.features.volatile && rng.chance(0.05)) base = qualify(base, { volatile: true });
  let t = pointerTo(base);
  const depth = rng.int(1, Math.max(1, policy.limits.maxPointerDepth));
  for (let i = 1; i < depth; i++) t = pointerTo(t);
  return t;
}

/** A constant of integer type `t`, biased to small magnitudes and boundary values. */
function constantValue(g: GenContext, t: IntType): bigint {
  const { rng } = g;
  const lo = intMin(t);
  const hi = intMax(t);
  const pol = g.policy.policies;
  let v: bigint;
  if (g.constBuffer.length && rng.chance(pol.reuseConstant)) {
    // YARPGen's constant buffer: an earlier constant, its negation or its complement.
    const c = rng.pick(g.constBuffer);
    v = rng.pick([c, -c, ~c]);
  } else if (rng.chance(pol.bitRunConstant)) {
    // A contiguous run of one bits, e.g. 0x00FF0000 or ~0 << k (instcombine mask patterns).
    const width = rng.int(1, t.bits);
    const shift = rng.int(0, t.bits - width);
    v = ((1n << BigInt(width)) - 1n) << BigInt(shift);
    if (t.signed && v > hi) v = BigInt.asIntN(t.bits, v);
  } else if (rng.chance(g.policy.choices.specialConstant)) {
    v = rng.pick([
      0n,
      1n,
      -1n,
      2n,
      lo,
      hi,
      lo + 1n,
      hi - 1n,
      1n << BigInt(rng.int(0, t.bits - 1)),
      (1n << BigInt(rng.int(1, Math.max(1, t.bits - 1)))) - 1n,
    ]);
  } else {
    switch (rng.int(0, 3)) {
      case 0:
        v = rng.bigint(-16n, 16n);
        break;
      case 1:
        v = rng.bigint(-1000n, 1000n);
        break;
      default:
        v = rng.bigint(lo, hi);
    }
  }
  if (v < lo) v = t.signed ? v : -v;
  v = v < lo ? lo : v > hi ? hi : v;
  if (pol.reuseConstant > 0) {
    g.constBuffer.push(v);
    if (g.constBuffer.length > 16) g.constBuffer.shift();
  }
  return v;
}

/** A constant expression of integer type `t`. */
export function constant(g: GenContext, t: IntType): Expr {
  return g.b.lit(constantValue(g, unqualified(t)), unqualified(t));
}

/**
 * An initialiser for a variable of type `t`: constants for scalars, `&x` or NULL for pointers
 * (with `addressable` supplying a matching object), nested lists for aggregates.
 */
export function initialiser(g: GenContext, t: Type, addressable: (pointee: Type) => Expr | undefined): Init {
  const { b, rng } = g;
  switch (t.kind) {
    case 'int':
      return constant(g, t);
    case 'float':
      return b.lit(rng.int(-100, 100), t);
    case 'ptr': {
      const target = rng.chance(0.95) ? addressable(t.to) : undefined;
      return target ?? b.nullptr(unqualified(t));
    }
    case 'array': {
      // Csmith's array initialisers draw every element from a few values (`{1UL,0x6C1AL,1UL,
      // 65535UL,…}`, `{&g_87,&g_87,…}`): a pool of one to four initialisers of the element type,
      // copied into the positions of all dimensions. Repeated values are patterns optimisers act
      // on, and generation no longer pays for thousands of distinct constants per array.
      let elem: Type = t;
      let count = 1;
      while (elem.kind === 'array') {
        count *= elem.length;
        elem = elem.of;
      }
      const pool = Array.from({ length: rng.int(1, Math.min(4, count)) }, () => initialiser(g, elem, addressable));
      const fill = (at: Type): Init =>
        at.kind === 'array'
          ? b.list(Array.from({ length: at.length }, () => fill(at.of)))
          : copyInit(g, rng.pick(pool));
      return fill(t);
    }
    case 'struct':
      return b.list(
        namedFields(t).map(({ field, index }) => {
          if (field.bits !== undefined) return bitfieldConstant(g, field);
          return initialiser(g, t.fields[index]!.type, addressable);
        }),
      );
    case 'union':
      return b.list([initialiser(g, t.fields[0]!.type, addressable)]);
    case 'vector':
      return vectorInitialiser(g, t);
    default:
      throw new Error(`no initialiser for ${t.kind}`);
  }
}

/** A copy of an initialiser with fresh node ids (IR nodes are never shared). */
function copyInit(g: GenContext, init: Init): Init {
  // Constants are most elements: copy them field by field (a spread per node is much slower).
  if (init.kind === 'const') return { kind: 'const', id: g.b.id(), type: init.type, value: init.value };
  if (init.kind === 'init-list') {
    const items = init.items.map((i) => copyInit(g, i));
    return { kind: 'init-list', id: g.b.id(), items };
  }
  return g.b.copy(init);
}

/**
 * A constant whose value the bit-field holds. Under 8 bits, the smallest exact type is wider than
 * the field: its value is wrapped to the field's width, as the conversion would. An initialiser
 * that does not fit draws gcc's -Woverflow, which quotes the whole source line: on an array of
 * structs initialised on one 231 KB line (seed 14, medium), 1,188 such warnings made 390 MB of
 * diagnostics and a 50 s compile at -O0, which a campaign took for a compiler hang.
 */
function bitfieldConstant(g: GenContext, f: Field): Expr {
  const t = bitfieldInitType(g, f);
  const c = constant(g, t);
  const w = f.bits!;
  if (t.bitPrecise || w >= 8 || c.kind !== 'const') return c;
  const v = t.signed ? BigInt.asIntN(w, c.value as bigint) : BigInt.asUintN(w, c.value as bigint);
  return g.b.lit(v, t);
}

function bitfieldInitType(g: GenContext, f: Field): IntType {
  const base = f.type as IntType;
  // A constant of the field's own width-restricted type: its value fits the field.
  if (base.bitPrecise) return bitIntField(unqualified(base), f.bits!);
  // A constant that fits the bit-field's width: use the smallest exact type of that width.
  const w = f.bits!;
  if (w <= 7) return base.signed ? g.types.int8 : g.types.uint8;
  if (w <= 15) return base.signed ? g.types.int8 : g.types.uint8;
  return base.signed ? g.types.int16 : g.types.uint16;
}

/** A bound on constant shift counts of `left`: 32, or N for a `_BitInt(N)` operand (never promoted). */
export function shiftLimit(left: Expr): number {
  const t = unqualified(left.type);
  return t.kind === 'int' && t.bitPrecise ? Math.min(32, t.declBits ?? t.bits) : 32;
}

import { declaredType } from '../c/types.js';
import { fieldExprType, isBitfieldAccess } from '../ir/build.js';
import type { Expr, VarDecl } from '../ir/nodes.js';
import { isRecord, namedFields, qualifyMember, sameType, unqualified, type Type } from '../ir/types.js';
import { isPunUnion } from '../ir/vector.js';
import type { GenContext } from './context.js';
import { constant, initialiser, newVarType, pointerType } from './types.js';

/**
 * Access paths: every way to reach an object from a variable (`v`, `v.f`, `a[i][j]`, `*p`,
 * `p->f`), so the generator can pick "a variable of type T" the way Csmith does (§1.4:
 * variable = `v`, `v.f`, `*…*v`, `&v`).
 */

type Step =
  | { readonly k: 'field'; readonly index: number; readonly union: boolean }
  | { readonly k: 'index'; readonly len: number }
  | { readonly k: 'deref' };

interface Path {
  readonly steps: readonly Step[];
  readonly type: Type;
  /** Passes through a packed struct member (taking its address would make a misaligned pointer). */
  readonly packed: boolean;
  /** Ends at a bit-field or a vector lane: no address may be taken. */
  readonly bitfield: boolean;
  /** Passes through a union member (see `addressablePaths`). */
  readonly inUnion: boolean;
  /**
   * Has a union member step, before or after a dereference (reads of it are checked against the member last stored).
   */
  readonly viaUnion: boolean;
}

/** Paths per type, one cache per deref bound (types are immutable, so paths never change). */
const pathCache = [0, 1, 2].map(() => new WeakMap<Type, readonly Path[]>());

/** Every access path from an object of type `t` (including the empty path), derefs bounded. */
function pathsOf(t: Type, derefs: number): readonly Path[] {
  const cache = pathCache[derefs];
  const cached = cache?.get(t);
  if (cached) return cached;
  const out: Path[] = [];
  const rec = (ty: Type, steps: Step[], packed: boolean, bitfield: boolean, d: number, inUnion = false): void => {
    out.push({ steps, type: ty, packed, bitfield, inUnion, viaUnion: steps.some((x) => x.k === 'field' && x.union) });
    if (out.length > 400) return; // very wide aggregates: enough choice already
    switch (ty.kind) {
      case 'array':
        rec(ty.of, [...steps, { k: 'index', len: ty.length }], packed, false, d, inUnion);
        return;
      case 'vector':
        // A lane has no address, as a bit-field has none: marked as one.
        rec(
          qualifyMember(ty.of, { const: !!ty.const, volatile: !!ty.volatile }),
          [...steps, { k: 'index', len: ty.lanes }],
          packed,
          true,
          d,
          inUnion,
        );
        return;
      case 'struct':
      case 'union':
        for (const { field, index } of namedFields(ty)) {
          const isPacked = packed || (ty.kind === 'struct' && !!ty.packed);
          rec(
            fieldExprType(ty, field),
            // A union punning vectors with arrays has no member to follow (src/ir/vector.ts).
            [...steps, { k: 'field', index, union: ty.kind === 'union' && !isPunUnion(ty) }],
            isPacked,
            field.bits !== undefined,
            d,
            inUnion || ty.kind === 'union',
          );
        }
        return;
      case 'ptr':
        if (d > 0 && ty.to.kind !== 'void') rec(ty.to, [...steps, { k: 'deref' }], false, false, d - 1);
        return;
      default:
        return;
    }
  };
  rec(t, [], false, false, derefs);
  cache?.set(t, out);
  return out;
}

/** What kind of object is wanted. */
export interface Want {
  /** Exactly this type (top-level qualifiers ignored). */
  readonly type?: Type;
  /** Any integer type. */
  readonly anyInt?: boolean;
  /** Any pointer type. */
  readonly pointer?: boolean;
  /** Will be assigned: not const, not an array, not a record with const members. */
  readonly writable?: boolean;
  /** Its address will be taken: no bit-fields, no packed members. */
  readonly addressable?: boolean;
  /** Exclude volatile objects (e.g. loop induction variables). */
  readonly noVolatile?: boolean;
  /**
   * Where a pointer value may point, so it cannot outlive its target once stored: -1 = globals
   * only (for globals, return values, and stores through pointers); d ≥ 0 = also parameters and
   * locals of blocks at depth ≤ d (for a local pointer declared at depth d). Applies to reads of
   * pointer variables and to `&x`.
   */
  readonly scopeLimit?: number;
}

/**
 * The paths of `pathsOf(t, derefs)` that match `want` (`matches` depends on nothing else but
 * `want`'s scope limit, which it ignores). Memoised: the generator asks for the same kinds of
 * object of the same variables thousands of times per program.
 */
function matchingPaths(t: Type, derefs: number, want: Want): readonly Path[] {
  const all = pathsOf(t, derefs);
  let byFlags = matchCache.get(all);
  if (!byFlags) matchCache.set(all, (byFlags = new Map()));
  const flags =
    (want.anyInt ? 1 : 0) |
    (want.pointer ? 2 : 0) |
    (want.writable ? 4 : 0) |
    (want.addressable ? 8 : 0) |
    (want.noVolatile ? 16 : 0);
  let byType = byFlags.get(flags);
  if (!byType) byFlags.set(flags, (byType = new Map()));
  const key = want.type ?? null;
  let paths = byType.get(key);
  if (!paths) byType.set(key, (paths = all.filter((p) => matches(p, want))));
  return paths;
}
const matchCache = new WeakMap<readonly Path[], Map<number, Map<Type | null, readonly Path[]>>>();

/** Whether a variable may be used under a pointer scope limit. */
function withinScope(g: GenContext, v: VarDecl, limit: number | undefined): boolean {
  if (limit === undefined || v.storage === 'global') return true;
  if (limit < 0) return false;
  if (v.storage === 'param') return true;
  const depth = g.fn.blocks.findIndex((b) => b.locals.includes(v));
  return depth >= 0 && depth <= limit;
}

/**
 * The depth limit for pointers stored into lvalue `e`: its variable's block depth, or -1 for globals and stores through
 * pointers.
 */
export function scopeLimitOf(g: GenContext, e: Expr): number {
  let root: Expr = e;
  for (;;) {
    if (root.kind === 'field') root = root.base;
    else if (root.kind === 'index') root = root.base;
    else break;
  }
  if (root.kind !== 'var' || g.fnStack.length === 0) return -1;
  const decl = root.decl;
  if (g.fn.params.some((p) => p.id === decl)) return 0;
  const depth = g.fn.blocks.findIndex((b) => b.locals.some((l) => l.id === decl));
  return depth;
}

/** Key of a union object reached by a path prefix, for the last-stored-member heuristic. */
function unionKey(v: VarDecl, steps: readonly Step[], upTo: number): string {
  return `${v.id}:${steps
    .slice(0, upTo)
    .map((s) => (s.k === 'field' ? `f${s.index}` : s.k === 'index' ? 'i' : 'd'))
    .join('.')}`;
}

/**
 * Reads follow the member last stored (as generated so far); Csmith tracks this with its union
 * analysis. Code added where the program runs (live-guided extension) reads no union member at
 * all: the member last stored at that point of the run is not what the generator saw last, and
 * each wrong guess was a repair and another run. On seeds 1-300 (medium), a quarter of the UB the
 * statement round's first run met was such reads; without them, 1.3% fewer runs per program.
 */
function unionReadOk(g: GenContext, v: VarDecl, p: Path): boolean {
  if (g.live && p.viaUnion) return false;
  for (let i = 0; i < p.steps.length; i++) {
    const s = p.steps[i]!;
    if (s.k === 'deref') return true; // through a pointer the union's state is unknown: allow
    if (s.k === 'field' && s.union && s.index !== (g.unionMembers.get(unionKey(v, p.steps, i)) ?? 0)) return false;
  }
  return true;
}

/**
 * Whether an lvalue goes through a union member (`u.f1`, `p->f0.x`): live-guided extension then
 * only stores to it, with a plain `=` (a compound assignment or `++` reads the member first).
 */
export function throughUnion(e: Expr): boolean {
  for (let x = e; ; ) {
    if (x.kind === 'field') {
      if (x.base.type.kind === 'union') return true;
      x = x.base;
    } else if (x.kind === 'index') x = x.base;
    else if (x.kind === 'deref') x = x.ptr;
    else return false;
  }
}

/** Whether a path reads a union member to dereference what it holds (`*u.f0`, `u.f1->x`). */
function unionBeforeDeref(p: Path): boolean {
  const u = p.steps.findIndex((s) => s.k === 'field' && s.union);
  return u >= 0 && p.steps.some((s, i) => i > u && s.k === 'deref');
}

function noteUnionWrite(g: GenContext, v: VarDecl, p: Path): void {
  for (let i = 0; i < p.steps.length; i++) {
    const s = p.steps[i]!;
    if (s.k === 'deref') return;
    if (s.k === 'field' && s.union) g.unionMembers.set(unionKey(v, p.steps, i), s.index);
  }
}

function matches(p: Path, w: Want): boolean {
  const t = p.type;
  if (t.kind === 'array' || t.kind === 'void') return false;
  if (w.type) {
    if (!sameType(unqualified(t), unqualified(w.type))) return false;
    // A pointer's pointee qualifiers are part of its type; `sameType` already compared them.
  } else if (w.anyInt && t.kind !== 'int') return false;
  else if (w.pointer && t.kind !== 'ptr') return false;
  if (w.writable && (t.const || hasConst(t))) return false;
  if (w.addressable && (p.packed || p.bitfield)) return false;
  if (w.noVolatile && t.volatile) return false;
  return true;
}

function readOnlyVar(g: GenContext, v: VarDecl, want: Want): boolean {
  return !!want.writable && g.readOnly.has(v.id);
}

function hasConst(t: Type): boolean {
  return isRecord(t) && t.fields.some((f) => f.type.const || hasConst(f.type));
}

/** Variables of the current function's scopes: globals, parameters, and locals of the open blocks. */
function scopeVars(g: GenContext, scope: 'global' | 'local' | 'param'): readonly VarDecl[] {
  if (scope === 'global') return g.globals;
  if (g.fnStack.length === 0) return [];
  if (scope === 'param') return g.fn.params;
  return g.fn.blocks.flatMap((b) => b.locals);
}

/** Builds the expression of a path from a variable (constant indices for address constants in initialisers). */
function materialise(g: GenContext, v: VarDecl, p: Path, constantIndices = false): Expr {
  let e = g.b.v(v);
  for (const s of p.steps) {
    if (s.k === 'field') e = g.b.fld(e, s.index);
    else if (s.k === 'deref') e = g.b.deref(e);
    else e = g.b.idx(e, constantIndices ? g.b.lit(g.rng.int(0, s.len - 1)) : indexExpr(g, s.len));
  }
  return e;
}

/**
 * An index for an array of `len` elements: an enclosing loop's induction variable when its range
 * fits (as Csmith's array-statements do), mostly a constant in range, sometimes any expression
 * (repair wraps it in `% len` if it ever goes out of bounds).
 */
function indexExpr(g: GenContext, len: number): Expr {
  const { rng, b } = g;
  const loops = g.fnStack.length ? g.fn.loops.filter((l) => l.decl !== undefined && l.lo >= 0 && l.hi < len) : [];
  if (loops.length && rng.chance(g.loopIndexBias ?? g.policy.choices.loopVarIndex)) return b.v(rng.pick(loops).decl!);
  if (g.complexity > 0 && rng.chance(0.1)) {
    g.complexity--;
    return b.v(pickIndexVar(g) ?? freshIndexLocal(g));
  }
  return b.lit(rng.int(0, len - 1));
}

function pickIndexVar(g: GenContext): VarDecl | undefined {
  const vars = [...scopeVars(g, 'local'), ...scopeVars(g, 'param'), ...g.globals].filter(
    (v) => v.type.kind === 'int' && !v.type.volatile,
  );
  return vars.length ? g.rng.pick(vars) : undefined;
}

function freshIndexLocal(g: GenContext): VarDecl {
  const t = g.intType();
  const d = g.b.local(g.name('l_'), t, constant(g, t));
  g.block.locals.push(d);
  return d;
}

/**
 * Picks an object matching `want`, choosing the scope with Csmith's weights (global 35, local 30,
 * parameter 30, new 5) and falling back to the other scopes, then to a new variable.
 */
export function pickLvalue(g: GenContext, want: Want): Expr | undefined {
  const { rng } = g;
  const w = g.policy.scopes;
  const order = rng.weighted<'global' | 'local' | 'param' | 'new'>([
    ['global', w.global],
    ['local', g.fnStack.length ? w.local : 0],
    ['param', g.fnStack.length ? w.param : 0],
    ['new', w.new],
  ]);
  const tryScope = (scope: 'global' | 'local' | 'param'): Expr | undefined => {
    const vars = scopeVars(g, scope);
    if (vars.length === 0) return undefined;
    const limited = want.scopeLimit !== undefined;
    // Start from a random variable and take the first with a matching path.
    const start = rng.int(0, vars.length - 1);
    for (let k = 0; k < vars.length; k++) {
      const v = vars[(start + k) % vars.length]!;
      if (!g.typeAllowed(v.type) || readOnlyVar(g, v, want) || !withinScope(g, v, want.scopeLimit)) continue;
      let paths = matchingPaths(v.type, limited ? 0 : 2, want);
      if (paths.length && want.writable && paths[0]!.steps.length === 0 && g.readOnly.has(v.id)) paths = paths.slice(1);
      if (paths.some((p) => p.viaUnion)) {
        if (!want.writable) paths = paths.filter((p) => unionReadOk(g, v, p));
        // A store through a pointer held in a union member (`*u.f0 = …`) reads the member first.
        else if (g.live) paths = paths.filter((p) => !unionBeforeDeref(p));
      }
      if (paths.length) {
        const p = rng.pick(paths);
        if (want.writable) noteUnionWrite(g, v, p);
        return materialise(g, v, p);
      }
    }
    return undefined;
  };
  if (order !== 'new') {
    const first = tryScope(order);
    if (first) return first;
    for (const s of rng.shuffle(['global', 'local', 'param'] as const)) {
      if (s === order) continue;
      const e = tryScope(s);
      if (e) return e;
    }
  }
  const v = newVariable(g, want);
  return v ? g.b.v(v) : undefined;
}

/** Declares a new initialised local of a random type in the current block. */
export function newLocal(g: GenContext): VarDecl | undefined {
  if (g.block.locals.length >= g.policy.limits.maxLocalsPerBlock) return undefined;
  const t = newVarType(g, 'local');
  const depth = g.fn.blocks.length - 1;
  const d = g.b.local(
    g.name('l_'),
    t,
    initialiser(g, t, (pointee) => addressOf(g, pointee, true, depth)),
  );
  g.block.locals.push(d);
  return d;
}

/** Creates a new variable (a local of the current block or a global) of the wanted type. */
export function newVariable(g: GenContext, want: Want): VarDecl | undefined {
  const { rng, b } = g;
  const asLocal = g.fnStack.length > 0 && (rng.chance(0.5) || !g.canAddGlobal());
  if (want.pointer && !g.policy.features.pointers) return undefined;
  let t: Type = want.type
    ? unqualified(want.type)
    : want.anyInt
      ? g.intType()
      : want.pointer
        ? pointerType(g)
        : newVarType(g, asLocal ? 'local' : 'global');
  if (want.writable && t.const) t = unqualified(t);
  // Never declare a width-restricted type.
  if (t.kind === 'int') t = declaredType(t, g.types);
  if (want.type && isRecord(t) && want.writable && hasConst(t)) return undefined;
  if (asLocal) {
    // A pointer local may point at objects of its own block or outer ones, never deeper ones.
    const depth = g.fn.blocks.length - 1;
    const addressable = (pointee: Type): Expr | undefined => addressOf(g, pointee, true, depth);
    // While extending (globals frozen), a local past the block's limit beats having no object at all.
    if (g.block.locals.length >= g.policy.limits.maxLocalsPerBlock && !g.globalsFrozen) {
      if (!g.canAddGlobal()) return undefined;
    } else {
      const d = b.local(g.name('l_'), t, initialiser(g, t, addressable));
      g.block.locals.push(d);
      return d;
    }
  }
  if (!g.canAddGlobal()) return undefined;
  return g.addGlobal(
    b.global(
      g.name('g_'),
      t,
      initialiser(g, t, (pointee) => addressOfGlobal(g, pointee)),
    ),
  );
}

/**
 * `&x` for some object of type `pointee` visible here (qualifiers of the pointee may only be
 * added, never dropped); creates a global target when none exists.
 */
export function addressOf(g: GenContext, pointee: Type, forInitialiser = false, scopeLimit?: number): Expr | undefined {
  const e =
    scopeLimit !== undefined && scopeLimit < 0
      ? undefined
      : pickAddressable(g, pointee, true, forInitialiser, scopeLimit);
  if (e) return e;
  return addressOfGlobal(g, pointee);
}

/** `&g` of a global of type `pointee`, creating it (before any user) when needed. */
function addressOfGlobal(g: GenContext, pointee: Type): Expr | undefined {
  const e = pickAddressable(g, pointee, false, true);
  if (e) return e;
  if (!g.canAddGlobal() || pointee.kind === 'void') return undefined;
  const t = unqualified(pointee);
  const d = g.addGlobal(
    g.b.global(
      g.name('g_'),
      t,
      initialiser(g, t, (pt) => (pt === pointee ? undefined : addressOfGlobal(g, pt))),
    ),
  );
  return g.b.addr(g.b.v(d));
}

function pickAddressable(
  g: GenContext,
  pointee: Type,
  includeLocals: boolean,
  constantIndices: boolean,
  scopeLimit?: number,
): Expr | undefined {
  const { rng } = g;
  const vars = g.globals.slice();
  if (includeLocals && g.fnStack.length) {
    for (const v of g.fn.params) if (withinScope(g, v, scopeLimit)) vars.push(v);
    for (const b of g.fn.blocks) for (const v of b.locals) if (withinScope(g, v, scopeLimit)) vars.push(v);
  }
  if (vars.length === 0) return undefined;
  const start = rng.int(0, vars.length - 1);
  for (let k = 0; k < vars.length; k++) {
    const v = vars[(start + k) % vars.length]!;
    if (!g.typeAllowed(v.type)) continue;
    // Without locals we may be building a global's initialiser: an address constant has no dereference.
    const paths = addressablePaths(v.type, includeLocals && scopeLimit === undefined ? 1 : 0, pointee);
    if (paths.length === 0) continue;
    const target = materialise(g, v, rng.pick(paths), constantIndices);
    if (isBitfieldAccess(target)) continue;
    return g.b.addr(target);
  }
  return undefined;
}

/**
 * Paths of an object of type `t` whose address converts to a pointer to `pointee` (memoised:
 * initialisers of pointer arrays ask once per element). Never inside a union: members of one
 * union overlap, and a store through `long long *` to one and through `uint64_t *` to another
 * are, to gcc's and clang's type-based alias analysis, two stores that cannot alias (C allows
 * type punning only through the union itself), so the optimiser may reorder them. The
 * interpreter, which tracks the member last stored, found such a program clean: clang 13-16 at
 * -O1 with ASan and UBSan then printed another checksum (LICM moved the stores).
 */
function addressablePaths(t: Type, derefs: number, pointee: Type): readonly Path[] {
  const cache = addressableCache[derefs]!;
  let byPointee = cache.get(t);
  if (!byPointee) cache.set(t, (byPointee = new WeakMap()));
  let paths = byPointee.get(pointee);
  if (!paths)
    byPointee.set(
      pointee,
      (paths = pathsOf(t, derefs).filter(
        (p) => p.type.kind !== 'array' && !p.packed && !p.bitfield && !p.inUnion && addressCompatible(p.type, pointee),
      )),
    );
  return paths;
}
const addressableCache = [0, 1].map(() => new WeakMap<Type, WeakMap<Type, readonly Path[]>>());

/** Whether `&x` (x of type `objType`) converts to a pointer to `pointee` (qualifiers only added). */
function addressCompatible(objType: Type, pointee: Type): boolean {
  if ((objType.const && !pointee.const) || (objType.volatile && !pointee.volatile)) return false;
  return sameType(unqualified(objType), unqualified(pointee));
}

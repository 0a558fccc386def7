import type { Block, Expr, FuncDecl, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { walk } from '../ir/visit.js';
import { namedFields, type Type } from '../ir/types.js';
import { Rng } from '../random/rng.js';
import { newVariable } from './access.js';
import { GenContext } from './context.js';
import { createFunction, returnType } from './func.js';
import { enableVectors } from './gnu-vector.js';
import type { Policy } from './policy.js';
import { drawSafeMathForm, programPolicy } from './shuffle.js';
import { genRecords } from './types.js';

/**
 * A whole program in Csmith's shape (§1.1): type definitions, globals, functions generated on
 * demand from `func_1`, and `main`, which calls `func_1` once and hashes every global scalar,
 * struct field and array element into the checksum it prints.
 *
 * The program is *not yet* UB-free: the repair loop (src/repair) executes it with the reference
 * interpreter and rewrites each site that would hit undefined behaviour.
 */
export function generateRaw(seed: number | bigint | string, basePolicy: Policy): Program {
  return generateRawContext(seed, basePolicy).program;
}

/**
 * {@link generateRaw}, also returning the generator's state, so live-guided generation can draw
 * more statements into the program later (src/gen/live.ts). With `live.extend` on, the raw
 * program gets only its share of the statement budget; the budget is restored for the extensions.
 */
export function generateRawContext(
  seed: number | bigint | string,
  basePolicy: Policy,
): { program: Program; g: GenContext } {
  // Seeded from the seed's decimal text, whatever its JavaScript type: `kiln gen --seed 3` (a
  // bigint) and a campaign's seed 3 (text, as stored) must draw the same program.
  const rng = Rng.seeded(String(seed));
  // Per-program distributions (YARPGen's shuffling) and switched-off features (swarm testing).
  const policy = programPolicy(basePolicy, rng);
  const g = new GenContext(rng, policy);
  g.enableWideTypes(Rng.seeded(`${String(seed)}:wide-types`));
  enableVectors(g, Rng.seeded(`${String(seed)}:vectors`));
  const extend = Math.min(1, Math.max(0, policy.live.extend));
  g.statementBudget = Math.round(policy.limits.maxStatements * (1 - extend));
  genRecords(g);
  const nGlobals = rng.int(
    policy.limits.minGlobals,
    Math.max(policy.limits.minGlobals, Math.min(policy.limits.maxGlobals, policy.limits.minGlobals * 2)),
  );
  for (let i = 0; i < nGlobals && g.canAddGlobal(); i++) newVariable(g, {});
  // The first function takes the name counter's first value: func_1, the root of generation.
  const func1 = createFunction(g, returnType(g), { noParams: true });
  const main = genMain(g, func1.sig);
  const funcs = g.funcs.map((f) => markRegisterLocals(g, f.decl!));
  const safeMath = drawSafeMathForm(rng, policy);
  const program = g.b.program({
    records: g.records,
    globals: g.globals,
    funcs: [...funcs, main],
    main,
    meta: { seed: String(seed), mode: 'csmith', safeMath },
  });
  g.statementBudget = policy.limits.maxStatements;
  return { program, g };
}

/** Declares some scalar locals `register`: only those whose address is never taken (C forbids it). */
export function markRegisterLocals(g: GenContext, f: FuncDecl): FuncDecl {
  const share = g.policy.choices.registerLocal;
  if (share <= 0) return f;
  const taken = new Set<number>();
  walk(f, (n) => {
    // Initialisers hold constants and addresses; only those of objects with pointers hold `&x`.
    if (n.kind === 'const' || (n.kind === 'var-decl' && !holdsPointers(n.type))) return false;
    if (n.kind !== 'addr') return;
    let t = n.target;
    while (t.kind === 'field' || t.kind === 'index') t = t.base;
    if (t.kind === 'var') taken.add(t.decl);
  });
  // Locals are declared only in blocks, so only statements need visiting; the order (a block's
  // locals, then its statements' nested blocks) is the bottom-up order of a whole-tree transform.
  const stmt = (n: Stmt): Stmt => {
    switch (n.kind) {
      case 'block':
        return block(n);
      case 'if': {
        const then = block(n.then);
        const els = n.else && block(n.else);
        return then === n.then && els === n.else ? n : { ...n, then, else: els };
      }
      case 'for': {
        const body = block(n.body);
        return body === n.body ? n : { ...n, body };
      }
      case 'switch': {
        const body = stmt(n.body);
        return body === n.body ? n : { ...n, body: body as Block };
      }
      default:
        return n;
    }
  };
  const block = (b: Block): Block => {
    let changed = false;
    const locals = b.locals.map((d) => {
      if (d.storage === 'local' && d.type.kind === 'int' && !taken.has(d.id) && g.rng.chance(share)) {
        changed = true;
        return { ...d, isRegister: true };
      }
      return d;
    });
    const stmts = b.stmts.map((s) => {
      const r = stmt(s);
      if (r !== s) changed = true;
      return r;
    });
    return changed ? { ...b, locals, stmts } : b;
  };
  const body = block(f.body);
  return body === f.body ? f : { ...f, body };
}

/** Whether an object of type `t` contains a pointer (memoised per type object). */
function holdsPointers(t: Type): boolean {
  let r = pointerCache.get(t);
  if (r === undefined) {
    switch (t.kind) {
      case 'ptr':
        r = true;
        break;
      case 'array':
        r = holdsPointers(t.of);
        break;
      case 'struct':
      case 'union':
        r = t.fields.some((f) => holdsPointers(f.type));
        break;
      default:
        r = false;
    }
    pointerCache.set(t, r);
  }
  return r;
}
const pointerCache = new WeakMap<Type, boolean>();

function genMain(g: GenContext, func1: { id: number; ret: Type; params: readonly { type: Type }[] }) {
  const { b } = g;
  const locals: VarDecl[] = [];
  const stmts: Stmt[] = [b.stmt(b.call(func1, []))];
  for (const v of g.globals) {
    const s = hashObject(g, b.v(v), locals, 0);
    if (s.length) stmts.push(b.block(s));
  }
  return b.func('main', g.types.int, [], b.block(stmts, locals), undefined, false);
}

/**
 * Statements adding every scalar inside an object to the checksum: arrays by loops (one index
 * local per nesting depth, shared), struct fields in order, a union through its first member
 * (repair switches to the member last stored if that differs), pointers skipped.
 */
function hashObject(g: GenContext, e: Expr, locals: VarDecl[], depth: number): Stmt[] {
  const { b } = g;
  const t = e.type;
  switch (t.kind) {
    case 'int':
    case 'float':
      return [b.hash(e)];
    case 'ptr':
    case 'void':
      return [];
    case 'array':
    case 'vector': {
      // A vector's lanes are hashed as an array's elements are, one by one.
      let idx = locals[depth];
      if (!idx) {
        idx = b.local(`i_${depth}`, g.types.int32);
        locals.push(idx);
      }
      const body = hashObject(g, b.idx(e, b.v(idx)), locals, depth + 1);
      if (body.length === 0) return [];
      return [
        b.for(
          b.assign(b.v(idx), b.lit(0)),
          b.bin('<', b.v(idx), b.lit(t.kind === 'array' ? t.length : t.lanes)),
          b.incdec('++', b.v(idx), false),
          b.block(body),
        ),
      ];
    }
    case 'struct':
      return namedFields(t).flatMap(({ index }) => hashObject(g, b.fld(clone(g, e), index), locals, depth));
    case 'union':
      return hashObject(g, b.fld(e, 0), locals, depth);
  }
}

/** A copy of an expression tree with fresh ids (IR nodes must not be shared). */
function clone(g: GenContext, e: Expr): Expr {
  const rec = (x: Expr): Expr => {
    switch (x.kind) {
      case 'var':
        return { ...x, id: g.b.id() };
      case 'index':
        return { ...x, id: g.b.id(), base: rec(x.base), index: rec(x.index) };
      case 'field':
        return { ...x, id: g.b.id(), base: rec(x.base) };
      case 'const':
        return { ...x, id: g.b.id() };
      default:
        throw new Error(`unexpected ${x.kind} in a checksum access path`);
    }
  };
  return rec(e);
}

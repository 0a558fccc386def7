import { intMax, intMin, promote, type CValue } from '../c/types.js';
import { fieldExprType, type IRBuilder } from '../ir/build.js';
import type { Expr, FuncDecl, Program, Stmt, VarDecl } from '../ir/nodes.js';
import type { IntT, Type } from '../ir/types.js';
import { walk } from '../ir/visit.js';
import { CompiledProgram, type Profile } from '../interp/interpret.js';
import { layoutOf } from '../interp/memory.js';
import type { Rng } from '../random/rng.js';

/**
 * The value profile EMI mutations read (Hermes §2.3): at sampled statements that ran, the set of
 * values each integer object in scope held just before, scalars, struct fields and array
 * elements by constant index alike. Observables name those objects as access paths the
 * mutations can print.
 */

/** One step of an access path: a constant array index or a struct field. */
type PathStep = { readonly index: number } | { readonly field: number };

/** An integer object in scope at a point: a variable and a constant access path to one of its cells. */
export interface Observable {
  readonly decl: VarDecl;
  readonly path: readonly PathStep[];
  /** The expression type of the access (a bit-field type for bit-fields). */
  readonly type: IntT;
  /** Assignable: no const on the way, and not a bit-field (TCB restores values, so its writes must be exact). */
  readonly writable: boolean;
  /** Values observed at the point (sorted, at most 64); empty where nothing was observed (dead code). */
  readonly values: readonly bigint[];
}

/** A statement at which snippets may go, with its function and the observables there. */
export interface Site {
  readonly stmt: number;
  readonly func: number;
  readonly env: readonly Observable[];
}

/** What mutations know of a base program: its profile, its sampled sites, and its declarations. */
export interface BaseProfile {
  readonly program: Program;
  readonly profile: Profile;
  readonly sites: readonly Site[];
  /** Every variable by declaration id. */
  readonly decls: ReadonlyMap<number, VarDecl>;
  /** Ids below this existed in the base (counts of newer nodes are unknown, not zero). */
  readonly baseNextId: number;
}

/** Hermes' sampling probability for profiled points. */
const PROFILE_PROBABILITY = 0.1;

/** Most observables kept per site (arrays can have many cells). */
const MAX_ENV = 48;
/** Elements per array dimension taken as observables. */
const MAX_ELEMENTS = 4;

/** Statements snippets may precede: in a block's list, not labels, not in `main` (the checksum harness). */
function candidateStatements(p: Program): { stmt: Stmt; func: FuncDecl }[] {
  const out: { stmt: Stmt; func: FuncDecl }[] = [];
  for (const f of p.funcs) {
    if (f.id === p.main) continue;
    walk(f.body, (n) => {
      if (n.kind !== 'block') return !isExprLike(n.kind);
      for (const s of n.stmts) if (s.kind !== 'case' && s.kind !== 'label') out.push({ stmt: s, func: f });
      return true;
    });
  }
  return out;
}

function isExprLike(kind: string): boolean {
  return kind === 'var-decl' || kind === 'init-list';
}

/**
 * Profiles a base program: samples points with `PROFILE_PROBABILITY` from `rng`, runs it once
 * recording values there, and builds the sites (only points that ran). Throws if the base
 * does not run cleanly (it was generated UB-free, so that is a Kiln bug).
 */
export function profileBase(p: Program, rng: Rng, probability = PROFILE_PROBABILITY): BaseProfile {
  const candidates = candidateStatements(p);
  const points = new Set<number>();
  const funcOf = new Map<number, number>();
  for (const c of candidates) {
    if (rng.chance(probability)) {
      points.add(c.stmt.id);
      funcOf.set(c.stmt.id, c.func.id);
    }
  }
  const run = CompiledProgram.compile(p, { profilePoints: points }).run();
  if (!run.ok) throw new Error(`EMI base program is not clean: ${run.ub.kind} at node ${run.ub.node}`);
  const decls = declarations(p);
  const sites: Site[] = [];
  for (const c of candidates) {
    const at = run.profile.points?.get(c.stmt.id);
    if (!at) continue;
    const env: Observable[] = [];
    for (const [decl, cells] of at) {
      const d = decls.get(decl);
      if (d) env.push(...observablesOf(d, cells));
    }
    sites.push({
      stmt: c.stmt.id,
      func: funcOf.get(c.stmt.id)!,
      env: env.length > MAX_ENV ? rng.shuffle(env).slice(0, MAX_ENV) : env,
    });
  }
  return { program: p, profile: run.profile, sites, decls, baseNextId: p.nextId };
}

/** Every variable of a program by id. */
function declarations(p: Program): Map<number, VarDecl> {
  const m = new Map<number, VarDecl>();
  for (const g of p.globals) m.set(g.id, g);
  for (const f of p.funcs)
    walk(f, (n) => {
      if (n.kind === 'var-decl') {
        m.set(n.id, n);
        return false;
      }
      return n.kind !== 'expr';
    });
  return m;
}

/**
 * The integer leaves of a variable with the values its cells held (`cells` undefined: values
 * unknown, as in dead code). Cells are numbered as the interpreter's memory model lays them
 * out (src/interp/memory.ts): fields and elements flattened in order, unions skipped whole
 * (reading an inactive member is undefined), volatile objects skipped (a read is an access).
 */
export function observablesOf(
  d: VarDecl,
  cells: readonly (ReadonlySet<CValue> | null | undefined)[] | undefined,
): Observable[] {
  const out: Observable[] = [];
  if (d.type.volatile) return out;
  let cell = 0;
  const rec = (t: Type, path: PathStep[], writable: boolean, bitfield: boolean): void => {
    if (t.volatile) {
      cell += layoutOf(t).size;
      return;
    }
    const w = writable && !t.const;
    switch (t.kind) {
      case 'int': {
        const set = cells?.[cell];
        cell++;
        if (cells && !set) return;
        const values = set ? [...set].map((v) => BigInt(v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : [];
        out.push({ decl: d, path: [...path], type: t, writable: w && !bitfield, values });
        return;
      }
      case 'array': {
        const n = Math.min(t.length, MAX_ELEMENTS);
        const elemConst = w;
        for (let i = 0; i < n; i++) rec(t.of, [...path, { index: i }], elemConst, false);
        cell += (t.length - n) * layoutOf(t.of).size;
        return;
      }
      case 'struct':
        t.fields.forEach((f, i) => {
          if (f.bits === 0) return;
          if (f.bits !== undefined) {
            const set = cells?.[cell];
            cell++;
            if (f.type.volatile || (cells && !set)) return;
            const ft = fieldExprType(t, f);
            if (ft.kind !== 'int') return;
            const values = set ? [...set].map((v) => BigInt(v)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) : [];
            out.push({ decl: d, path: [...path, { field: i }], type: ft, writable: false, values });
            return;
          }
          rec(f.type, [...path, { field: i }], w, false);
        });
        return;
      default:
        cell += layoutOf(t).size;
    }
  };
  rec(d.type, [], true, false);
  return out;
}

/** The observable's access expression, built fresh (new node ids). */
export function access(b: IRBuilder, o: Observable): Expr {
  let e = b.v(o.decl);
  for (const s of o.path) e = 'index' in s ? b.idx(e, b.lit(s.index)) : b.fld(e, s.field);
  return e;
}

/** The range of the observable's promoted type (where comparisons with it are made). */
export function promotedRange(o: Observable): { min: bigint; max: bigint; type: IntT } {
  const pt = promote(o.type) as IntT;
  return { min: intMin(pt), max: intMax(pt), type: pt };
}

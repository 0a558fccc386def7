// CsmithEdge's relaxations (its Table 1), as rewrites of a generated, UB-free program: each one
// undoes a restriction the generator keeps (a dereferenced pointer is never null, an index is in
// bounds, a local is initialised, …) at a share of the places it could. Per program, each enabled
// relaxation is switched on with probability ½ and, if on, its rate is drawn from its [lo, hi]
// (CsmithEdge §1.4, swarm testing); every opportunity is then taken with that rate. The draws use
// their own random stream (CsmithEdge keeps relaxation randomness apart from Csmith's), so the
// relaxed program is the seed's program, changed only where relaxed.
//
// A relaxed program may have UB, so by default only compiler crashes and hangs count for it. Kiln
// goes one step further than CsmithEdge's lazy validation: the reference interpreter runs the
// relaxed program, and when its executed path has no UB (a dropped initialiser never read, a goto
// that leaves the loop it entered, an index that stays in bounds) it yields the exact expected
// output, and the program is a wrong-code test like any other.
import { intMax } from '../c/types.js';
import type { Policy } from '../gen/policy.js';
import { IRBuilder } from '../ir/build.js';
import type { Block, Expr, FuncDecl, Node, Program, Stmt, VarDecl } from '../ir/nodes.js';
import { isExpr, isLvalue } from '../ir/nodes.js';
import { transform, walk } from '../ir/visit.js';
import { interpret } from '../interp/interpret.js';
import { Rng } from '../random/rng.js';

/** The relaxations, in CsmithEdge's Table 1 order. */
export const RELAXATIONS = [
  'nullDeref',
  'dangling',
  'uninitialised',
  'goto',
  'arrayBounds',
  'paramAddress',
  'conflicts',
] as const;
/** One relaxation. */
export type Relaxation = (typeof RELAXATIONS)[number];

/** The relaxations switched on for one program, with the rate each was drawn. */
export type RelaxRates = Partial<Record<Relaxation, number>>;

/** What relaxing one program did. */
export interface Relaxed {
  readonly program: Program;
  readonly rates: RelaxRates;
  /** Opportunities taken, per relaxation switched on. */
  readonly applied: Partial<Record<Relaxation, number>>;
  /**
   * The interpreter's verdict on the relaxed program: its expected output when the executed path
   * has no UB (a wrong-code test), else the first UB kind, or 'unknown' (the run did not finish
   * within the step budget, or the interpreter cannot follow a relaxed jump).
   */
  readonly verdict: { readonly ok: true; readonly output: string } | { readonly ok: false; readonly reason: string };
}

/**
 * Draws which relaxations are on for a program and their rates: each enabled one (a `[lo, hi]`
 * range in the policy, not `false`) is on with probability `policy.relax.enable`, and its rate is
 * uniform in its range, rounded to two decimals so it can be printed and read back exactly.
 */
export function drawRelaxations(policy: Policy, rng: Rng): RelaxRates {
  const out: RelaxRates = {};
  for (const r of RELAXATIONS) {
    const range = policy.relax[r];
    if (range === false) continue;
    if (!rng.chance(policy.relax.enable)) continue;
    const [lo, hi] = range;
    out[r] = Math.round((lo + (hi - lo) * rng.float()) * 100) / 100;
  }
  return out;
}

/** The random stream of a seed's relaxations (independent of its generation stream). */
export function relaxRng(seed: bigint | string): Rng {
  return Rng.seeded(`${seed}:relax`);
}

/** Relaxes a program: the rewrites in Table 1 order, each at its rate; `main` (Kiln's harness) is left alone. */
export function relaxProgram(p: Program, rates: RelaxRates, rng: Rng): Relaxed {
  const b = IRBuilder.continuing(p);
  const applied: Partial<Record<Relaxation, number>> = {};
  const count = (r: Relaxation): void => {
    applied[r] = (applied[r] ?? 0) + 1;
  };
  const take = (r: Relaxation): boolean => {
    const rate = rates[r];
    return rate !== undefined && rate > 0 && rng.chance(rate);
  };
  for (const r of RELAXATIONS) if (rates[r] !== undefined) applied[r] = 0;
  const names = new Set<string>();
  walkNames(p, names);
  const fresh = (stem: string): string => {
    let i = names.size;
    while (names.has(`${stem}_${i}`)) i++;
    names.add(`${stem}_${i}`);
    return `${stem}_${i}`;
  };

  let globals = p.globals;
  const funcs = p.funcs.map((f) => {
    if (f.id === p.main) return f;
    let body = f.body;
    body = rewriteExprs(body, (e) => {
      // Null: a dereferenced pointer becomes the null pointer of its type.
      if (e.kind === 'deref' && e.ptr.kind !== 'null' && take('nullDeref')) {
        count('nullDeref');
        return { ...e, ptr: b.nullptr(e.ptr.type as Extract<Expr['type'], { kind: 'ptr' }>) } as Expr;
      }
      // Array bounds: the (in-bounds) index becomes an unchecked binary operation over it and a constant.
      if (e.kind === 'index' && e.index.type.kind === 'int' && take('arrayBounds')) {
        count('arrayBounds');
        const ops = ['+', '-', '*'] as const;
        const op = ops[rng.int(0, ops.length - 1)]!;
        const k = b.lit(BigInt(rng.int(1, 9)));
        return { ...e, index: b.bin(op, e.index, k) } as Expr;
      }
      // Read/write conflicts: `v = e` becomes `v = e + v++` (an unsequenced read and write of v).
      if (
        e.kind === 'assign' &&
        e.op === '=' &&
        e.target.kind === 'var' &&
        e.target.type.kind === 'int' &&
        !e.target.type.const &&
        e.value.type.kind === 'int' &&
        take('conflicts')
      ) {
        count('conflicts');
        const inc = b.incdec('++', { ...e.target, id: b.id() }, false);
        return { ...e, value: b.bin('+', e.value, inc) } as Expr;
      }
      return e;
    });
    // Parameter-address passing: an address of an object of a parameter's type becomes the
    // parameter's address (it may then outlive the call).
    if (f.params.length > 0) {
      body = rewriteExprs(body, (e) => {
        if (e.kind !== 'addr' || e.target.kind !== 'var') return e;
        const same = f.params.filter(
          (q) => sameShape(q.type, e.target.type) && q.id !== (e.target as { decl: number }).decl,
        );
        if (same.length === 0 || !take('paramAddress')) return e;
        count('paramAddress');
        const q = same[rng.int(0, same.length - 1)]!;
        return { ...e, target: b.v(q) } as Expr;
      });
    }
    // Dangling pointers: before a statement that dereferences a pointer variable, the variable is
    // pointed at a local of a block that has ended.
    body = rewriteBlocks(body, (blk) => {
      const stmts: Stmt[] = [];
      for (const s of blk.stmts) {
        const target = s.kind === 'expr' ? derefedPointerVar(s.expr) : undefined;
        if (
          target &&
          target.type.kind === 'ptr' &&
          target.type.to.kind !== 'void' &&
          target.type.to.kind !== 'array' &&
          !target.type.to.const &&
          take('dangling')
        ) {
          count('dangling');
          const pointee = target.type.to;
          const local = b.local(
            fresh('dead'),
            { ...pointee, const: false, volatile: false } as typeof pointee,
            // A value the type holds: `unsigned _BitInt(1)` goes up to 1.
            pointee.kind === 'int' ? b.lit(BigInt(rng.int(0, 9)) & intMax(pointee), pointee) : undefined,
          );
          stmts.push(b.block([b.stmt(b.assign({ ...target, id: b.id() }, b.addr(b.v(local))))], [local]));
        }
        stmts.push(s);
      }
      return { ...blk, stmts };
    });
    // Uninitialised variables: a local's initialiser is dropped.
    body = rewriteBlocks(body, (blk) => {
      let changed = false;
      const locals = blk.locals.map((l) => {
        if (l.init === undefined || l.type.const || !take('uninitialised')) return l;
        count('uninitialised');
        changed = true;
        return { ...l, init: undefined };
      });
      return changed ? { ...blk, locals } : blk;
    });
    // Goto anywhere: jumps, forward or backward, to labels placed anywhere in the function.
    body = relaxGotos(body, b, rng, take, count, fresh);
    return body === f.body ? f : ({ ...f, body } as FuncDecl);
  });
  // Uninitialised globals too (CsmithEdge drops both): a global without initialiser is zero, so
  // this changes values, not definedness.
  globals = globals.map((g) => {
    if (g.init === undefined || g.type.const || !take('uninitialised')) return g;
    count('uninitialised');
    return { ...g, init: undefined } as VarDecl;
  });
  const notes = [
    `relaxed (CsmithEdge Table 1): ${
      RELAXATIONS.filter((r) => rates[r] !== undefined)
        .map((r) => `${r} ${rates[r]!.toFixed(2)} (${applied[r] ?? 0} sites)`)
        .join(', ') || 'none'
    }`,
  ];
  const program: Program = {
    ...p,
    globals,
    funcs,
    nextId: b.nextId,
    meta: { ...p.meta, notes: [...(p.meta.notes ?? []), ...notes] },
  };
  return { program, rates, applied, verdict: judge(program) };
}

/** Runs the relaxed program in the interpreter: its output when its executed path is UB-free. */
function judge(p: Program): Relaxed['verdict'] {
  try {
    const r = interpret(p);
    if (r.ok) return { ok: true, output: r.output.trimEnd() }; // the line, as every expected output is kept
    return { ok: false, reason: r.ub.kind };
  } catch (e) {
    // A relaxed goto can jump where the interpreter does not follow (into a block, past its
    // declarations): the program is still a crash and hang test.
    return { ok: false, reason: `unknown: ${(e as Error).message.split('\n')[0]}` };
  }
}

function walkNames(p: Program, names: Set<string>): void {
  for (const g of p.globals) names.add(g.name);
  for (const f of p.funcs) {
    names.add(f.name);
    walk(f, (n) => {
      if (n.kind === 'var-decl' || n.kind === 'label') names.add(n.name);
    });
  }
}

function sameShape(a: Expr['type'], b: Expr['type']): boolean {
  return (
    JSON.stringify({ ...a, const: undefined, volatile: undefined }) ===
    JSON.stringify({ ...b, const: undefined, volatile: undefined })
  );
}

/** The pointer variable an expression statement dereferences first, if any (`*p = …`, `x = *p`). */
function derefedPointerVar(e: Expr): Extract<Expr, { kind: 'var' }> | undefined {
  let found: Extract<Expr, { kind: 'var' }> | undefined;
  walk(e, (n) => {
    if (found) return false;
    if (n.kind === 'deref' && n.ptr.kind === 'var' && isLvalue(n.ptr)) {
      found = n.ptr;
      return false;
    }
    return true;
  });
  return found;
}

/** Rewrites every expression of a function body bottom-up (statements and declarations keep their shape). */
function rewriteExprs(body: Block, f: (e: Expr) => Expr): Block {
  return transform(body, (n: Node) => (isExpr(n) ? f(n) : n)) as Block;
}

/** Rewrites every block of a function body bottom-up. */
function rewriteBlocks(body: Block, f: (b: Block) => Block): Block {
  return transform(body, (n: Node) => (n.kind === 'block' ? f(n) : n)) as Block;
}

/**
 * Inserts gotos: every statement position of the function (outside switch bodies, whose case
 * labels must stay first-class) is an opportunity; a taken one gets `goto L;` before it, L a new
 * label before another position drawn from the whole function.
 */
function relaxGotos(
  body: Block,
  b: IRBuilder,
  rng: Rng,
  take: (r: Relaxation) => boolean,
  count: (r: Relaxation) => void,
  fresh: (stem: string) => string,
): Block {
  const positions: { block: number; index: number }[] = [];
  const inSwitch = new Set<number>();
  walk(body, (n) => {
    if (n.kind === 'switch') inSwitch.add(n.body.id);
    if (n.kind === 'block' && !inSwitch.has(n.id))
      for (let i = 0; i <= n.stmts.length; i++) positions.push({ block: n.id, index: i });
    return true;
  });
  if (positions.length < 2) return body;
  const inserts = new Map<number, Map<number, Stmt[]>>();
  const add = (pos: { block: number; index: number }, s: Stmt): void => {
    const m = inserts.get(pos.block) ?? new Map<number, Stmt[]>();
    inserts.set(pos.block, m);
    m.set(pos.index, [...(m.get(pos.index) ?? []), s]);
  };
  for (const at of positions) {
    if (!take('goto')) continue;
    count('goto');
    const to = positions[rng.int(0, positions.length - 1)]!;
    const label = b.label(fresh('relax'));
    add(to, label);
    add(at, b.goto(label));
  }
  if (inserts.size === 0) return body;
  return rewriteBlocks(body, (blk) => {
    const m = inserts.get(blk.id);
    if (!m) return blk;
    const stmts: Stmt[] = [];
    for (let i = 0; i <= blk.stmts.length; i++) {
      stmts.push(...(m.get(i) ?? []));
      if (i < blk.stmts.length) stmts.push(blk.stmts[i]!);
    }
    return { ...blk, stmts };
  });
}

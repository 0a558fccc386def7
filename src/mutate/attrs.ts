import type { FuncAttr, FuncDecl, Program } from '../ir/nodes.js';
import { walk } from '../ir/visit.js';
import type { PassContext, PassResult } from './pass.js';

/**
 * Function attributes (ATLAS's idea): hints (`noinline`, `noipa`, `always_inline`, `cold`,
 * `hot`, `flatten`, `optimize(...)`) and contracts (`pure`, `const`) on functions other than
 * `main`. Contracts are drawn where `contractsOf` grants them on `p`; later passes insert code
 * into the same functions, so the driver re-checks them on the final program with
 * `keepHeldContracts`. Conflicting hints are never combined (one of the inlining three; `cold`
 * or `hot`), and `always_inline` goes only to static functions outside call cycles, never in a
 * variant that also uses `optimize` (gcc refuses to inline across differing optimisation
 * options).
 */
export function attributes(p: Program, cx: PassContext, probability: number): PassResult {
  const { rng } = cx;
  const contracts = contractsOf(p);
  const cyclic = inCycles(p);
  const useOptimize = rng.chance(0.5);
  let applied = 0;
  const funcs = p.funcs.map((f) => {
    if (f.id === p.main || !rng.chance(probability)) return f;
    const attrs: FuncAttr[] = [];
    const inline = rng.pick(['noinline', 'noipa', 'always_inline', undefined] as const);
    if (inline === 'always_inline') {
      if (f.isStatic && !cyclic.has(f.id) && !useOptimize) attrs.push({ name: 'always_inline' });
    } else if (inline) attrs.push({ name: inline });
    const temp = rng.pick(['cold', 'hot', undefined, undefined] as const);
    if (temp) attrs.push({ name: temp });
    if (rng.chance(0.3)) attrs.push({ name: 'flatten' });
    if (useOptimize && rng.chance(0.4)) attrs.push({ name: 'optimize', arg: rng.pick(OPTIMIZE_ARGS) });
    const c = contracts.get(f.id);
    if (c && rng.chance(0.7)) attrs.push({ name: c === 'const' && rng.chance(0.7) ? 'const' : 'pure' });
    if (!attrs.length) return f;
    applied += attrs.length;
    return {
      ...f,
      attributes: attrs,
      ...(attrs.some((a) => a.name === 'always_inline') ? { isInline: true } : {}),
    } satisfies FuncDecl;
  });
  return { program: applied ? { ...p, funcs } : p, applied };
}

/** Arguments of gcc's `optimize` attribute: whole levels and single passes switched off or on. */
const OPTIMIZE_ARGS: readonly string[] = [
  'O0',
  'O1',
  'O2',
  'O3',
  'Os',
  'no-tree-vrp',
  'no-tree-pre',
  'no-inline',
  'unroll-loops',
  'no-strict-aliasing',
  'no-tree-loop-distribute-patterns',
  'no-ipa-cp',
];

/** A function contract: `pure` or `const`. */
export type Contract = 'pure' | 'const';

/** The contract a function's attributes promise, if any (`const` is the stronger). */
export function contractAttr(f: FuncDecl): Contract | undefined {
  const names = (f.attributes ?? []).map((a) => a.name);
  return names.includes('const') ? 'const' : names.includes('pure') ? 'pure' : undefined;
}

/** What `keepHeldContracts` changed. */
export interface HeldContracts {
  readonly program: Program;
  /** Contracts removed: neither holds on the final program. */
  readonly removed: number;
  /** `const` contracts made `pure`: only that holds on the final program. */
  readonly weakened: number;
}

/**
 * Re-checks the contracts of `p` (a variant after all its passes) with `contractsOf`: a `const`
 * the program no longer grants becomes `pure` when that holds, and a contract that does not
 * hold at all is removed (with its function's attribute list when nothing else is left).
 * Nothing is drawn, so the rest of the variant is the same bytes as without the check.
 */
export function keepHeldContracts(p: Program): HeldContracts {
  if (!p.funcs.some((f) => contractAttr(f))) return { program: p, removed: 0, weakened: 0 };
  const held = contractsOf(p);
  let removed = 0;
  let weakened = 0;
  const funcs = p.funcs.map((f): FuncDecl => {
    const promised = contractAttr(f);
    const grant = held.get(f.id);
    if (!promised || promised === grant || (promised === 'pure' && grant === 'const')) return f;
    const rest = f.attributes!.filter((a) => a.name !== 'pure' && a.name !== 'const');
    if (grant) {
      weakened++;
      return { ...f, attributes: [...rest, { name: 'pure' }] };
    }
    removed++;
    if (rest.length) return { ...f, attributes: rest };
    const { attributes: _none, ...bare } = f;
    return bare;
  });
  return { program: removed + weakened ? { ...p, funcs } : p, removed, weakened };
}

/**
 * The contracts `p`'s attributes promise that `contractsOf(p)` does not grant: a `const` where
 * only `pure` holds, or either where neither does (an EMI variant must have none).
 */
export function brokenContracts(p: Program): FuncDecl[] {
  const held = contractsOf(p);
  return p.funcs.filter((f) => {
    const promised = contractAttr(f);
    const grant = held.get(f.id);
    return promised !== undefined && (grant === undefined || (promised === 'const' && grant === 'pure'));
  });
}

/**
 * The strongest contract each function keeps: `const`, `pure`, or none (absent). A static check,
 * stronger than what the interpreter checks at each call of a function carrying the attribute
 * (src/interp/runtime.ts, `enterContract`): the function writes nothing but its own automatic
 * locals (reached without a pointer), declares and accesses no volatile object, updates no
 * checksum and prints nothing, calls only functions with the same contract, and (for `const`)
 * reads no global and dereferences no pointer. The interpreter's rule is the contract itself:
 * a call writes only objects created during it (its own and its callees' locals and
 * parameters), touches nothing volatile and, for `const`, reads only such objects too; every
 * function granted here keeps it on every call, since its callees are granted the same.
 */
export function contractsOf(p: Program): Map<number, Contract> {
  const byId = new Map(p.funcs.map((f) => [f.id, f]));
  const globals = new Set(p.globals.map((g) => g.id));
  const facts = new Map<number, { pure: boolean; readsGlobal: boolean; calls: number[] }>();
  for (const f of p.funcs) {
    if (f.id === p.main || f.ret.kind !== 'int') continue;
    const locals = new Set<number>(f.params.map((x) => x.id));
    let pure = true;
    let readsGlobal = false;
    const calls: number[] = [];
    walk(f.body, (n) => {
      if (n.kind === 'var-decl') {
        // A static local outlives the call: writing it is a side effect, reading it reads memory.
        if (!n.isStatic) locals.add(n.id);
        if (n.type.volatile) pure = false;
        return true;
      }
      if (n.kind === 'hash' || n.kind === 'check') pure = false;
      if ((n.kind === 'assign' || n.kind === 'incdec') && !ownLocal(n.target, locals)) pure = false;
      if (n.kind === 'var' && (globals.has(n.decl) || !locals.has(n.decl))) readsGlobal = true;
      if (n.kind === 'deref') readsGlobal = true;
      if ((n.kind === 'var' || n.kind === 'deref' || n.kind === 'index' || n.kind === 'field') && n.type.volatile)
        pure = false;
      if (n.kind === 'call') calls.push(n.func);
      return true;
    });
    facts.set(f.id, { pure, readsGlobal, calls });
  }
  // Contracts hold only if every callee keeps them: iterate to a fixed point.
  const result = new Map<number, Contract>();
  for (const [id, x] of facts) if (x.pure) result.set(id, x.readsGlobal ? 'pure' : 'const');
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, x] of facts) {
      const mine = result.get(id);
      if (!mine) continue;
      let next: Contract | undefined = mine;
      for (const c of x.calls) {
        const theirs = byId.has(c) ? result.get(c) : undefined;
        if (!theirs) next = undefined;
        else if (theirs === 'pure' && next === 'const') next = 'pure';
        if (!next) break;
      }
      if (next !== mine) {
        if (next) result.set(id, next);
        else result.delete(id);
        changed = true;
      }
    }
  }
  return result;
}

/**
 * Whether an assignment target is (a part of) one of the function's own automatic locals, reached without a pointer.
 */
function ownLocal(e: import('../ir/nodes.js').Expr, locals: ReadonlySet<number>): boolean {
  switch (e.kind) {
    case 'var':
      return locals.has(e.decl);
    case 'index':
    case 'field':
      return ownLocal(e.base, locals);
    default:
      return false;
  }
}

/** Functions on a call cycle (recursion): never `always_inline`. */
function inCycles(p: Program): Set<number> {
  const edges = new Map<number, Set<number>>();
  for (const f of p.funcs) {
    const out = new Set<number>();
    walk(f.body, (n) => {
      if (n.kind === 'call') out.add(n.func);
    });
    edges.set(f.id, out);
  }
  const cyclic = new Set<number>();
  for (const f of p.funcs) {
    const seen = new Set<number>();
    const stack = [...(edges.get(f.id) ?? [])];
    while (stack.length) {
      const x = stack.pop()!;
      if (x === f.id) {
        cyclic.add(f.id);
        break;
      }
      if (seen.has(x)) continue;
      seen.add(x);
      stack.push(...(edges.get(x) ?? []));
    }
  }
  return cyclic;
}

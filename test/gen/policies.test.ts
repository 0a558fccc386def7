import { describe, expect, it } from 'vitest';
import { CSMITH_POLICY, parsePolicy, PolicyError } from '../../src/gen/policy.js';
import { generateRaw } from '../../src/gen/program.js';
import { generateYarpgenRaw, YARPGEN_INIT } from '../../src/gen/yarpgen.js';
import { programPolicy } from '../../src/gen/shuffle.js';
import type { Node } from '../../src/ir/nodes.js';
import { walk, walkProgram } from '../../src/ir/visit.js';
import { Rng } from '../../src/random/rng.js';
import { plainC } from '../support/cc.js';

/** Every YARPGen policy and swarm off, then `on` applied. */
function only(on: Record<string, number | boolean>, size: 'small' | 'medium' = 'small') {
  const off = Object.fromEntries(
    Object.entries(CSMITH_POLICY.policies).map(([k, v]) => [k, typeof v === 'boolean' ? false : 0]),
  );
  return parsePolicy({ policies: { ...off, ...on } }, size);
}

/** A node's shape: its text without ids, so copies of one subexpression compare equal. */
const shape = (n: Node): string =>
  JSON.stringify(n, (k, v: unknown) => (k === 'id' ? undefined : typeof v === 'bigint' ? String(v) : v));

/** Of all loads (`a[i]`, `s.f`, `*p`) in statements, the share that repeat one seen earlier in the same function. */
function repeatedLoads(policy: ReturnType<typeof only>): number {
  let loads = 0;
  let repeats = 0;
  for (let seed = 1; seed <= 80; seed++) {
    const p = generateRaw(seed, policy);
    for (const f of p.funcs) {
      const seen = new Set<string>();
      walkProgram({ ...p, funcs: [f], globals: [] }, (n) => {
        if (n.kind === 'var-decl') return false;
        if (n.kind !== 'index' && n.kind !== 'field' && n.kind !== 'deref') return;
        loads++;
        const s = shape(n);
        if (seen.has(s)) repeats++;
        seen.add(s);
        return false;
      });
    }
  }
  return repeats / loads;
}

/**
 * Per loop, the operations (binary nodes) in its body that repeat another one of the body and
 * read no scalar variable the body assigns: invariant work LICM can hoist.
 */
function repeatedInvariants(policy: ReturnType<typeof only>): number {
  let found = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const p = generateRaw(seed, policy);
    walkProgram({ ...p, globals: [] }, (loop) => {
      if (loop.kind !== 'for') return;
      const assigned = new Set<number>();
      walk(loop.body, (n) => {
        if ((n.kind === 'assign' || n.kind === 'incdec') && n.target.kind === 'var') assigned.add(n.target.decl);
      });
      const seen = new Map<string, number>();
      walk(loop.body, (n) => {
        if (n.kind !== 'binary') return;
        let invariant = true;
        walk(n, (m) => {
          if (m.kind === 'var' && assigned.has(m.decl)) invariant = false;
        });
        if (invariant) seen.set(shape(n), (seen.get(shape(n)) ?? 0) + 1);
      });
      for (const k of seen.values()) if (k > 1) found += k;
    });
  }
  return found;
}

/**
 * Loops whose body is only assignments of call-free, division-free values with at least one
 * store to an array element indexed by the loop's own variable: what the vectorisers take.
 */
function elementwiseLoops(policy: ReturnType<typeof only>): number {
  let found = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const p = generateRaw(seed, policy);
    walkProgram({ ...p, globals: [] }, (loop) => {
      if (loop.kind !== 'for' || loop.init?.kind !== 'assign' || loop.init.target.kind !== 'var') return;
      const iv = loop.init.target.decl;
      const stmts = loop.body.stmts;
      if (!stmts.length || !stmts.every((s) => s.kind === 'expr' && s.expr.kind === 'assign')) return;
      let plain = true;
      let indexed = false;
      for (const s of stmts) {
        if (s.kind !== 'expr' || s.expr.kind !== 'assign') continue;
        const { target, value } = s.expr;
        if (target.kind === 'index' && target.index.kind === 'var' && target.index.decl === iv) indexed = true;
        walk(value, (n) => {
          if (
            n.kind === 'call' ||
            n.kind === 'assign' ||
            n.kind === 'incdec' ||
            n.kind === 'comma' ||
            (n.kind === 'binary' && (n.op === '/' || n.op === '%'))
          )
            plain = false;
        });
      }
      if (plain && indexed) found++;
    });
  }
  return found;
}

/** An expression's operators and leaf kinds, without values: the lanes of an SLP group share it. */
function skeleton(e: Node): string {
  const out: string[] = [];
  walk(e, (n) => {
    out.push(n.kind === 'binary' || n.kind === 'unary' ? `${n.kind}${n.op}` : n.kind === 'var' ? `v${n.decl}` : n.kind);
  });
  return out.join(' ');
}

/**
 * yarpgen-mode statements that belong to runs of assignments to consecutive elements of one
 * array (`o[2] = …; o[3] = …;`) whose values have one skeleton: what the SLP vectorisers pack.
 */
function isomorphicStores(policy: ReturnType<typeof only>): number {
  let found = 0;
  for (let seed = 1; seed <= 30; seed++) {
    const p = generateYarpgenRaw(seed, policy);
    // The test functions only: init() stores a constant into every element and lane, one by one.
    walkProgram({ ...p, globals: [], funcs: p.funcs.filter((f) => f.name !== YARPGEN_INIT) }, (block) => {
      if (block.kind !== 'block') return;
      const key = (s: Node): { array: number; at: number; shape: string } | undefined => {
        if (s.kind !== 'expr' || s.expr.kind !== 'assign') return undefined;
        const { target, value } = s.expr;
        if (target.kind !== 'index' || target.base.kind !== 'var' || target.index.kind !== 'const') return undefined;
        return { array: target.base.decl, at: Number(target.index.value), shape: skeleton(value) };
      };
      let run = 1;
      for (let i = 1; i <= block.stmts.length; i++) {
        const a = key(block.stmts[i - 1]!);
        const b = i < block.stmts.length ? key(block.stmts[i]!) : undefined;
        if (a && b && a.array === b.array && b.at === a.at + 1 && a.shape === b.shape) run++;
        else {
          if (run > 1) found += run;
          run = 1;
        }
      }
    });
  }
  return found;
}

describe('generation policies', () => {
  it('the SLP policy writes runs of isomorphic stores to consecutive array elements (yarpgen mode)', () => {
    const plain = isomorphicStores(only({}, 'medium'));
    const slp = isomorphicStores(only({ slpGroups: 1 }, 'medium'));
    expect(slp).toBeGreaterThan(plain * 3 + 50);
  });

  it('the vector-loop policy gives array loops element-wise bodies (vectoriser targets)', () => {
    const plain = elementwiseLoops(only({}, 'medium'));
    const vector = elementwiseLoops(only({ vectorLoops: 1 }, 'medium'));
    expect(vector).toBeGreaterThan(plain * 3 + 30);
  });

  it('the loop-invariant policy repeats invariant operations inside loops (LICM targets)', () => {
    // Medium programs: small ones have few loops.
    const plain = repeatedInvariants(only({}, 'medium'));
    const invariants = repeatedInvariants(only({ invariants: 0.5 }, 'medium'));
    expect(invariants).toBeGreaterThan(plain * 3 + 200);
  });

  it('the CSE buffer reuses loads as well as operations (GVN and LICM targets)', () => {
    // On programs without vectors: their lane reads (`v[i]`, index nodes) are loads the buffer
    // does not draw from, and they dilute the share.
    const plain = repeatedLoads(plainC(only({})));
    const cse = repeatedLoads(plainC(only({ cse: 1 })));
    expect(cse, `repeated-load share ${cse} with the buffer, ${plain} without`).toBeGreaterThan(plain * 1.5);
  });

  it('swarm testing switches features off per program, and none at chance 0', () => {
    const all = programPolicy(parsePolicy({ policies: { swarm: 1 } }), Rng.seeded(1)).features;
    for (const f of [
      'goto',
      'comma',
      'embeddedAssign',
      'incDec',
      'compoundAssign',
      'math64',
      'pointers',
      'structs',
      'loops',
    ] as const)
      expect(all[f], f).toBe(false);
    const none = programPolicy(parsePolicy({ policies: { swarm: 0 } }), Rng.seeded(1)).features;
    expect(none).toEqual(CSMITH_POLICY.features);
    // At the default chance programs differ in what they lack, and most lack something.
    const lacking = Array.from({ length: 40 }, (_, i) => {
      const f = programPolicy(CSMITH_POLICY, Rng.seeded(i + 1)).features;
      return Object.entries(f)
        .filter(([k, v]) => v !== CSMITH_POLICY.features[k as keyof typeof f])
        .map(([k]) => k)
        .join(',');
    });
    expect(new Set(lacking).size).toBeGreaterThan(10);
    expect(lacking.filter((x) => x !== '').length).toBeGreaterThan(20);
  });

  it('shuffling draws different statement weights per program, each within half to twice its share', () => {
    const policy = parsePolicy({ policies: { swarm: 0 } });
    const fors = Array.from({ length: 30 }, (_, i) => programPolicy(policy, Rng.seeded(i + 1)).statements.for);
    expect(new Set(fors).size).toBe(30);
    for (const w of fors) {
      // Rescaling within the group can push a weight a little past the factor's own bounds.
      expect(w).toBeGreaterThan(CSMITH_POLICY.statements.for / 4);
      expect(w).toBeLessThan(CSMITH_POLICY.statements.for * 4);
    }
    // Loops keep their share of the statements: only the mix of for and array loops moves.
    const base = CSMITH_POLICY.statements;
    for (let i = 1; i <= 30; i++) {
      const w = programPolicy(policy, Rng.seeded(i)).statements;
      expect(w.for + w.arrayLoop).toBeCloseTo(base.for + base.arrayLoop, 9);
      expect(w.if + w.switch).toBeCloseTo(base.if + base.switch, 9);
    }
    const unshuffled = programPolicy(parsePolicy({ policies: { shuffle: false, swarm: 0 } }), Rng.seeded(1));
    expect(unshuffled.statements).toEqual(CSMITH_POLICY.statements);
  });
});

describe('policy validation', () => {
  /** The field a rejected policy names (parsePolicy throws a PolicyError naming it). */
  const rejected = (input: unknown, size: 'small' | 'medium' = 'medium'): string => {
    try {
      parsePolicy(input, size);
    } catch (e) {
      expect(e).toBeInstanceOf(PolicyError);
      return (e as PolicyError).field;
    }
    throw new Error(`policy accepted: ${JSON.stringify(input)}`);
  };
  const zero = (group: Record<string, unknown>) => Object.fromEntries(Object.keys(group).map((k) => [k, 0]));

  it('refuses a weight group that is all zero, naming the group', () => {
    expect(rejected({ statements: zero(CSMITH_POLICY.statements) })).toBe('statements');
    expect(rejected({ expressions: zero(CSMITH_POLICY.expressions) })).toBe('expressions');
    expect(rejected({ argumentExpressions: zero(CSMITH_POLICY.argumentExpressions) })).toBe('argumentExpressions');
    expect(rejected({ operators: zero(CSMITH_POLICY.operators) })).toBe('operators');
    expect(rejected({ scopes: zero(CSMITH_POLICY.scopes) })).toBe('scopes');
    expect(rejected({ arith: { operators: zero(CSMITH_POLICY.arith.operators) } })).toBe('arith.operators');
    // One positive weight is enough.
    expect(parsePolicy({ statements: { ...zero(CSMITH_POLICY.statements), assign: 1 } }).statements.assign).toBe(1);
  });

  it('refuses a minimum above its maximum, naming the minimum', () => {
    expect(rejected({ arith: { minExprs: 50, maxExprs: 10 } })).toBe('arith.minExprs');
    expect(rejected({ arith: { minOps: 50, maxOps: 10 } })).toBe('arith.minOps');
    expect(rejected({ arith: { minVars: 30 } })).toBe('arith.minVars');
    expect(rejected({ limits: { minGlobals: 70 } })).toBe('limits.minGlobals');
    expect(rejected({ arith: { maxDepth: 0 } })).toBe('arith.maxDepth');
    expect(parsePolicy({ arith: { minExprs: 10, maxExprs: 10 } }).arith.maxExprs).toBe(10);
  });

  it('refuses chances above 1, naming the field', () => {
    expect(rejected({ choices: { userCall: 1.5 } })).toBe('choices.userCall');
    expect(rejected({ policies: { swarm: 2 } })).toBe('policies.swarm');
    expect(rejected({ arith: { floatPrograms: 1.01 } })).toBe('arith.floatPrograms');
    // Counts in arith are not chances.
    expect(parsePolicy({ arith: { maxOps: 5000 } }).arith.maxOps).toBe(5000);
    expect(parsePolicy({ choices: { userCall: 1 } }).choices.userCall).toBe(1);
  });

  it('every policy it accepts generates programs without a generator error', () => {
    // The ones that used to end in "weighted choice with no positive weight" deep in the generator,
    // with one positive weight left: valid, and the generator copes.
    const lean = parsePolicy(
      {
        expressions: { ...zero(CSMITH_POLICY.expressions), constant: 1 },
        scopes: { ...zero(CSMITH_POLICY.scopes), global: 1 },
      },
      'small',
    );
    for (let seed = 1; seed <= 5; seed++) expect(() => generateRaw(seed, lean)).not.toThrow();
  });
});

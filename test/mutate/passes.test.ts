// The EMI passes one by one on generated programs: each keeps its contract (Orion deletes only
// what never ran, TG wraps live statements, FCB/TCB/facts insert before them), the sampled
// value profile records fields and constant-index elements, and the interpreter treats
// reached facts as undefined.
import { describe, expect, it } from 'vitest';
import { IRBuilder } from '../../src/ir/build.js';
import type { Program, Stmt } from '../../src/ir/nodes.js';
import { walk } from '../../src/ir/visit.js';
import { C } from '../../src/c/types.js';
import { VOID } from '../../src/ir/types.js';
import { interpret } from '../../src/interp/interpret.js';
import { emitC } from '../../src/emit/c.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { generateProgram, type Generated } from '../../src/repair/generate.js';
import { Rng } from '../../src/random/rng.js';
import { access, profileBase, type BaseProfile } from '../../src/mutate/env.js';
import { orion } from '../../src/mutate/orion.js';
import { fcb } from '../../src/mutate/fcb.js';
import { tg } from '../../src/mutate/tg.js';
import { tcb } from '../../src/mutate/tcb.js';
import { deadFacts, siteFacts } from '../../src/mutate/facts.js';
import { attributes, contractsOf } from '../../src/mutate/attrs.js';
import { athena } from '../../src/mutate/athena.js';
import { synthesizePredicate } from '../../src/mutate/predicate.js';
import { makeVariant, isVariant } from '../../src/mutate/variant.js';
import * as edit from '../../src/mutate/edit.js';
import type { PassContext } from '../../src/mutate/pass.js';
import { plainC } from '../support/cc.js';

// The hand-picked seeds below were drawn without the control-flow shapes and edge values.
const policy = plainC(parsePolicy({ features: { cfg: false }, repair: { edgeValues: 0 } }, 'small'));
const bases: Generated[] = [];
for (let s = 1; bases.length < 4 && s < 40; s++) {
  const g = generateProgram(s, policy, 'csmith');
  if (g.ok) bases.push(g);
}

function context(base: BaseProfile, label: string): PassContext {
  return { b: IRBuilder.continuing(base.program), rng: Rng.seeded(label), base };
}

function ids(p: Program): Set<number> {
  const out = new Set<number>();
  for (const f of p.funcs) walk(f, (n) => void out.add(n.id));
  return out;
}

/** The output is the base's and the run is clean: what every pass must keep. */
function proven(p: Program, g: Generated): void {
  const r = interpret(p);
  expect(r.ok ? 'clean' : r.ub.kind).toBe('clean');
  if (r.ok) expect(r.output.trimEnd()).toBe(g.expected);
}

describe('value profile at sampled points', () => {
  it('records struct fields and constant-index elements at the sampled statements only', () => {
    const b = new IRBuilder();
    const rec = b.struct('S', [
      { name: 'a', type: C.int },
      { name: 'b', type: C.short },
    ]);
    const arr = { kind: 'array' as const, of: C.int, length: 3 };
    const gs = b.global('gs', rec, b.list([b.lit(5), b.lit(6, C.short)]));
    const ga = b.global('ga', arr, b.list([b.lit(1), b.lit(2), b.lit(3)]));
    const s1 = b.stmt(b.assign(b.fld(b.v(gs), 'a'), b.lit(7)));
    const s2 = b.stmt(b.assign(b.idx(b.v(ga), b.lit(1)), b.lit(9)));
    const f = b.func('func_1', VOID, [], b.block([s1, s2]));
    const main = b.func(
      'main',
      C.int,
      [],
      b.block([b.stmt(b.call({ id: f.id, ret: VOID, params: [] }, [])), b.hash(b.fld(b.v(gs), 'a'))]),
      undefined,
      false,
    );
    const p = b.program({ records: [rec], globals: [gs, ga], funcs: [f, main], main });
    // Probability 1: every candidate statement of func_1 is a point.
    const base = profileBase(p, Rng.seeded(1), 1);
    const at2 = base.sites.find((s) => s.stmt === s2.id)!;
    const value = (name: string): bigint[] | undefined =>
      at2.env.find((o) => `${o.decl.name}${JSON.stringify(o.path)}` === name)?.values as bigint[] | undefined;
    expect(value('gs[{"field":0}]')).toEqual([7n]);
    expect(value('gs[{"field":1}]')).toEqual([6n]);
    expect(value('ga[{"index":1}]')).toEqual([2n]);
    expect(value('ga[{"index":2}]')).toEqual([3n]);
    const none = profileBase(p, Rng.seeded(1), 0);
    expect(none.sites).toEqual([]);
    expect(none.profile.points?.size).toBe(0);
  });

  it('samples the same points for the same seed, and about a tenth of the statements', () => {
    const g = bases[0]!;
    const a = profileBase(g.program, Rng.seeded('x'));
    const b = profileBase(g.program, Rng.seeded('x'));
    expect(a.sites.map((s) => s.stmt)).toEqual(b.sites.map((s) => s.stmt));
    expect(a.sites.length).toBeGreaterThan(0);
    for (const s of a.sites) expect(g.profile.stmtCounts.has(s.stmt)).toBe(true);
  });
});

describe('predicate synthesis (Hermes Algorithm 2)', () => {
  it('gives the required truth value at every observed state (checked by running the program with an assume)', () => {
    for (const g of bases) {
      const base = profileBase(g.program, Rng.seeded('pred'), 0.5);
      const cx = context(base, 'pred');
      for (const want of [true, false]) {
        const before = new Map<number, Stmt>();
        for (const site of base.sites) {
          const p = synthesizePredicate(cx.b, cx.rng, site.env, want, 2);
          if (p) before.set(site.stmt, { kind: 'assume', id: cx.b.id(), cond: want ? p : cx.b.un('!', p) });
        }
        expect(before.size).toBeGreaterThan(0);
        const p = edit.rewriteStmts(g.program, (s) => (before.has(s.id) ? [before.get(s.id)!, s] : undefined));
        proven({ ...p, nextId: cx.b.nextId }, g);
      }
    }
  });
});

describe('passes', () => {
  it('Orion deletes only statements that never ran, and the program still prints its output', () => {
    for (const g of bases) {
      const base = profileBase(g.program, Rng.seeded(2));
      const r = orion(g.program, context(base, 'orion'), 1);
      const gone = [...ids(g.program)].filter((i) => !ids(r.program).has(i));
      for (const id of gone) expect(g.profile.stmtCounts.has(id)).toBe(false);
      proven(r.program, g);
    }
    expect(
      bases.some((g) => orion(g.program, context(profileBase(g.program, Rng.seeded(2)), 'o'), 1).applied > 0),
    ).toBe(true);
  });

  it('FCB, TG, TCB and site facts apply at the sites and keep the output', () => {
    for (const g of bases) {
      const base = profileBase(g.program, Rng.seeded(3), 0.3);
      for (const pass of ['fcb', 'tg', 'tcb', 'facts'] as const) {
        const cx = context(base, pass);
        const r =
          pass === 'fcb'
            ? fcb(g.program, cx, base.sites, true)
            : pass === 'tg'
              ? tg(g.program, cx, base.sites)
              : pass === 'tcb'
                ? tcb(g.program, cx, base.sites)
                : siteFacts(g.program, cx, base.sites);
        if (base.sites.some((s) => s.env.some((o) => o.values.length))) expect(r.applied, pass).toBeGreaterThan(0);
        proven({ ...r.program, nextId: cx.b.nextId }, g);
        if (pass === 'tg') for (const s of base.sites) expect(ids(r.program).has(s.stmt)).toBe(true);
      }
    }
  });

  it('Athena and dead-code facts touch only blocks that never ran', () => {
    let applied = 0;
    for (const g of bases) {
      const base = profileBase(g.program, Rng.seeded(4));
      const a = athena(g.program, context(base, 'a'), 1);
      const d = deadFacts(a.program, context(base, 'd'), 1);
      applied += a.applied + d.applied;
      proven(d.program, g);
      expect(emitC(d.program)).toContain(d.applied ? '__builtin' : '');
    }
    expect(applied).toBeGreaterThan(0);
  });

  it('a proof catches a wrong fact: __builtin_unreachable() in live code is undefined', () => {
    const g = bases[0]!;
    const base = profileBase(g.program, Rng.seeded(5));
    const site = base.sites[0]!;
    const b = IRBuilder.continuing(g.program);
    const p = edit.rewriteStmts(g.program, (s) =>
      s.id === site.stmt ? [{ kind: 'unreachable', id: b.id() }, s] : undefined,
    );
    const r = interpret({ ...p, nextId: b.nextId });
    expect(r.ok ? 'clean' : r.ub.kind).toBe('unreachable-reached');
    const o = site.env.find((x) => x.values.length)!;
    const q = edit.rewriteStmts(g.program, (s) =>
      s.id === site.stmt
        ? [
            {
              kind: 'assume',
              id: b.id(),
              cond: b.bin('!=', access(b, o), b.lit(o.values[0]!, o.type.bits > 32 ? o.type : C.int)),
            },
            s,
          ]
        : undefined,
    );
    const rq = interpret({ ...q, nextId: b.nextId });
    expect(rq.ok ? 'clean' : rq.ub.kind).toBe('unreachable-reached');
  });

  it('attributes: pure and const only where the contract holds; conflicting hints never together', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int, b.lit(1));
    const x = b.param('x', C.int);
    const constF = b.func('f_const', C.int, [x], b.block([b.ret(b.bin('+', b.v(x), b.lit(1)))]));
    const y = b.param('y', C.int);
    const pureF = b.func('f_pure', C.int, [y], b.block([b.ret(b.bin('+', b.v(y), b.v(g)))]));
    const z = b.param('z', C.int);
    const impure = b.func('f_write', C.int, [z], b.block([b.stmt(b.assign(b.v(g), b.v(z))), b.ret(b.v(z))]));
    const main = b.func('main', C.int, [], b.block([b.hash(b.v(g))]), undefined, false);
    const p = b.program({ globals: [g], funcs: [constF, pureF, impure, main], main });
    const c = contractsOf(p);
    expect(c.get(constF.id)).toBe('const');
    expect(c.get(pureF.id)).toBe('pure');
    expect(c.has(impure.id)).toBe(false);
    for (const gen of bases) {
      const base = profileBase(gen.program, Rng.seeded(6));
      for (let i = 0; i < 20; i++) {
        const r = attributes(gen.program, context(base, `attr${i}`), 1);
        const cs = contractsOf(gen.program);
        for (const f of r.program.funcs) {
          const names = (f.attributes ?? []).map((a) => a.name);
          expect(
            names.filter((n) => n === 'noinline' || n === 'noipa' || n === 'always_inline').length,
          ).toBeLessThanOrEqual(1);
          expect(names.includes('cold') && names.includes('hot')).toBe(false);
          if (names.includes('pure') || names.includes('const')) expect(cs.has(f.id)).toBe(true);
          if (names.includes('const')) expect(cs.get(f.id)).toBe('const');
          expect(f.id === r.program.main && names.length > 0).toBe(false);
        }
        proven(r.program, gen);
      }
    }
  });
});

describe('variants', () => {
  it('are deterministic per seed and index, and all are proven', () => {
    let proved = 0;
    let total = 0;
    for (const g of bases) {
      const base = profileBase(g.program, Rng.seeded(`p${g.seed}`));
      for (let i = 1; i <= 4; i++) {
        const a = makeVariant(base, `${g.expected}\n`, g.seed, i);
        const b = makeVariant(base, `${g.expected}\n`, g.seed, i);
        total++;
        if (isVariant(a) && isVariant(b)) {
          proved++;
          expect(emitC(a.program)).toBe(emitC(b.program));
        }
      }
    }
    expect(proved).toBe(total);
  });

  it("are redrawn when a draw fails its proof (a snippet in a callee meets its caller's full expression)", () => {
    // Seed 1020 (medium): a first draw of some variant puts a snippet in a function called from a
    // full expression that also assigns a global the snippet touches; the interpreter reports
    // order-dependence. The variant is then drawn again and proven. (The example was found with
    // the medium limits of that time, pinned here: 280 statements, one extension round of 175, a
    // 10,000-step live target and a 30,000-step budget, without the control-flow shapes and edge
    // values drawn since.)
    const g = generateProgram(
      1020,
      parsePolicy(
        {
          limits: { maxStatements: 280 },
          live: { stepTarget: 10_000, roundStatements: 175 },
          repair: { maxSteps: 30_000, edgeValues: 0 },
          features: { cfg: false, vectors: false, int128: false, bitInt: false },
        },
        'medium',
      ),
      'csmith',
    );
    if (!g.ok) throw new Error('seed 1020 is discarded: pick another example');
    const base = profileBase(g.program, Rng.seeded('kiln-emi-profile:1020'));
    const redrawn: number[] = [];
    for (let i = 1; i <= 10; i++) {
      const v = makeVariant(base, `${g.expected}\n`, g.seed, i);
      expect(isVariant(v), isVariant(v) ? '' : v.reason).toBe(true);
      if (isVariant(v)) {
        expect(interpret(v.program)).toMatchObject({ ok: true, output: `${g.expected}\n` });
        if (v.redrawn > 0) redrawn.push(i);
      }
    }
    expect(
      redrawn.length,
      'no variant of seed 1020 needed a second draw any more: pick another example',
    ).toBeGreaterThan(0);
  });
});

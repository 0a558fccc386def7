// `pure` and `const` on EMI variants: drawn by the attributes pass before the insertions, kept
// only where the final program still grants them (contractsOf), and held by the proof run on
// every executed call (the interpreter's `attribute-contract`).
import { describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { IRBuilder } from '../../src/ir/build.js';
import type { FuncDecl, Program } from '../../src/ir/nodes.js';
import { interpret } from '../../src/interp/interpret.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { generateProgram, type Generated } from '../../src/repair/generate.js';
import { Rng } from '../../src/random/rng.js';
import { profileBase } from '../../src/mutate/env.js';
import { contractsOf, keepHeldContracts } from '../../src/mutate/attrs.js';
import { isVariant, makeVariant, type Variant } from '../../src/mutate/variant.js';
import { plainC } from '../support/cc.js';

// The hand-picked seeds below were drawn without the control-flow shapes and edge values.
const small = plainC(parsePolicy({ features: { cfg: false }, repair: { edgeValues: 0 } }, 'small'));

/** The contract a function's attributes promise (written out here, not taken from src). */
function promised(f: FuncDecl): 'pure' | 'const' | undefined {
  const names = (f.attributes ?? []).map((a) => a.name);
  return names.includes('const') ? 'const' : names.includes('pure') ? 'pure' : undefined;
}

/** Functions whose attribute promises more than the program grants. */
function unheld(p: Program): string[] {
  const held = contractsOf(p);
  return p.funcs
    .filter((f) => {
      const want = promised(f);
      const have = held.get(f.id);
      return want !== undefined && (have === undefined || (want === 'const' && have !== 'const'));
    })
    .map((f) => `${f.name} is ${promised(f)}, the program grants ${held.get(f.id) ?? 'nothing'}`);
}

function variantsOf(g: Generated, indices: readonly number[]): Variant[] {
  const base = profileBase(g.program, Rng.seeded(`kiln-emi-profile:${g.seed}`));
  return indices.map((i) => {
    const v = makeVariant(base, `${g.expected}\n`, g.seed, i);
    if (!isVariant(v)) throw new Error(`seed ${g.seed} variant ${i} failed its proof: ${v.reason}`);
    return v;
  });
}

describe('pure and const on variants', () => {
  it('small seed 77: func_4, drawn const, returns under a TG guard reading globals: it stays pure at most', () => {
    // Drawn on the base, where func_4 reads only its parameters; TG then wraps its return in a
    // guard reading g_4[0] and g_7. Variant 6 also drew func_4 const and then lost every contract.
    const g = generateProgram(77, small, 'csmith');
    if (!g.ok) throw new Error('seed 77 is discarded: pick another example');
    const [v6, v9] = variantsOf(g, [6, 9]);
    for (const v of [v6!, v9!]) {
      expect(unheld(v.program)).toEqual([]);
      expect(interpret(v.program)).toMatchObject({ ok: true, output: `${g.expected}\n` });
    }
    const f9 = v9!.program.funcs.find((f) => f.name === 'func_4')!;
    expect(promised(f9)).toBe('pure');
    expect(v9!.contractsDropped).toEqual({ removed: 0, weakened: 1 });
    // The variant as drawn before the re-check (func_4 const) fails its proof run: the guard's
    // read of a global inside a const call.
    const asDrawn: Program = {
      ...v9!.program,
      funcs: v9!.program.funcs.map((f) =>
        f === f9
          ? { ...f, attributes: [...f.attributes!.filter((a) => a.name !== 'pure'), { name: 'const' as const }] }
          : f,
      ),
    };
    const r = interpret(asDrawn);
    expect(r.ok ? 'clean' : r.ub.kind).toBe('attribute-contract');
    if (!r.ok) expect(r.ub.detail?.message).toContain('func_4 (const) reads');
  });

  it('keepHeldContracts removes or weakens exactly the contracts the program no longer grants', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int, b.lit(1));
    const x = b.param('x', C.int);
    const reads = b.func('reads', C.int, [x], b.block([b.ret(b.bin('+', b.v(x), b.v(g)))]));
    const y = b.param('y', C.int);
    const writes = b.func('writes', C.int, [y], b.block([b.stmt(b.assign(b.v(g), b.v(y))), b.ret(b.v(y))]));
    const z = b.param('z', C.int);
    const own = b.func('own', C.int, [z], b.block([b.ret(b.v(z))]));
    const main = b.func(
      'main',
      C.int,
      [],
      b.block([b.hash(b.call(reads, [b.call(own, [b.lit(2)])]))]),
      undefined,
      false,
    );
    const p = b.program({
      globals: [g],
      funcs: [
        { ...reads, attributes: [{ name: 'noinline' }, { name: 'const' }] },
        { ...writes, attributes: [{ name: 'pure' }] },
        { ...own, attributes: [{ name: 'cold' }, { name: 'const' }] },
        main,
      ],
      main,
    });
    const r = keepHeldContracts(p);
    expect(r).toMatchObject({ removed: 1, weakened: 1 });
    expect(r.program.funcs.map((f) => f.attributes?.map((a) => a.name))).toEqual([
      ['noinline', 'pure'],
      undefined,
      ['cold', 'const'],
      undefined,
    ]);
    expect('attributes' in r.program.funcs[1]!).toBe(false);
    expect(unheld(r.program)).toEqual([]);
    expect(keepHeldContracts(r.program).program).toBe(r.program);
  });

  it('every pure/const attribute of every proven variant is ' +
    'granted on the final program and kept by every executed call', () => {
    let variants = 0;
    let carried = 0;
    let calls = 0;
    let dropped = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const g = generateProgram(seed, small, 'csmith');
      if (!g.ok) continue;
      for (const v of variantsOf(g, [1 + (seed % 10), 1 + ((seed + 3) % 10), 1 + ((seed + 6) % 10)])) {
        variants++;
        expect(unheld(v.program), `seed ${seed} variant ${v.index}`).toEqual([]);
        // The proof run again: with contracts on every executed call of an attributed function.
        const r = interpret(v.program);
        expect(r.ok ? r.output : `${r.ub.kind}: ${r.ub.detail?.message ?? ''}`, `seed ${seed} variant ${v.index}`).toBe(
          `${g.expected}\n`,
        );
        for (const f of v.program.funcs) {
          if (!promised(f)) continue;
          carried++;
          if (r.ok) calls += r.profile.stmtCounts.get(f.body.id) ?? 0;
        }
        dropped += v.contractsDropped.removed + v.contractsDropped.weakened;
      }
    }
    // 60 seeds (180 variants, 20 attributes, 195 calls, 1 contract dropped): the seeds are fixed, so
    // the counts are too.
    // Not vacuous: many variants, attributes on many functions, and calls of them that ran.
    const seen = `${variants} variants, ${carried} attributes, ${calls} calls, ${dropped} dropped`;
    expect(variants, seen).toBeGreaterThan(150);
    expect(carried, seen).toBeGreaterThan(15);
    expect(calls, seen).toBeGreaterThan(50);
    expect(dropped, seen).toBeGreaterThan(0);
  }, 600_000);
});

// The IR reducer keeps programs well typed. The GCC 12 -O2 hang of docs/bugs-found.md was
// published as `static int g_6 = 1UL;` with `&g_6` in a `uint64_t *` field: simplify-types made
// g_6 an `int` and left the pointer to it, which GCC 14 and later reject
// (-Wincompatible-pointer-types is an error there). The interpreter never sees such a mismatch
// (byte layout does not matter to it), so the candidate checker has to.
import { describe, expect, it } from 'vitest';
import { C } from '../../../src/c/types.js';
import { IRBuilder } from '../../../src/ir/build.js';
import type { Expr, Program, VarDecl } from '../../../src/ir/nodes.js';
import { pointerTo, sameType, unqualified, type Type } from '../../../src/ir/types.js';
import { walkProgram } from '../../../src/ir/visit.js';
import { checkCandidate } from '../../../src/reduce/ir/candidate.js';
import { reduceIR } from '../../../src/reduce/ir/engine.js';
import { irPasses } from '../../../src/reduce/ir/passes.js';
import { compileC } from '../../support/cc.js';

/** The hang's shape: a packed struct in a union whose `uint64_t *` field points at `uint64_t g_6`. */
function hangShape(): Program {
  const b = new IRBuilder();
  const s0 = b.struct(
    'S0',
    [
      { name: 'f0', type: C.uint64 },
      { name: 'f5', type: pointerTo(C.uint64) },
    ],
    true,
  );
  const u0 = b.union('U0', [{ name: 'f0', type: s0 }]);
  const g6 = b.global('g_6', C.uint64, b.lit(1n, C.uint64));
  const g14 = b.global('g_14', u0, b.list([b.list([b.lit(0n, C.uint64), b.addr(b.v(g6))])]));
  const main = b.func('main', C.int, [], b.block([b.hash(b.fld(b.fld(b.v(g14), 0), 0)), b.hash(b.v(g6))]));
  return b.program({ records: [s0, u0], globals: [g6, g14], funcs: [main], main });
}

function decl(p: Program, name: string): VarDecl {
  let d: VarDecl | undefined;
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl' && n.name === name) d = n;
  });
  if (!d) throw new Error(`no declaration ${name}`);
  return d;
}

/** Every `&x` in the program: its pointer type and the declared type of what it points at. */
function addresses(p: Program): { addr: Type; target: Type }[] {
  const out: { addr: Type; target: Type }[] = [];
  walkProgram(p, (n) => {
    if (n.kind === 'addr' && n.target.kind === 'var') {
      const d = decl(p, varName(p, n.target));
      out.push({ addr: n.type, target: d.type });
    }
  });
  return out;
}

function varName(p: Program, v: Expr & { kind: 'var' }): string {
  let name = '';
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl' && n.id === v.decl) name = n.name;
  });
  return name;
}

describe('IR reducer: well-typed candidates', () => {
  it("keeps the hang's `uint64_t *` field and `uint64_t` target consistent (g_6 used to become an int)", async () => {
    // The test keeps the pointer, as the hang needed it; everything else may go.
    const r = await reduceIR(hangShape(), async (c) => c.source.includes('&g_6'), { jobs: 1 });
    const g6 = decl(r.best.program, 'g_6');
    const s0 = r.best.program.records.find((x) => x.name === 'S0')!;
    const f5 = s0.fields.find((f) => f.name === 'f5')!.type;
    expect(f5.kind).toBe('ptr');
    if (f5.kind === 'ptr') expect(sameType(unqualified(g6.type), unqualified(f5.to))).toBe(true);
    // And a compiler that treats the mismatch as an error (as GCC 14 does by default) accepts it.
    const compiled = await compileC(r.best.source, {
      flags: ['-O0', '-Werror=incompatible-pointer-types', '-Werror=int-conversion'],
    });
    compiled.cleanup();
  });

  it('changes a variable and the pointer variables holding its address together', async () => {
    // uint64_t g = 5; uint64_t *p = &g; the checksum reads *p. simplify-types may make g an
    // int only if p becomes an int * with it.
    const b = new IRBuilder();
    const g = b.global('g', C.uint64, b.lit(5n, C.uint64));
    const p = b.global('p', pointerTo(C.uint64), b.addr(b.v(g)));
    const main = b.func('main', C.int, [], b.block([b.hash(b.deref(b.v(p)))]));
    const prog = b.program({ globals: [g, p], funcs: [main], main });
    const r = await reduceIR(prog, async (c) => c.source.includes('&g') && c.source.includes('*p'), {
      jobs: 1,
      passes: irPasses().filter((x) => x.name === 'simplify-types'),
    });
    expect(r.best.source).toMatch(/static int g = /);
    expect(r.best.source).toMatch(/static int \*p = &g;/);
    for (const a of addresses(r.best.program))
      expect(a.addr.kind === 'ptr' && sameType(unqualified(a.addr.to), unqualified(a.target))).toBe(true);
  });

  it('goes back to the last program that verify accepted, and never returns one it rejects', async () => {
    // Four globals hashed; the test accepts anything, the check wants a and d hashed. Removal in
    // halves drops a's and b's statements first, a commit the check rejects at the checkpoint.
    const b = new IRBuilder();
    const gs = ['a', 'b', 'c', 'd'].map((n, i) => b.global(n, C.int32, b.lit(BigInt(i + 1))));
    const main = b.func('main', C.int, [], b.block(gs.map((g) => b.hash(b.v(g)))));
    const p = b.program({ globals: gs, funcs: [main], main });
    const wants = (src: string): boolean =>
      src.includes('kiln_hash((uint64_t)(a))') && src.includes('kiln_hash((uint64_t)(d))');
    const verified: boolean[] = [];
    const r = await reduceIR(p, async () => true, {
      jobs: 1,
      verify: async (c) => {
        verified.push(wants(c.source));
        return wants(c.source);
      },
    });
    expect(wants(r.best.source)).toBe(true);
    expect(r.best.source).not.toMatch(/\(b\)|\(c\)/);
    expect(r.stats.reverts).toBeGreaterThan(0);
    expect(verified).toContain(false);
  });

  it('refuses a candidate whose retyped variable no longer matches a pointer it is stored in', () => {
    // The candidate simplify-types made before the fix: g_6 an int, the field still uint64_t *.
    const p = hangShape();
    const g6 = decl(p, 'g_6');
    const candidate: Program = { ...p, globals: p.globals.map((x) => (x.id === g6.id ? { ...x, type: C.int } : x)) };
    expect(checkCandidate(p, { maxSteps: 10_000 })).toBeDefined();
    expect(checkCandidate(candidate, { maxSteps: 10_000 })).toBeUndefined();
  });
});

// The control-flow measure of C text (src/reduce/text/flow.ts): small C functions with known
// figures, GNU computed gotos, and Kiln's own programs, whose text must measure as their IR does.
import { describe, expect, it } from 'vitest';
import { C } from '../../../src/c/types.js';
import { emitC } from '../../../src/emit/c.js';
import { parsePolicy } from '../../../src/gen/policy.js';
import { IRBuilder } from '../../../src/ir/build.js';
import { type FlowMeasure, functionFlow } from '../../../src/ir/flow.js';
import type { FuncDecl, Program, Stmt } from '../../../src/ir/nodes.js';
import { textFlow } from '../../../src/reduce/text/flow.js';
import { generateProgram } from '../../../src/repair/generate.js';
import { drawRelaxations, relaxProgram, relaxRng } from '../../../src/repair/relax.js';
import { plainC } from '../../support/cc.js';

/** The measure of the one function `f` of a C text. */
function measure(text: string): FlowMeasure {
  const f = textFlow(text).functions.get('f');
  if (!f) throw new Error('no function f');
  return f;
}

describe('control-flow measure of C text', () => {
  it('structured loops: one back edge each, nested three deep, continue and break adding none', () => {
    const m = measure(`
      int f(int n) {
        int x = 0;
        for (int i = 0; i < n; i++)
          while (x < 10) {
            if (x == 3) { x++; continue; }
            do x += 2; while (x < 5);
            if (x > 8) break;
          }
        return x;
      }`);
    expect(m).toEqual({
      functions: 1,
      backEdges: 3,
      naturalLoops: 3,
      irreducibleLoops: 0,
      gotoIntoLoops: 0,
      maxLoopNesting: 3,
      gotos: 0,
      indirectGotos: 0,
    });
  });

  it('a loop of gotos with two entries is irreducible; a backward goto alone is a natural loop', () => {
    expect(
      measure(`
        int f(int x) {
          if (x) goto b;
        a: x++;
        b: x += 2;
          if (x < 10) goto a;
          return x;
        }`),
    ).toMatchObject({ backEdges: 1, naturalLoops: 0, irreducibleLoops: 1, gotos: 2 });
    expect(measure('int f(int x) { again: x++; if (x < 3) goto again; return x; }')).toMatchObject({
      backEdges: 1,
      naturalLoops: 1,
      irreducibleLoops: 0,
      gotos: 1,
    });
  });

  it('a goto into the middle of a for body enters the loop from outside', () => {
    const m = measure(`
      int f(int x) {
        int i;
        if (x) goto mid;
        for (i = 0; i < 3; i++) {
          x++;
        mid:
          x += 2;
        }
        return x;
      }`);
    expect(m).toMatchObject({ irreducibleLoops: 1, gotoIntoLoops: 1, gotos: 1 });
  });

  it("Duff's device: the cases inside the do loop are entries of it", () => {
    const m = measure(`
      void f(char *to, const char *from, int count) {
        int n = (count + 7) / 8;
        switch (count % 8) {
        case 0: do { *to++ = *from++;
        case 7:      *to++ = *from++;
        case 6:      *to++ = *from++;
        case 5:      *to++ = *from++;
        case 4:      *to++ = *from++;
        case 3:      *to++ = *from++;
        case 2:      *to++ = *from++;
        case 1:      *to++ = *from++;
                } while (--n > 0);
        }
      }`);
    expect(m).toMatchObject({ backEdges: 1, naturalLoops: 0, irreducibleLoops: 1, maxLoopNesting: 1 });
  });

  it('a goto out of nested loops leaves them natural', () => {
    const m = measure(`
      int f(int x) {
        for (int i = 0; i < 5; i++)
          for (int j = 0; j < 5; j++) {
            if (x > 7) goto out;
            x++;
          }
      out:
        return x;
      }`);
    expect(m).toMatchObject({ backEdges: 2, naturalLoops: 2, irreducibleLoops: 0, maxLoopNesting: 2, gotos: 1 });
  });

  it('GNU goto *e jumps to every label whose address the function takes, and its lines are listed', () => {
    const text = [
      'int f(int x) {',
      '  static void *const t[] = { &&a, &&b };',
      'a: x++;',
      'b: x += 2;',
      '  if (x < 9)',
      '    goto *t[x % 2];',
      '  if (x < 20) goto *&&a;',
      '  goto c;',
      'c: return x;',
      '}',
    ].join('\n');
    const r = textFlow(text);
    // a: ... goto *{a, b} is a loop headed at a, with one headed at b inside it; each goto * has two back edges.
    expect(r.functions.get('f')).toMatchObject({
      gotos: 1,
      indirectGotos: 2,
      backEdges: 4,
      naturalLoops: 2,
      irreducibleLoops: 0,
      maxLoopNesting: 2,
    });
    expect(r.gotoLines).toEqual([8]);
    expect(r.indirectGotoLines).toEqual([6, 7]);
  });

  it('names functions through pointer declarators and adds them up', () => {
    const r = textFlow(`
      static int g;
      static int *const h(void) { while (g) g--; return &g; }
      int main(void) { for (;;) { if (h()) break; } return 0; }`);
    expect([...r.functions.keys()]).toEqual(['h', 'main']);
    expect(r.total).toMatchObject({ functions: 2, naturalLoops: 2, backEdges: 2, maxLoopNesting: 1 });
  });
});

/** Every function's indirect gotos share one table of labels (then GNU's rule gives the IR's edges). */
function oneTable(f: FuncDecl): boolean {
  const tables = new Set<string>();
  const visit = (s: Stmt): void => {
    if (s.kind === 'block') s.stmts.forEach(visit);
    else if (s.kind === 'if') {
      visit(s.then);
      if (s.else) visit(s.else);
    } else if (s.kind === 'for' || s.kind === 'switch') visit(s.body);
    else if (s.kind === 'igoto') tables.add([...new Set(s.labels)].join(','));
  };
  visit(f.body);
  return tables.size <= 1;
}

/** Checks the text of `p` against its IR, function by function; returns the IR's figures added up. */
function compare(p: Program): { gotos: number; irreducible: number; into: number } {
  const text = textFlow(emitC(p));
  const sum = { gotos: 0, irreducible: 0, into: 0 };
  for (const f of p.funcs) {
    const ir = functionFlow(f);
    const t = text.functions.get(f.name);
    // A goto *e of GNU C may reach every label whose address its function takes, not only those
    // of its own table: with two different tables in a function the text has more edges.
    if (oneTable(f)) expect(t, f.name).toEqual(ir);
    else expect(t, f.name).toMatchObject({ gotos: ir.gotos, indirectGotos: ir.indirectGotos });
    sum.gotos += ir.gotos;
    sum.irreducible += ir.irreducibleLoops;
    sum.into += ir.gotoIntoLoops;
  }
  // The rest of the file (the checksum helper, safe-math functions) has no loop and no jump.
  for (const [name, m] of text.functions)
    if (!p.funcs.some((f) => f.name === name)) expect(m, name).toMatchObject({ backEdges: 0, gotos: 0 });
  return sum;
}

describe("Kiln's programs measured as text and as IR", () => {
  it("agree on a goto *e through a table and on Duff's device, as the emitter prints them", () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int, b.lit(0));
    const bump = () => b.stmt(b.assign(b.v(x), b.lit(1), '+='));
    const A = b.label('A');
    const B = b.label('B');
    const jump = b.igoto([A, B], b.bin('%', b.v(x), b.lit(2)));
    const lt = (n: number) => b.bin('<', b.v(x), b.lit(n));
    const f = b.func(
      'f',
      C.int,
      [],
      b.block([
        b.if(b.v(x), b.block([b.goto(B)])),
        A,
        bump(),
        B,
        bump(),
        b.if(lt(9), b.block([jump])),
        b.ret(b.lit(0)),
      ]),
    );
    const duff = b.for(undefined, lt(40), undefined, b.block([bump(), b.case(2n), bump(), b.case(1n), bump()]), 'do');
    const g = b.func(
      'g',
      C.int,
      [],
      b.block([b.switch(b.bin('%', b.v(x), b.lit(3)), b.block([b.case(0n), duff])), b.ret(b.lit(0))]),
    );
    const main = b.func('main', C.int, [], b.block([b.stmt(b.call(f, [])), b.stmt(b.call(g, []))]));
    const p = b.program({ globals: [x], funcs: [f, g, main], main });
    expect(functionFlow(f)).toMatchObject({ indirectGotos: 1, irreducibleLoops: 1 });
    expect(functionFlow(g)).toMatchObject({ irreducibleLoops: 1 });
    compare(p);
  });

  it('agree on every figure, for generated programs and for relaxed ones (gotos anywhere)', () => {
    // Plain C: tree-sitter-c reads neither `_BitInt(N)` nor `__builtin_convertvector(v, T)`.
    const policy = plainC(parsePolicy({ relax: { enable: 1, goto: [0.5, 0.5] } }, 'small'));
    const seen = { gotos: 0, irreducible: 0, into: 0 };
    for (let seed = 1n; seed <= 6n; seed++) {
      const g = generateProgram(seed, policy, 'csmith');
      if (!g.ok) continue;
      const plain = compare(g.program);
      const rng = relaxRng(seed);
      const relaxed = compare(relaxProgram(g.program, drawRelaxations(policy, rng), rng).program);
      for (const k of ['gotos', 'irreducible', 'into'] as const) seen[k] += plain[k] + relaxed[k];
    }
    // The programs had jumps worth measuring.
    expect(seen.gotos).toBeGreaterThan(10);
    expect(seen.irreducible + seen.into).toBeGreaterThan(0);
  });
});

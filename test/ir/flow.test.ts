// The control-flow measure of the IR (src/ir/flow.ts) on hand-built functions: structured loops,
// loops made by gotos with one entry and with two, a goto into a loop's body, Duff's device,
// nesting, a goto out of nested loops, an indirect goto; and executed jumps from the interpreter.
import { describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { interpret } from '../../src/interp/interpret.js';
import { IRBuilder } from '../../src/ir/build.js';
import { executedJumps, functionFlow, type FlowMeasure, programFlow } from '../../src/ir/flow.js';
import type { Block, Stmt, VarDecl } from '../../src/ir/nodes.js';

/** A builder with one global `x`, and helpers for the statements the tests use. */
function setup() {
  const b = new IRBuilder();
  const x = b.global('x', C.int, b.lit(0));
  const i = b.local('i', C.int);
  const j = b.local('j', C.int);
  const k = b.local('k', C.int);
  const bump = (n = 1): Stmt => b.stmt(b.assign(b.v(x), b.lit(n), '+='));
  const below = (v: VarDecl, n: number) => b.bin('<', b.v(v), b.lit(n));
  /** `for (v = 0; v < n; v++) body`. */
  const count = (v: VarDecl, n: number, body: Block) =>
    b.for(b.assign(b.v(v), b.lit(0)), below(v, n), b.incdec('++', b.v(v), false), body);
  const measure = (stmts: Stmt[]): FlowMeasure =>
    functionFlow(b.func('f', C.int, [], b.block([...stmts, b.ret(b.lit(0))], [i, j, k])));
  return { b, x, i, j, k, bump, below, count, measure };
}

describe('control-flow measure of IR functions', () => {
  it('a structured loop: one back edge, one natural loop, nothing irreducible', () => {
    const { b, i, bump, count, measure } = setup();
    expect(measure([count(i, 3, b.block([bump()]))])).toEqual({
      functions: 1,
      backEdges: 1,
      naturalLoops: 1,
      irreducibleLoops: 0,
      gotoIntoLoops: 0,
      maxLoopNesting: 1,
      gotos: 0,
      indirectGotos: 0,
    });
  });

  it('continue and break add no back edge; a do loop and a for (;;) are loops too', () => {
    const { b, x, i, bump, below, count, measure } = setup();
    const loop = count(
      i,
      9,
      b.block([b.if(below(x, 2), b.block([b.cont()])), bump(), b.if(below(x, 0), b.block([b.brk()]))]),
    );
    const doLoop = b.for(undefined, below(x, 20), undefined, b.block([bump()]), 'do');
    const forever = b.for(undefined, undefined, undefined, b.block([bump(), b.if(below(x, 30), b.block([b.brk()]))]));
    expect(measure([loop, doLoop, forever])).toMatchObject({ backEdges: 3, naturalLoops: 3, irreducibleLoops: 0 });
  });

  it('a loop of two gotos entered at two labels is irreducible', () => {
    const { b, x, bump, below, measure } = setup();
    // if (x) goto B; A: x += 1; B: x += 1; if (x < 10) goto A;
    const A = b.label('A');
    const B = b.label('B');
    const m = measure([
      b.if(b.v(x), b.block([b.goto(B)])),
      A,
      bump(),
      B,
      bump(),
      b.if(below(x, 10), b.block([b.goto(A)])),
    ]);
    expect(m).toMatchObject({ backEdges: 1, naturalLoops: 0, irreducibleLoops: 1, maxLoopNesting: 1, gotos: 2 });
  });

  it('a backward goto alone makes a natural loop', () => {
    const { b, below, x, bump, measure } = setup();
    const L = b.label('L');
    const m = measure([L, bump(), b.if(below(x, 3), b.block([b.goto(L)]))]);
    expect(m).toMatchObject({ backEdges: 1, naturalLoops: 1, irreducibleLoops: 0, gotoIntoLoops: 0, gotos: 1 });
  });

  it('a goto into the middle of a for body: a second entry, unless the loop is only entered there', () => {
    const { b, x, i, bump, count, measure } = setup();
    // if (x) goto L; for (i = 0; i < 3; i++) { x += 1; L: ; x += 2; }
    const L = b.label('L');
    const m = measure([b.if(b.v(x), b.block([b.goto(L)])), count(i, 3, b.block([bump(), L, bump(2)]))]);
    expect(m).toMatchObject({ backEdges: 1, naturalLoops: 0, irreducibleLoops: 1, gotoIntoLoops: 1, gotos: 1 });

    // goto L; for (...) { x += 1; L: ; x += 2; }: the loop's head is unreachable, L its only entry.
    const s = setup();
    const L2 = s.b.label('L');
    const m2 = s.measure([s.b.goto(L2), s.count(s.i, 3, s.b.block([s.bump(), L2, s.bump(2)]))]);
    expect(m2).toMatchObject({ backEdges: 1, naturalLoops: 1, irreducibleLoops: 0, gotoIntoLoops: 1, gotos: 1 });
  });

  it("Duff's device: cases inside the do loop of the switch are entries of that loop", () => {
    const { b, x, bump, measure } = setup();
    // switch (x % 4) { case 0: do { x += 1; case 3: x += 1; case 2: x += 1; case 1: x += 1; } while (x < 40); }
    const body = b.block([bump(), b.case(3n), bump(), b.case(2n), bump(), b.case(1n), bump()]);
    const loop = b.for(undefined, b.bin('<', b.v(x), b.lit(40)), undefined, body, 'do');
    const sw = b.switch(b.bin('%', b.v(x), b.lit(4)), b.block([b.case(0n), loop]));
    expect(measure([sw])).toMatchObject({
      backEdges: 1,
      naturalLoops: 0,
      irreducibleLoops: 1,
      maxLoopNesting: 1,
      gotos: 0,
      gotoIntoLoops: 0,
    });
  });

  it('loops nested three deep', () => {
    const { b, i, j, k, bump, count, measure } = setup();
    const m = measure([count(i, 2, b.block([count(j, 2, b.block([count(k, 2, b.block([bump()]))])), bump()]))]);
    expect(m).toMatchObject({ backEdges: 3, naturalLoops: 3, irreducibleLoops: 0, maxLoopNesting: 3 });
  });

  it('a goto out of two nested loops leaves them natural', () => {
    const { b, x, i, j, bump, below, count, measure } = setup();
    const out = b.label('out');
    const inner = count(j, 5, b.block([b.if(b.un('!', below(x, 5)), b.block([b.goto(out)])), bump()]));
    const m = measure([count(i, 5, b.block([inner])), out]);
    expect(m).toMatchObject({
      backEdges: 2,
      naturalLoops: 2,
      irreducibleLoops: 0,
      gotoIntoLoops: 0,
      maxLoopNesting: 2,
      gotos: 1,
    });
  });

  it('an indirect goto has an edge to each label of its table', () => {
    const { b, x, bump, below, measure } = setup();
    // A: x += 1; B: x += 2; if (x < 9) goto *{A, B}[x % 2];
    const A = b.label('A');
    const B = b.label('B');
    const jump = b.igoto([A, B], b.bin('%', b.v(x), b.lit(2)));
    const m = measure([b.if(b.v(x), b.block([b.goto(B)])), A, bump(), B, bump(2), b.if(below(x, 9), b.block([jump]))]);
    expect(m).toMatchObject({ irreducibleLoops: 1, gotos: 1, indirectGotos: 1 });
  });

  it('sums functions and counts executed gotos from the profile', () => {
    const { b, x, bump, below } = setup();
    // f: L: x += 1; if (x < 3) goto L;   main: f(); f();
    const L = b.label('L');
    const f = b.func('f', C.int, [], b.block([L, bump(), b.if(below(x, 3), b.block([b.goto(L)])), b.ret(b.lit(0))]));
    const main = b.func('main', C.int, [], b.block([b.stmt(b.call(f, [])), b.stmt(b.call(f, [])), b.hash(b.v(x))]));
    const p = b.program({ globals: [x], funcs: [f, main], main });
    expect(programFlow(p)).toMatchObject({ functions: 2, naturalLoops: 1, gotos: 1, maxLoopNesting: 1 });
    const r = interpret(p);
    expect(r.ok).toBe(true);
    // x = 1, 2 jump back; 3 does not; the second call adds 4 without a jump.
    expect(executedJumps(p, r.profile.stmtCounts)).toEqual({ executedGotos: 2, executedIndirectGotos: 0 });
  });
});

// One test per repair rule, one recipe: a minimal program with one UB site → the interpreter's
// report → one repair → the expected rewrite, and a clean run afterwards.
import { structuralError } from '../../src/ir/validate.js';
import { describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { emitC, printExpr } from '../../src/emit/c.js';
import { IRBuilder } from '../../src/ir/build.js';
import { isExpr, type Expr, type FuncDecl, type Program, type Stmt, type VarDecl } from '../../src/ir/nodes.js';
import { arrayOf, pointerTo } from '../../src/ir/types.js';
import { walkProgram } from '../../src/ir/visit.js';
import { interpret, type RunOutcome } from '../../src/interp/interpret.js';
import { Editor } from '../../src/repair/edit.js';
import { repairOnce } from '../../src/repair/repair.js';
import { RepairState } from '../../src/repair/state.js';

function program(
  b: IRBuilder,
  globals: VarDecl[],
  stmts: Stmt[],
  locals: VarDecl[] = [],
  funcs: FuncDecl[] = [],
): Program {
  const main = b.func('main', C.int, [], b.block(stmts, locals));
  return b.program({ globals, funcs: [...funcs, main], main });
}

/** Runs, repairs the first report once, and returns the rule, the new program and its run. */
function repairFirst(
  p: Program,
  st = new RepairState('t', 3),
  maxSteps?: number,
): { rule: string; program: Program; after: RunOutcome } {
  const r = interpret(p, maxSteps ? { limits: { maxSteps } } : {});
  if (r.ok) throw new Error('expected UB');
  const ed = new Editor(p);
  const fixed = repairOnce(ed, r.ub, r.profile, st);
  if (!fixed) throw new Error(`no rule for ${r.ub.kind}`);
  return {
    rule: fixed.rule,
    program: fixed.program,
    after: interpret(fixed.program, maxSteps ? { limits: { maxSteps } } : {}),
  };
}

/** The C text of every expression statement of main, for shape assertions. */
function mainText(p: Program): string {
  return emitC(p).split('int main(void)')[1]!;
}

function nodeText(p: Program, pred: (e: Expr) => boolean): string[] {
  const names = {
    vars: new Map<number, string>(),
    labels: new Map<number, string>(),
    funcs: new Map<number, string>(),
    prefix: '',
  };
  walkProgram(p, (n) => {
    if (n.kind === 'var-decl') names.vars.set(n.id, n.name);
  });
  const out: string[] = [];
  walkProgram(p, (n) => {
    if (isExpr(n) && pred(n)) out.push(printExpr(n, names));
  });
  return out;
}

describe('arithmetic rules (YARPGen Table 1, then safe math)', () => {
  it('rewrite-flip-add-sub: a + b overflowing becomes a - b', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(2147483000));
    const y = b.global('y', C.int32, b.lit(1000));
    const r = repairFirst(program(b, [x, y], [b.stmt(b.assign(b.v(x), b.bin('+', b.v(x), b.v(y)))), b.hash(b.v(x))]));
    expect(r.rule).toBe('rewrite-flip-add-sub');
    expect(mainText(r.program)).toContain('x = (x - y);');
    expect(r.after.ok).toBe(true);
  });

  it('rewrite-mul-to-div: a * b overflowing becomes a / b; MIN * -1 becomes a - b', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(100000));
    const r = repairFirst(program(b, [x], [b.stmt(b.assign(b.v(x), b.bin('*', b.v(x), b.v(x)))), b.hash(b.v(x))]));
    expect(r.rule).toBe('rewrite-mul-to-div');
    expect(mainText(r.program)).toContain('x = (x / x);');
    const b2 = new IRBuilder();
    const m = b2.global('m', C.int32, b2.lit(-(2n ** 31n)));
    const n = b2.global('n', C.int32, b2.lit(-1));
    const r2 = repairFirst(
      program(b2, [m, n], [b2.stmt(b2.assign(b2.v(m), b2.bin('*', b2.v(m), b2.v(n)))), b2.hash(b2.v(m))]),
    );
    expect(mainText(r2.program)).toContain('m = (m - n);');
    expect(r2.after.ok).toBe(true);
  });

  it('rewrite-div-by-zero-to-mul and rewrite-min-div-minus-one-to-sub', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(7));
    const z = b.global('z', C.int32, b.lit(0));
    const r = repairFirst(program(b, [x, z], [b.stmt(b.assign(b.v(x), b.bin('%', b.v(x), b.v(z)))), b.hash(b.v(x))]));
    expect(r.rule).toBe('rewrite-div-by-zero-to-mul');
    expect(mainText(r.program)).toContain('x = (x * z);');
    const b2 = new IRBuilder();
    const m = b2.global('m', C.int64, b2.lit(-(2n ** 63n), C.int64));
    const n = b2.global('n', C.int64, b2.lit(-1, C.int64));
    const r2 = repairFirst(
      program(b2, [m, n], [b2.stmt(b2.assign(b2.v(m), b2.bin('/', b2.v(m), b2.v(n)))), b2.hash(b2.v(m))]),
    );
    expect(r2.rule).toBe('rewrite-min-div-minus-one-to-sub');
    expect(r2.after.ok).toBe(true);
  });

  it('rewrite-neg-to-plus and rewrite-flip-incdec', () => {
    const b = new IRBuilder();
    const m = b.global('m', C.int32, b.lit(-(2n ** 31n)));
    const r = repairFirst(program(b, [m], [b.stmt(b.assign(b.v(m), b.un('-', b.v(m)))), b.hash(b.v(m))]));
    expect(r.rule).toBe('rewrite-neg-to-plus');
    expect(r.after.ok).toBe(true);
    const b2 = new IRBuilder();
    const x = b2.global('x', C.int32, b2.lit(2147483647));
    const r2 = repairFirst(program(b2, [x], [b2.stmt(b2.incdec('++', b2.v(x), false)), b2.hash(b2.v(x))]));
    expect(r2.rule).toBe('rewrite-flip-incdec');
    expect(mainText(r2.program)).toContain('x--;');
  });

  it('rewrite-shift-count-minus/plus: the new count is in [0, width) and the result representable', () => {
    for (const [count, rule] of [
      [40n, 'rewrite-shift-count-minus'],
      [-3n, 'rewrite-shift-count-plus'],
    ] as const) {
      const b = new IRBuilder();
      const x = b.global('x', C.int32, b.lit(1000));
      const c = b.global('c', C.int32, b.lit(count));
      const r = repairFirst(
        program(b, [x, c], [b.stmt(b.assign(b.v(x), b.bin('<<', b.v(x), b.v(c)))), b.hash(b.v(x))]),
      );
      expect(r.rule).toBe(rule);
      // 1000 has 10 significant bits: a signed 32-bit left shift must stay below 31 - 10 + 1 = 22.
      expect(r.after.ok).toBe(true);
    }
  });

  it('rewrite-shift-mask-sign: a negative left operand of << becomes (a & MAX)', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(-8));
    const r = repairFirst(program(b, [x], [b.stmt(b.assign(b.v(x), b.bin('<<', b.v(x), b.lit(2)))), b.hash(b.v(x))]));
    expect(r.rule).toBe('rewrite-shift-mask-sign');
    expect(mainText(r.program)).toContain('(x & 2147483647) << 2');
    // 0x7FFFFFF8 << 2 now overflows instead: the next repair adjusts the count.
    expect(r.after.ok ? 'none' : r.after.ub.kind).toBe('shift-overflow');
  });

  it('wrap-safe-math after the rewrites keep failing at one site', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(2147483000));
    const y = b.global('y', C.int32, b.lit(1000));
    const st = new RepairState('t', 0); // no rewrites allowed: the first repair is the wrapper
    const r = repairFirst(
      program(b, [x, y], [b.stmt(b.assign(b.v(x), b.bin('+', b.v(x), b.v(y)))), b.hash(b.v(x))]),
      st,
    );
    expect(r.rule).toBe('wrap-safe-math');
    expect(mainText(r.program)).toContain('x = kiln_add_i32(x, y);');
    expect(r.after.ok).toBe(true);
  });
});

describe('memory rules', () => {
  it('clamp-constant-index and wrap-index-modulo', () => {
    const b = new IRBuilder();
    const a = b.global('a', arrayOf(C.int32, 4), b.list([]));
    const r = repairFirst(program(b, [a], [b.hash(b.idx(b.v(a), b.lit(6)))]));
    expect(r.rule).toBe('clamp-constant-index');
    expect(mainText(r.program)).toContain('a[2]');
    const b2 = new IRBuilder();
    const a2 = b2.global('a', arrayOf(C.int32, 4), b2.list([]));
    const i = b2.global('i', C.int32, b2.lit(-5));
    const r2 = repairFirst(program(b2, [a2, i], [b2.hash(b2.idx(b2.v(a2), b2.v(i)))]));
    expect(r2.rule).toBe('wrap-index-modulo');
    expect(mainText(r2.program)).toContain('a[(((uint32_t)i) % 4U)]');
    expect(r2.after.ok).toBe(true);
  });

  it('clamp-constant-index and wrap-index-modulo on a computed goto outside its table', () => {
    const b = new IRBuilder();
    const s = b.global('s', C.int32, b.lit(0));
    const [l0, l1] = [b.label('lbl_0'), b.label('lbl_1')];
    const jump = b.igoto([l0, l1], b.lit(5));
    const tail = [l0, b.stmt(b.assign(b.v(s), b.lit(1), '+=')), l1, b.hash(b.v(s))];
    const r = repairFirst(program(b, [s], [jump, ...tail]));
    expect(r.rule).toBe('clamp-constant-index');
    expect(mainText(r.program)).toContain(`goto *tbl_${jump.id}[1];`);
    expect(r.after.ok).toBe(true);
    const b2 = new IRBuilder();
    const i = b2.global('i', C.int32, b2.lit(-5));
    const ls = [b2.label('lbl_0'), b2.label('lbl_1'), b2.label('lbl_2')];
    const jump2 = b2.igoto(ls, b2.v(i));
    const r2 = repairFirst(program(b2, [i], [jump2, ...ls, b2.hash(b2.v(i))]));
    expect(r2.rule).toBe('wrap-index-modulo');
    expect(mainText(r2.program)).toContain(`goto *tbl_${jump2.id}[((uint32_t)i) % 3U];`);
    expect(r2.after.ok).toBe(true);
  });

  it('repoint-to-global: the null pointer a dereference came from points at a global instead', () => {
    const b = new IRBuilder();
    const p = b.global('p', pointerTo(C.int32), b.nullptr(pointerTo(C.int32)));
    const r = repairFirst(program(b, [p], [b.hash(b.deref(b.v(p)))]));
    expect(r.rule).toBe('repoint-to-global');
    expect(r.after.ok).toBe(true);
    // The new target is declared before the pointer that refers to it.
    const src = emitC(r.program);
    expect(src.indexOf('static int32_t g_r')).toBeLessThan(src.indexOf('static int32_t *p'));
  });

  it('replace-deref-with-global once the origin was already re-pointed', () => {
    const b = new IRBuilder();
    const p = b.global('p', pointerTo(C.int32), b.nullptr(pointerTo(C.int32)));
    const st = new RepairState('t', 0);
    const r = repairFirst(program(b, [p], [b.hash(b.deref(b.v(p)))]), st);
    expect(r.rule).toBe('replace-deref-with-global');
    expect(r.after.ok).toBe(true);
  });

  it('replace-uninitialised-read, compound-to-plain-assign, add-missing-return', () => {
    const b = new IRBuilder();
    const l = b.local('l', C.int32);
    const g = b.global('g', C.int32, b.lit(1));
    const r = repairFirst(program(b, [g], [b.stmt(b.assign(b.v(g), b.v(l))), b.hash(b.v(g))], [l]));
    expect(r.rule).toBe('replace-uninitialised-read');
    expect(r.after.ok).toBe(true);
    const b2 = new IRBuilder();
    const l2 = b2.local('l', C.int32);
    const r2 = repairFirst(program(b2, [], [b2.stmt(b2.assign(b2.v(l2), b2.lit(3), '+='))], [l2]));
    expect(r2.rule).toBe('compound-to-plain-assign');
    expect(r2.after.ok).toBe(true);
    const b3 = new IRBuilder();
    const f = b3.func('f', C.int32, [], b3.block([b3.stmt(b3.lit(1))]));
    const r3 = repairFirst(program(b3, [], [b3.stmt(b3.call(f, []))], [], [f]));
    expect(r3.rule).toBe('add-missing-return');
    expect(r3.after.ok).toBe(true);
  });

  it('hash-active-union-member: the checksum reads the member last stored', () => {
    const b = new IRBuilder();
    const U = b.union('U0', [
      { name: 'f0', type: C.int32 },
      { name: 'f1', type: C.int16 },
    ]);
    const u = b.global('u', U, b.list([b.lit(1)]));
    const r = repairFirst(
      program(b, [u], [b.stmt(b.assign(b.fld(b.v(u), 'f1'), b.lit(7, C.int16))), b.hash(b.fld(b.v(u), 'f0'))]),
    );
    expect(r.rule).toBe('hash-active-union-member');
    expect(mainText(r.program)).toContain('kiln_hash((uint64_t)(u.f1));');
    expect(r.after.ok).toBe(true);
  });

  it('replace-inactive-union-read outside the checksum', () => {
    const b = new IRBuilder();
    const U = b.union('U0', [
      { name: 'f0', type: C.int32 },
      { name: 'f1', type: C.int16 },
    ]);
    const u = b.global('u', U, b.list([b.lit(1)]));
    const g = b.global('g', C.int32, b.lit(0));
    const r = repairFirst(program(b, [u, g], [b.stmt(b.assign(b.v(g), b.fld(b.v(u), 'f1'))), b.hash(b.v(g))]));
    expect(r.rule).toBe('replace-inactive-union-read');
    expect(r.after.ok).toBe(true);
  });

  it('drop-const-store: a write through a pointer that lost const', () => {
    const b = new IRBuilder();
    const cg = b.global('cg', { ...C.int32, const: true }, b.lit(1));
    const sneaky: Expr = { kind: 'addr', id: b.id(), type: pointerTo(C.int32), target: b.v(cg) };
    const r = repairFirst(program(b, [cg], [b.stmt(b.assign(b.deref(sneaky), b.lit(2)))]));
    expect(r.rule).toBe('drop-const-store');
    expect(r.after.ok).toBe(true);
  });
});

describe('evaluation-order rules', () => {
  it('hoist-call-to-temporary: t = f(); x = t + g;', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int32, b.lit(0));
    const x = b.global('x', C.int32, b.lit(0));
    const f = b.func('f', C.int32, [], b.block([b.stmt(b.assign(b.v(g), b.lit(7))), b.ret(b.lit(1))]));
    const r = repairFirst(
      program(b, [g, x], [b.stmt(b.assign(b.v(x), b.bin('+', b.v(g), b.call(f, [])))), b.hash(b.v(x))], [], [f]),
    );
    expect(r.rule).toBe('hoist-call-to-temporary');
    const text = mainText(r.program);
    expect(text).toMatch(/t_\d+ = f\(\);\n\s+x = \(g \+ t_\d+\);/);
    expect(r.after.ok).toBe(true);
  });

  it('hoist-call-to-temporary in a switch body declares the temporary at the top of the function', () => {
    // A switch maze's statements sit directly in the switch body, which declares nothing: a
    // temporary declared there was never printed (a program that did not compile).
    const b = new IRBuilder();
    const g = b.global('g', C.int32, b.lit(0));
    const x = b.global('x', C.int32, b.lit(0));
    const f = b.func('f', C.int32, [], b.block([b.stmt(b.assign(b.v(g), b.lit(7))), b.ret(b.lit(1))]));
    const arm = b.stmt(b.assign(b.v(x), b.bin('+', b.v(g), b.call(f, []))));
    const sw = b.switch(b.v(g), b.block([b.case(0n), arm, b.brk(), b.case()]));
    const r = repairFirst(program(b, [g, x], [sw, b.hash(b.v(x))], [], [f]));
    expect(r.rule).toBe('hoist-call-to-temporary');
    expect(structuralError(r.program)).toBeUndefined();
    const main = r.program.funcs.find((fn) => fn.id === r.program.main)!;
    expect(main.body.locals.map((d) => d.name)).toEqual([expect.stringMatching(/^t_\d+$/)]);
    expect(mainText(r.program)).toMatch(/int32_t t_(\d+);[\s\S]*case 0:\n\s+t_\1 = f\(\);/);
    expect(r.after.ok).toBe(true);
  });

  it('hoist-call-to-temporary in the index of a computed goto: t = f(); goto *tbl[g + t];', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int32, b.lit(0));
    const f = b.func('f', C.int32, [], b.block([b.stmt(b.assign(b.v(g), b.lit(1))), b.ret(b.lit(0))]));
    const ls = [b.label('lbl_0'), b.label('lbl_1')];
    const jump = b.igoto(ls, b.bin('+', b.v(g), b.call(f, [])));
    const r = repairFirst(program(b, [g], [jump, ls[0]!, ls[1]!, b.hash(b.v(g))], [], [f]));
    expect(r.rule).toBe('hoist-call-to-temporary');
    expect(mainText(r.program)).toMatch(/t_(\d+) = f\(\);\n.*goto \*tbl_\d+\[g \+ t_\1\];/);
    expect(r.after.ok).toBe(true);
  });

  it('replace-effectful-operand when there is no call to hoist: x + (x = 1)', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.int32, b.lit(0));
    const y = b.global('y', C.int32, b.lit(0));
    const r = repairFirst(
      program(b, [x, y], [b.stmt(b.assign(b.v(y), b.bin('+', b.v(x), b.assign(b.v(x), b.lit(1))))), b.hash(b.v(y))]),
    );
    expect(r.rule).toBe('replace-effectful-operand');
    expect(r.after.ok).toBe(true);
  });

  it('replace-effectful-operand keeps assignment targets as objects: a[i] = i++', () => {
    const b = new IRBuilder();
    const a = b.global('a', arrayOf(C.int32, 4), b.list([]));
    const i = b.global('i', C.int32, b.lit(0));
    const r = repairFirst(program(b, [a, i], [b.stmt(b.assign(b.idx(b.v(a), b.v(i)), b.incdec('++', b.v(i), false)))]));
    expect(r.rule).toBe('replace-effectful-operand');
    expect(r.after.ok).toBe(true);
    expect(nodeText(r.program, (e) => e.kind === 'assign').length).toBe(1);
  });
});

describe('termination rules', () => {
  const loopProgram = (bodyResets: boolean) => {
    const b = new IRBuilder();
    const i = b.global('i', C.int32, b.lit(0));
    const s = b.global('s', C.int32, b.lit(0));
    const body: Stmt[] = [b.stmt(b.assign(b.v(s), b.lit(1), '^='))];
    if (bodyResets) body.push(b.stmt(b.assign(b.v(i), b.lit(0))));
    const loop = b.for(
      b.assign(b.v(i), b.lit(0)),
      b.bin('<', b.v(i), b.lit(bodyResets ? 5 : 400_000)),
      b.incdec('++', b.v(i), false),
      b.block(body),
    );
    return program(b, [i, s], [loop, b.hash(b.v(s))]);
  };

  it('fresh-induction-variable: a body that resets the counter no longer makes the loop infinite', () => {
    const r = repairFirst(loopProgram(true), new RepairState('t', 3), 10_000);
    expect(r.rule).toBe('fresh-induction-variable');
    expect(r.after.ok).toBe(true);
    expect(mainText(r.program)).toMatch(/for \(i_r\d+ = 0; i_r\d+ < 5; i_r\d+\+\+\)/);
  });

  it('shrink-loop-trip-count: a terminating but too long loop runs an eighth as often', () => {
    const r = repairFirst(loopProgram(false), new RepairState('t', 3), 200_000);
    expect(r.rule).toBe('shrink-loop-trip-count');
    expect(mainText(r.program)).toContain('i < 50000');
    expect(r.after.ok).toBe(true);
  });

  it('remove-hot-goto: a backward goto loop is removed', () => {
    const b = new IRBuilder();
    const s = b.global('s', C.int32, b.lit(0));
    const lbl = b.label('lbl_1');
    const prog = program(
      b,
      [s],
      [lbl, b.stmt(b.assign(b.v(s), b.lit(1), '^=')), b.if(b.lit(1), b.block([b.goto(lbl)])), b.hash(b.v(s))],
    );
    const r = repairFirst(prog, new RepairState('t', 3), 10_000);
    expect(r.rule).toBe('remove-hot-goto');
    expect(r.after.ok).toBe(true);
  });

  it('remove-hot-goto: a goto loop whose steps are spread over many statements is removed too', () => {
    // 40 statements per trip round the loop: the goto itself carries under 5% of the steps.
    const b = new IRBuilder();
    const s = b.global('s', C.int32, b.lit(0));
    const lbl = b.label('lbl_1');
    const body = Array.from({ length: 40 }, () => b.stmt(b.assign(b.v(s), b.lit(1), '^=')));
    const prog = program(b, [s], [lbl, ...body, b.if(b.lit(1), b.block([b.goto(lbl)])), b.hash(b.v(s))]);
    const r = repairFirst(prog, new RepairState('t', 3), 10_000);
    expect(r.rule).toBe('remove-hot-goto');
    expect(r.after.ok).toBe(true);
  });

  it('remove-hot-goto: a backward computed goto loop is removed like a goto', () => {
    const b = new IRBuilder();
    const s = b.global('s', C.int32, b.lit(0));
    const [top, out] = [b.label('lbl_1'), b.label('lbl_2')];
    const jump = b.igoto([out, top], b.lit(1));
    const prog = program(b, [s], [top, b.stmt(b.assign(b.v(s), b.lit(1), '^=')), jump, out, b.hash(b.v(s))]);
    const r = repairFirst(prog, new RepairState('t', 3), 10_000);
    expect(r.rule).toBe('remove-hot-goto');
    expect(mainText(r.program)).not.toContain('goto *');
    expect(r.after.ok).toBe(true);
  });

  it('replace-hot-call: exponential call fan-out without loops', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int32, b.lit(0));
    let callee = b.func('f0', C.int32, [], b.block([b.stmt(b.assign(b.v(g), b.lit(1), '+=')), b.ret(b.lit(1))]));
    const funcs = [callee];
    for (let k = 1; k < 14; k++) {
      const prev = callee;
      callee = b.func(
        `f${k}`,
        C.int32,
        [],
        b.block([b.stmt(b.call(prev, [])), b.stmt(b.call(prev, [])), b.ret(b.lit(1))]),
      );
      funcs.push(callee);
    }
    const prog = program(b, [g], [b.stmt(b.call(callee, [])), b.hash(b.v(g))], [], funcs);
    const r = repairFirst(prog, new RepairState('t', 3), 20_000);
    expect(r.rule).toBe('replace-hot-call');
  });
});

describe('floating-point rules (exactness, Nagai et al. B4)', () => {
  it('float-keep-operand: an inexact float sum becomes its operand of the same type', () => {
    const b = new IRBuilder();
    const x = b.global('x', C.float, b.lit(16777216, C.float));
    const y = b.global('y', C.float, b.lit(1, C.float));
    const r = repairFirst(program(b, [x, y], [b.stmt(b.assign(b.v(x), b.bin('+', b.v(x), b.v(y)))), b.hash(b.v(x))]));
    expect(r.rule).toBe('float-keep-operand');
    // The operand the assignment does not store to: `x = x;` would be clang's -Wself-assign.
    expect(mainText(r.program)).toContain('x = y;');
    expect(r.after.ok).toBe(true);
  });

  it('float-replace-with-zero: an out-of-range conversion to an integer type becomes 0', () => {
    const b = new IRBuilder();
    const d = b.global('d', C.double, b.lit(1e12, C.double));
    const i = b.global('i', C.int32, b.lit(0));
    const r = repairFirst(program(b, [d, i], [b.stmt(b.assign(b.v(i), b.cast(C.int32, b.v(d)))), b.hash(b.v(i))]));
    expect(r.rule).toBe('float-replace-with-zero');
    expect(mainText(r.program)).toContain('i = 0;');
    expect(r.after.ok).toBe(true);
  });

  it('an implicit conversion in an assignment is reported at its value and repaired', () => {
    const b = new IRBuilder();
    const f = b.global('f', C.float, b.lit(0, C.float));
    const big = b.global('big', C.int32, b.lit(16777217));
    const r = repairFirst(program(b, [f, big], [b.stmt(b.assign(b.v(f), b.v(big))), b.hash(b.v(f))]));
    expect(r.rule).toBe('float-replace-with-zero');
    expect(r.after.ok).toBe(true);
  });
});

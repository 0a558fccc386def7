// The interpreter holds every executed call of a `pure` or `const` function to its contract:
// a pure call writes only objects created during it (its own and its callees' locals and
// parameters) and touches nothing volatile; a const call also reads only such objects. A
// violation is the UB kind `attribute-contract` at the access, so an EMI variant that breaks an
// attribute fails its proof.
import { describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { IRBuilder } from '../../src/ir/build.js';
import type { Expr, FuncAttr, FuncDecl, Program, Stmt, VarDecl } from '../../src/ir/nodes.js';
import { pointerTo, qualify } from '../../src/ir/types.js';
import { interpret } from '../../src/interp/interpret.js';

function withAttr(f: FuncDecl, name: 'pure' | 'const' | 'noinline'): FuncDecl {
  return { ...f, attributes: [{ name } as FuncAttr] };
}

/** Runs `main { locals; stmts }` with the given globals and functions; main hashes global `out` if given. */
function run(b: IRBuilder, globals: VarDecl[], funcs: FuncDecl[], stmts: Stmt[], locals: VarDecl[] = []) {
  const main = b.func('main', C.int, [], b.block(stmts, locals), undefined, false);
  const p: Program = b.program({ globals, funcs: [...funcs, main], main });
  return interpret(p);
}

function expectViolation(r: ReturnType<typeof interpret>, at: Expr | Stmt, text: string): void {
  expect(r.ok ? 'clean' : r.ub.kind).toBe('attribute-contract');
  if (r.ok) return;
  expect(r.ub.node).toBe(at.id);
  expect(r.ub.detail?.message).toContain(text);
}

function expectClean(r: ReturnType<typeof interpret>): void {
  expect(r.ok ? 'clean' : `${r.ub.kind}: ${r.ub.detail?.message ?? ''}`).toBe('clean');
}

describe('pure and const contracts, checked on every executed call', () => {
  it('pure: writing a global is a violation, reading one is not; without the attribute both are clean', () => {
    for (const attr of ['pure', 'const', 'noinline'] as const) {
      const b = new IRBuilder();
      const g = b.global('g', C.int, b.lit(5));
      const x = b.param('x', C.int);
      const read = b.v(g);
      const reads = b.func('reads', C.int, [x], b.block([b.ret(b.bin('+', b.v(x), read))]));
      const y = b.param('y', C.int);
      const write = b.assign(b.v(g), b.v(y));
      const writes = b.func('writes', C.int, [y], b.block([b.stmt(write), b.ret(b.v(y))]));
      const r1 = run(b, [g], [withAttr(reads, attr)], [b.stmt(b.call(reads, [b.lit(1)])), b.hash(b.v(g))]);
      const r2 = run(b, [g], [withAttr(writes, attr)], [b.stmt(b.call(writes, [b.lit(1)])), b.hash(b.v(g))]);
      if (attr === 'noinline') {
        expectClean(r1);
        expectClean(r2);
      } else {
        expectViolation(r2, write, `writes (${attr}) writes an object it did not create`);
        if (attr === 'pure') expectClean(r1);
        else expectViolation(r1, read, 'reads (const) reads an object it did not create');
      }
    }
  });

  it('own locals: a pure or const call writes and reads its locals and parameters, and its callees theirs', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int, b.lit(0));
    // inner(p): { int t = p; t += 3; return t; }, outer(q): { int u = q * 2; u = inner(u) + u; return u; }
    const p = b.param('p', C.int);
    const t = b.local('t', C.int, b.v(p));
    const inner = b.func('inner', C.int, [p], b.block([b.stmt(b.assign(b.v(t), b.lit(3), '+=')), b.ret(b.v(t))], [t]));
    const q = b.param('q', C.int);
    const u = b.local('u', C.int, b.bin('*', b.v(q), b.lit(2)));
    const loopVar = b.local('i', C.int, b.lit(0));
    const outer = b.func(
      'outer',
      C.int,
      [q],
      b.block(
        [
          b.for(
            undefined,
            b.bin('<', b.v(loopVar), b.lit(3)),
            b.incdec('++', b.v(loopVar), false),
            b.block([b.stmt(b.assign(b.v(u), b.bin('+', b.call(inner, [b.v(u)]), b.v(loopVar))))]),
          ),
          b.ret(b.v(u)),
        ],
        [u, loopVar],
      ),
    );
    for (const [a, c] of [
      ['const', 'const'],
      ['pure', 'const'],
      ['pure', 'pure'],
    ] as const) {
      const r = run(
        b,
        [g],
        [withAttr(inner, c), withAttr(outer, a)],
        [
          b.stmt(b.assign(b.v(g), b.call(outer, [b.lit(4)]))),
          b.stmt(b.assign(b.v(g), b.call(outer, [b.v(g)]))),
          b.hash(b.v(g)),
        ],
      );
      expectClean(r);
    }
  });

  it('pointers: pure may read through a pointer but not write; const may not read through one', () => {
    const b = new IRBuilder();
    const pp = b.param('pp', pointerTo(C.int));
    const readThrough = b.deref(b.v(pp));
    const reader = b.func('reader', C.int, [pp], b.block([b.ret(readThrough)]));
    const wp = b.param('wp', pointerTo(C.int));
    const store = b.assign(b.deref(b.v(wp)), b.lit(7));
    const writer = b.func('writer', C.int, [wp], b.block([b.stmt(store), b.ret(b.lit(0))]));
    const x = b.local('x', C.int, b.lit(2));
    const s = b.local('s', C.int, b.lit(0));
    const calls = (f: FuncDecl): Stmt[] => [b.stmt(b.assign(b.v(s), b.call(f, [b.addr(b.v(x))]))), b.hash(b.v(s))];
    expectClean(run(b, [], [withAttr(reader, 'pure')], calls(reader), [x, s]));
    expectViolation(
      run(b, [], [withAttr(reader, 'const')], calls(reader), [x, s]),
      readThrough,
      'reader (const) reads',
    );
    expectViolation(run(b, [], [withAttr(writer, 'pure')], calls(writer), [x, s]), store, 'writer (pure) writes');
    // A pure caller's own local, written by a pure callee through a pointer: the callee's
    // contract is broken even though the object belongs to its caller's call.
    const local = b.local('own', C.int, b.lit(1));
    const caller = b.func(
      'caller',
      C.int,
      [],
      b.block([b.stmt(b.call(writer, [b.addr(b.v(local))])), b.ret(b.v(local))], [local]),
    );
    expectViolation(
      run(b, [], [withAttr(writer, 'pure'), withAttr(caller, 'pure')], [b.hash(b.call(caller, []))]),
      store,
      'writer (pure) writes',
    );
    // The same caller passing its local to a pure reader keeps both contracts.
    const local2 = b.local('own2', C.int, b.lit(1));
    const caller2 = b.func('caller2', C.int, [], b.block([b.ret(b.call(reader, [b.addr(b.v(local2))]))], [local2]));
    expectClean(run(b, [], [withAttr(reader, 'pure'), withAttr(caller2, 'const')], [b.hash(b.call(caller2, []))]));
  });

  it('calls inside: a const caller holds its callees to its reads, whatever their own attributes', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int, b.lit(9));
    const read = b.v(g);
    const peek = b.func('peek', C.int, [], b.block([b.ret(read)]));
    const wrap = b.func('wrap', C.int, [], b.block([b.ret(b.call(peek, []))]));
    for (const inner of ['pure', 'noinline'] as const) {
      expectViolation(
        run(b, [g], [withAttr(peek, inner), withAttr(wrap, 'const')], [b.hash(b.call(wrap, []))]),
        read,
        'wrap (const) reads',
      );
    }
    // After the const call returns, the caller's own reads are unchecked again.
    expectClean(
      run(b, [g], [withAttr(peek, 'pure'), withAttr(wrap, 'pure')], [b.hash(b.call(wrap, [])), b.hash(b.v(g))]),
    );
  });

  it('volatile objects, checksum updates and printed lines are effects a pure call may not have', () => {
    const b = new IRBuilder();
    const vol = b.local('v', qualify(C.int, { volatile: true }), b.lit(1));
    const vread = b.v(vol);
    const f = b.func('f', C.int, [], b.block([b.ret(vread)], [vol]));
    expectViolation(run(b, [], [withAttr(f, 'pure')], [b.hash(b.call(f, []))]), vread, 'volatile');
    const h = b.hash(b.lit(1));
    const hasher = b.func('hasher', C.int, [], b.block([h, b.ret(b.lit(0))]));
    expectViolation(run(b, [], [withAttr(hasher, 'pure')], [b.stmt(b.call(hasher, []))]), h, 'checksum');
    const ck = b.check(b.lit(1), 1n);
    const checker = b.func('checker', C.int, [], b.block([ck, b.ret(b.lit(0))]));
    expectViolation(run(b, [], [withAttr(checker, 'pure')], [b.stmt(b.call(checker, []))]), ck, 'prints');
  });

  it('only executed calls count: a write on a path that never runs is no violation', () => {
    const b = new IRBuilder();
    const g = b.global('g', C.int, b.lit(0));
    const x = b.param('x', C.int);
    const f = b.func(
      'f',
      C.int,
      [x],
      b.block([b.if(b.bin('>', b.v(x), b.lit(100)), b.block([b.stmt(b.assign(b.v(g), b.v(x)))])), b.ret(b.v(x))]),
    );
    expectClean(run(b, [g], [withAttr(f, 'pure')], [b.hash(b.call(f, [b.lit(1)]))]));
    const r = run(b, [g], [withAttr(f, 'pure')], [b.hash(b.call(f, [b.lit(1)])), b.hash(b.call(f, [b.lit(101)]))]);
    expect(r.ok ? 'clean' : r.ub.kind).toBe('attribute-contract');
  });
});

// Compilers disagree on the type of `s.f++` and `s.f--` when f is an unsigned bit-field narrower
// than int: gcc promotes the result to int, clang, tcc and pcc keep unsigned int, so
// `(s.f0++) < -239` is false with gcc and true with the others (found by bench:emi, seed 140:
// clang -O0 printed another checksum than gcc and the interpreter). The emitter casts such a
// value to its promoted type, as the interpreter reads it, and every compiler must then print
// the interpreter's output.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { emitC } from '../../src/emit/c.js';
import { interpret } from '../../src/interp/interpret.js';
import { IRBuilder } from '../../src/ir/build.js';
import { requireTool } from '../support/cc.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-bitfield-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A program hashing the results of postfix ++/-- on bit-fields in value contexts (and one as a statement). */
function program() {
  const b = new IRBuilder();
  const s = b.struct('S0', [
    { name: 'f0', type: C.uint, bits: 8 },
    { name: 'f1', type: C.uint, bits: 31 },
    { name: 'f2', type: C.int, bits: 8 },
    { name: 'f3', type: C.uint, bits: 32 },
  ]);
  const g = b.global('g_1', s, b.list([b.lit(0, C.uint), b.lit(0, C.uint), b.lit(0), b.lit(0, C.uint)]));
  const f = (i: number) => b.fld(b.v(g), i);
  const minus = (n: number) => b.un('-', b.lit(n));
  const stmts = [
    // Value contexts: a comparison with a negative int, ~, and a sum.
    b.hash(b.bin('<', b.incdec('++', f(0), false), minus(239))),
    b.hash(b.bin('<', b.incdec('--', f(0), false), minus(1))),
    b.hash(b.un('~', b.incdec('++', f(1), false))),
    b.hash(b.bin('<', b.incdec('--', f(2), false), minus(1))),
    b.hash(b.bin('<', b.incdec('++', f(3), false), minus(1))),
    b.hash(b.bin('+', b.incdec('++', f(0), true), minus(300))),
    // A statement of its own: no cast needed.
    b.stmt(b.incdec('++', f(0), false)),
    b.hash(f(0)),
  ];
  const main = b.func('main', C.int, [], b.block(stmts), undefined, false);
  return b.program({ records: [s], globals: [g], funcs: [main], main, meta: { mode: 'csmith', safeMath: 'function' } });
}

describe('postfix ++ and -- on unsigned bit-fields narrower than int', () => {
  it('print with a cast to int where the value is used, and not as a statement', () => {
    const src = emitC(program(), { expected: '' });
    expect(src).toContain('((int)(g_1.f0++))');
    expect(src).toContain('((int)(g_1.f0--))');
    expect(src).toContain('((int)(g_1.f1++))');
    // A signed bit-field and a full-width one: every compiler agrees without a cast.
    expect(src).toMatch(/[^)](g_1\.f2--\))/);
    expect(src).toMatch(/[^)](g_1\.f3\+\+\))/);
    expect(src).toMatch(/^\s*g_1\.f0\+\+;$/m);
  });

  it('make gcc, clang, tcc and pcc print what the interpreter computes', () => {
    const p = program();
    const run = interpret(p);
    if (!run.ok) throw new Error(`the interpreter found UB: ${run.ub.kind}`);
    const expected = run.output.trimEnd();
    const file = join(work, 'bf.c');
    writeFileSync(file, emitC(p, { expected }));
    for (const cc of ['gcc', 'clang', 'tcc', 'pcc']) {
      requireTool(cc);
      const exe = join(work, `bf-${cc}`);
      const c = spawnSync(cc, ['-w', '-O0', file, '-o', exe], { encoding: 'utf8' });
      expect(c.status, `${cc}: ${c.stderr}`).toBe(0);
      expect(spawnSync(exe, { encoding: 'utf8' }).stdout.trimEnd(), cc).toBe(expected);
    }
  });
});

// GNU labels as values: an `igoto` prints as `goto *tbl[index];` with `tbl` a static table of label
// addresses in a block of its own, which gcc and clang (-std=gnu11 -Wall -Wextra, as Kiln's validity
// check compiles) accept without a diagnostic, and tcc and pcc compile too; every build prints
// what the interpreter computed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emitC } from '../../src/emit/c.js';
import { interpret } from '../../src/interp/interpret.js';
import type { Program } from '../../src/ir/nodes.js';
import { batchSource } from '../support/batch.js';
import { requireTool } from '../support/cc.js';
import { dispatchProgram } from '../support/igoto.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-igoto-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function expectedOf(p: Program): string {
  const r = interpret(p);
  if (!r.ok) throw new Error(`the interpreter found UB: ${r.ub.kind}`);
  return r.output;
}

/** Compiles `text` with `cc` and the flags, runs it, and returns its output; diagnostics must be empty. */
function build(cc: string, flags: readonly string[], text: string, name: string): string {
  requireTool(cc);
  const file = join(work, `${name}.c`);
  const exe = join(work, `${name}-${cc}${flags.join('')}`);
  writeFileSync(file, text);
  const c = spawnSync(cc, [...flags, file, '-o', exe], { encoding: 'utf8' });
  expect(c.status, `${cc} ${flags.join(' ')}: ${c.stderr}`).toBe(0);
  // tcc and pcc are not asked for warnings; pcc's linker notes on crtend.o are not about the program.
  if (cc === 'gcc' || cc === 'clang') expect(c.stderr, `${cc} ${flags.join(' ')}`).toBe('');
  const r = spawnSync(exe, { encoding: 'utf8' });
  expect(r.status, `${cc} ${flags.join(' ')}`).toBe(0);
  return r.stdout;
}

const WARN = ['-std=gnu11', '-Wall', '-Wextra'];

describe('indirect goto in C', () => {
  const d = dispatchProgram([1, 2, 1, 2, 2, 0], 36n);

  it('prints a static table of label addresses in a block of its own', () => {
    const src = emitC(d.program);
    const [first] = d.igotos;
    expect(src).toContain(
      `{ static void *const tbl_${first!.id}[] = { &&lbl_end, &&lbl_add, &&lbl_double }; ` +
        `goto *tbl_${first!.id}[g_ops[(g_pc++)]]; }`,
    );
    // Labels named only by tables are printed.
    for (const l of ['lbl_end', 'lbl_add', 'lbl_double']) expect(src).toMatch(new RegExp(`^${l}: ;$`, 'm'));
  });

  it('gcc and clang at -O0 and -O2 (no diagnostic), tcc and pcc print what the interpreter computes', () => {
    const expected = expectedOf(d.program);
    expect(expected.startsWith('@OK@\n')).toBe(true);
    const text = emitC(d.program, { expected: expected.trimEnd().split('\n').pop()! });
    for (const cc of ['gcc', 'clang'])
      for (const o of ['-O0', '-O2']) expect(build(cc, [...WARN, o], text, 'dispatch'), `${cc} ${o}`).toBe(expected);
    // Measured: tcc 0.9.27 and pcc 1.2.0.DEVEL compile and run the table form (see capabilities.ts).
    for (const cc of ['tcc', 'pcc']) expect(build(cc, ['-O0'], text, 'dispatch'), cc).toBe(expected);
  });

  it('the compact layout and a batch of programs sharing one translation unit compile alike', () => {
    const other = dispatchProgram([2, 1, 1, 0], 6n).program;
    const expected = expectedOf(d.program) + expectedOf(other);
    expect(build('gcc', [...WARN, '-O1'], batchSource([d.program, other]), 'batch')).toBe(expected);
    const compact = emitC(d.program, { compact: true });
    expect(build('clang', [...WARN, '-O1'], compact, 'compact')).toBe(expectedOf(d.program));
  });

  it("the table's name differs from every variable its index could name", () => {
    // The opcode counter renamed to the name the table would take: the table takes another.
    const taken = `tbl_${d.igotos[0]!.id}`;
    const p: Program = {
      ...d.program,
      globals: d.program.globals.map((g) => (g.name === 'g_pc' ? { ...g, name: taken } : g)),
    };
    const src = emitC(p);
    expect(src).toContain(`static void *const ${taken}_[] = `);
    expect(src).toContain(`goto *${taken}_[g_ops[(${taken}++)]];`);
    expect(build('gcc', [...WARN, '-O0'], src, 'shadow')).toBe(expectedOf(p));
  });
});

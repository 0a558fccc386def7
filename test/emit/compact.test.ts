// The compact layout (used for reduced programs) must be the same program as the normal layout:
// same output under a real compiler, for generated programs with every record kind (packed
// structs with their #pragma lines, bit-fields, unions).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { C } from '../../src/c/types.js';
import { emitC } from '../../src/emit/c.js';
import { IRBuilder } from '../../src/ir/build.js';
import { pointerTo } from '../../src/ir/types.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { generateProgram } from '../../src/repair/generate.js';
import { policyForCompilers, requireTool } from '../support/cc.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-compact-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('compact emission', () => {
  it('compiles and prints the expected output, packed structs included', async () => {
    requireTool('gcc');
    const policy = await policyForCompilers(parsePolicy({}, 'small'), 'gcc', 'clang');
    let packed = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const g = generateProgram(seed, policy);
      if (!g.ok) continue;
      const src = emitC(g.program, { expected: g.expected, compact: true, header: [`compact, seed ${seed}.`] });
      if (g.program.records.some((r) => r.kind === 'struct' && r.packed)) packed++;
      for (const line of src.split('\n'))
        if (line.includes('#pragma')) expect(line.trim()).toMatch(/^#pragma pack\((push, 1|pop)\)$/);
      const file = join(work, `c${seed}.c`);
      writeFileSync(file, src);
      const cc = spawnSync('gcc', ['-w', '-O0', file, '-o', join(work, `c${seed}`)], { encoding: 'utf8' });
      expect(cc.status, cc.stderr).toBe(0);
      expect(spawnSync(join(work, `c${seed}`), { encoding: 'utf8' }).stdout.trimEnd()).toBe(g.expected);
    }
    expect(packed).toBeGreaterThan(0);
  }, 120_000);
});

describe('null pointers under * and ->', () => {
  it('print with their pointer type, so unexecuted `*NULL` left by a repair still compiles', () => {
    requireTool('gcc');
    const b = new IRBuilder();
    const g = b.global('g_1', C.uint8, b.lit(3, C.uint8));
    const p = pointerTo(C.uint8);
    // if (g_1 == 0) { *(uint8_t*)0 = 1; (g_1, *NULL) = ...; c ? NULL : NULL }
    const dead = b.block([
      b.stmt(b.assign(b.deref(b.nullptr(p)), b.lit(1, C.uint8))),
      b.stmt(b.assign(b.deref(b.comma(b.v(g), b.nullptr(p))), b.lit(2, C.uint8))),
      b.stmt(b.assign(b.deref(b.cond(b.v(g), b.nullptr(p), b.nullptr(p))), b.lit(3, C.uint8))),
    ]);
    const main = b.func(
      'main',
      C.int,
      [],
      b.block([b.if(b.bin('==', b.v(g), b.lit(0, C.uint8)), dead), b.hash(b.v(g))]),
      undefined,
      false,
    );
    const src = emitC(
      b.program({ globals: [g], funcs: [main], main, meta: { mode: 'csmith', safeMath: 'function' } }),
      { expected: '' },
    );
    const file = join(work, 'null.c');
    writeFileSync(file, src);
    const cc = spawnSync('gcc', ['-w', '-O0', '-c', file, '-o', join(work, 'null.o')], { encoding: 'utf8' });
    expect(cc.status, cc.stderr).toBe(0);
  });
});

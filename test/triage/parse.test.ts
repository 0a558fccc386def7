// The compilers' own output, parsed: opt-bisect lines of every installed clang, gcc's enabled
// optimisation flags and its pass list. Missing compilers fail (npm run tools installs them).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { parseBisectLine, parseBisectOutput } from '../../src/triage/clang.js';
import { enabledOptimizers, negateFlag, parseDumpPasses, passFamily, searchablePasses } from '../../src/triage/gcc.js';
import { requireTool } from '../support/cc.js';

const SOURCE = `#include <stdio.h>
static int g[10];
int f(int n) { int s = 0; for (int i = 0; i < n; i++) { g[i % 10] += i; s += g[i % 10]; } return s; }
int main(void) { printf("checksum = %d\\n", f(100)); return 0; }
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kiln-triage-parse-'));
  writeFileSync(join(dir, 'prog.c'), SOURCE);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('opt-bisect lines', () => {
  it('splits pass and target in every format LLVM prints', () => {
    expect(parseBisectLine('BISECT: running pass (5) SimplifyCFGPass on f')).toEqual({
      number: 5,
      pass: 'SimplifyCFGPass',
      target: 'f',
      running: true,
    });
    expect(parseBisectLine('BISECT: NOT running pass (6) SROAPass on main')).toMatchObject({
      number: 6,
      pass: 'SROAPass',
      running: false,
    });
    expect(parseBisectLine('BISECT: running pass (1) Annotation2MetadataPass on [module]')).toMatchObject({
      pass: 'Annotation2MetadataPass',
      target: '[module]',
    });
    expect(parseBisectLine('BISECT: running pass (25) InlinerPass on (func_3)')).toMatchObject({
      pass: 'InlinerPass',
      target: '(func_3)',
    });
    expect(parseBisectLine('BISECT: running pass (180) Loop Strength Reduction on loop')).toMatchObject({
      pass: 'Loop Strength Reduction',
      target: 'loop',
    });
    expect(
      parseBisectLine('BISECT: running pass (196) Machine Common Subexpression Elimination on function (f)'),
    ).toMatchObject({ pass: 'Machine Common Subexpression Elimination', target: 'function (f)' });
    expect(
      parseBisectLine(
        'BISECT: running pass (153) LoopRotatePass on Loop at depth 1 containing: %1<header><latch><exiting>',
      ),
    ).toMatchObject({ pass: 'LoopRotatePass' });
    // Mandatory passes carry no number and cannot be skipped.
    expect(parseBisectLine('BISECT: running pass  RecomputeGlobalsAAPass on [module]')).toBeUndefined();
    expect(parseBisectLine('prog.c:3:1: warning: something')).toBeUndefined();
  });

  for (const cc of ['clang-14', 'clang-15', 'clang']) {
    it(`parses ${cc}'s output: numbered, named passes from the optimiser and the code generator`, () => {
      requireTool(cc);
      const r = spawnSync(cc, ['-O2', '-mllvm', '-opt-bisect-limit=-1', 'prog.c', '-o', 'prog'], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, LC_ALL: 'C' },
      });
      expect(r.status, r.stderr.slice(-2000)).toBe(0);
      const passes = parseBisectOutput(r.stderr);
      expect(passes.size).toBeGreaterThan(100);
      const max = Math.max(...passes.keys());
      for (let i = 1; i <= max; i++) expect(passes.has(i), `pass ${i}`).toBe(true); // numbered without gaps
      const names = new Set([...passes.values()].flat().map((l) => l.pass));
      for (const n of ['InstCombinePass', 'SROAPass', 'SimplifyCFGPass']) expect(names).toContain(n);
      expect([...names].some((n) => / /.test(n))).toBe(true); // code-generator passes have spaced names
      for (const n of names) expect(n).not.toMatch(/ on |^\s|\s$|\(\d+\)/);
      const targets = new Set([...passes.values()].flat().map((l) => l.target));
      expect(targets).toContain('main');
      expect(targets).toContain('function (main)');
    });
  }
});

describe('gcc', () => {
  it('lists the optimisation flags enabled at each level', async () => {
    requireTool('gcc');
    const gcc = await resolveCompiler('gcc');
    const o2 = await enabledOptimizers(gcc, ['-O2']);
    const o0 = await enabledOptimizers(gcc, ['-O0']);
    expect(o2.length).toBeGreaterThan(80);
    for (const f of ['-ftree-vrp', '-fgcse', '-ftree-pre', '-finline-small-functions', '-fstrict-aliasing'])
      expect(o2).toContain(f);
    expect(o0).not.toContain('-ftree-vrp');
    expect(o2.length).toBeGreaterThan(o0.length + 50);
    for (const f of o2) expect(f).toMatch(/^-f[a-z0-9][\w+.-]*$/);
    expect(negateFlag('-ftree-vrp')).toBe('-fno-tree-vrp');
    // Every negated flag is accepted.
    const r = spawnSync('gcc', ['-O2', ...o2.map(negateFlag), '-c', 'prog.c', '-o', 'prog.o'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
  });

  it('lists the passes and keeps the optional ones, which can all be disabled at once', () => {
    requireTool('gcc');
    const r = spawnSync('gcc', ['-O2', '-fdump-passes', '-S', 'prog.c', '-o', 'prog.s'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, LC_ALL: 'C' },
    });
    expect(r.status).toBe(0);
    const all = parseDumpPasses(r.stderr);
    expect(all.length).toBeGreaterThan(150);
    expect(all.find((p) => p.name === 'tree-loop')?.container).toBe(true);
    const passes = searchablePasses(all);
    for (const p of ['tree-vrp1', 'tree-pre', 'rtl-combine', 'ipa-inline', 'rtl-cse1']) expect(passes).toContain(p);
    for (const p of ['tree-ssa', 'rtl-expand', 'rtl-ira', 'rtl-final', 'tree-loop']) expect(passes).not.toContain(p);
    expect(passFamily('tree-vrp2')).toBe('tree-vrp');
    const c = spawnSync('gcc', ['-O2', ...passes.map((p) => `-fdisable-${p}`), 'prog.c', '-o', 'prog'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(
      c.status,
      c.stderr
        .split('\n')
        .filter((l) => !/disable pass/.test(l))
        .join('\n'),
    ).toBe(0);
    expect(spawnSync(join(dir, 'prog'), { encoding: 'utf8' }).stdout).toMatch(/^checksum = \d+/);
  });
});

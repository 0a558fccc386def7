// kiln gen with programs of several files (yarpgen mode): stdout with separators, -o DIR,
// --count with a folder per program, and -o X.c refused with a coded error and a hint.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';

const SPLIT = ['driver.c', 'func.c', 'init.c', 'init.h'];

describe('kiln gen --mode yarpgen', () => {
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'kiln-gen-files-'));
  });
  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('prints every file on stdout after a "// ==> NAME <==" line', async () => {
    const r = await runKiln(['gen', '--mode', 'yarpgen', '--size', 'small', '--seed', '4']);
    expect(r.status, r.stderr).toBe(0);
    const marks = [...r.stdout.matchAll(/^\/\/ ==> (\S+) <==$/gm)].map((m) => m[1]);
    expect(marks).toEqual(['init.h', 'init.c', 'func.c', 'driver.c']);
    expect(r.stdout.startsWith('// ==> init.h <==\n')).toBe(true);
  });

  it('writes the files into the directory -o names, and they compile and print the expected line', async () => {
    requireTool('gcc');
    const dir = join(work, 'one');
    const r = await runKiln(['gen', '--mode', 'yarpgen', '--size', 'small', '--seed', '4', '-o', dir, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const line = JSON.parse(r.stdout) as { file: string; files: string[]; expected: string; mode: string };
    expect(line).toMatchObject({ file: dir, files: ['init.h', 'init.c', 'func.c', 'driver.c'], mode: 'yarpgen' });
    expect(readdirSync(dir).sort()).toEqual(SPLIT);
    const cc = spawnSync('gcc', ['-O2', '-w', 'init.c', 'func.c', 'driver.c', '-o', 'prog'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(cc.status, cc.stderr).toBe(0);
    expect(spawnSync(join(dir, 'prog'), { encoding: 'utf8' }).stdout.trimEnd()).toBe(line.expected);
  });

  it('refuses -o X.c with a coded error and a hint, and writes nothing', async () => {
    const file = join(work, 'prog.c');
    const r = await runKiln(['gen', '--mode', 'yarpgen', '--seed', '4', '-o', file]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^kiln: error\[KILN_BAD_OPTION\]: invalid value '.*prog\.c' for -o: a yarpgen program is several files/m,
    );
    expect(r.stderr).toMatch(/^kiln: hint: give a directory instead, e\.g\. -o .*prog;/m);
    expect(existsSync(file)).toBe(false);
  });

  it('with --count, gives each program of several files a folder and each one-file program a .c file', async () => {
    const dir = join(work, 'many');
    const r = await runKiln([
      'gen',
      '--mode',
      'mixed',
      '--size',
      'small',
      '--seed',
      '1',
      '--count',
      '6',
      '-o',
      dir,
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seed: string; mode: string; file: string });
    expect(new Set(lines.map((l) => l.mode)).has('yarpgen')).toBe(true);
    expect(lines.some((l) => l.mode !== 'yarpgen')).toBe(true);
    for (const l of lines) {
      if (l.mode === 'yarpgen') {
        expect(l.file).toBe(join(dir, `kiln-${l.seed}`));
        expect(readdirSync(l.file).sort()).toEqual(SPLIT);
      } else {
        expect(l.file).toBe(join(dir, `kiln-${l.seed}.c`));
        expect(readFileSync(l.file, 'utf8')).toMatch(/^\/\* kiln: expected/);
      }
    }
  });
});

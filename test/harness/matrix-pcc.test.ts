// pcc's -O levels: the matrix tests -O1, -O2, -Os and -O3 of pcc once, because its driver runs the
// same commands for all of them. This checks that claim against the installed pcc, so a pcc that
// starts to tell its levels apart makes the test fail rather than go untested.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import { requireTool } from '../support/cc.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-pcc-levels-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The commands `pcc -### LEVEL` would run, with temporary names and the time of day (`__TIME__`) taken out. */
function commands(level: string): string {
  const r = spawnSync('pcc', ['-###', level, '-c', 'prog.c', '-o', 'prog.o'], { cwd: work, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return (r.stdout + r.stderr)
    .split('\n')
    .filter((l) => l.startsWith('Calling '))
    .map((l) => l.replace(/\/tmp\/\S+/g, 'TMP').replace(/\d\d:\d\d:\d\d/g, 'HH:MM:SS'))
    .join('\n');
}

describe('pcc option levels', () => {
  it('the installed pcc runs the same commands at -O1, -O2, -Os and -O3, and others at -O0', () => {
    requireTool('pcc');
    writeFileSync(join(work, 'prog.c'), 'int main(void) { return 0; }\n');
    const o1 = commands('-O1');
    expect(o1).toContain('ccom');
    for (const level of ['-O2', '-Os', '-O3']) expect(commands(level), level).toBe(o1);
    expect(commands('-O0')).not.toBe(o1);
  });

  it('so the matrix keeps one optimising configuration of pcc, and every level of gcc', async () => {
    requireTool('pcc');
    const m = buildMatrix(
      [await resolveCompiler('gcc'), await resolveCompiler('pcc')],
      ['-O0', '-O1', '-O2', '-Os', '-O3', '-O2 -g'],
    );
    expect(m.filter((c) => c.compiler.name === 'pcc').map((c) => c.optionsText)).toEqual(['-O0', '-O1', '-O2 -g']);
    expect(m.filter((c) => c.compiler.name === 'gcc')).toHaveLength(6);
  });
});

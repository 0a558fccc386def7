// memcheck misreads glibc's start-up and exit in static binaries, and the newest compilers' builds
// are static (the sid root's launchers link so): without Kiln's suppressions every valgrind run of
// them reports an error before `main` and a sanitizer campaign's survival checks would count it.
// The host's static glibc trips on other functions than the root's; the suppressions cover both by
// glibc function names, and reports in the program's own code must survive them.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseValgrind, VALGRIND_SUPPRESSIONS, VALGRIND_SUPPRESSIONS_FILE } from '../../src/edge/reports.js';
import { requireTool } from '../support/cc.js';

const work = mkdtempSync(join(tmpdir(), 'kiln-valgrind-static-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PROGRAMS = {
  clean: 'int main(void) { printf("%d\\n", 42); return 0; }',
  // An uninitialised value decides a branch in main.
  branch: 'int main(void) { int x; volatile int *p = &x; if (*p > 3) puts("a"); else puts("b"); return 0; }',
  // Uninitialised bytes printed: the write happens in exit's flush of stdout.
  printed: 'int main(void) { char b[4]; volatile char *p = b; fwrite((const char *)p, 1, 4, stdout); return 0; }',
};

function memcheck(name: keyof typeof PROGRAMS, suppressions: boolean): { status: number | null; stderr: string } {
  const src = join(work, `${name}.c`);
  const exe = join(work, name);
  writeFileSync(src, `#include <stdio.h>\n${PROGRAMS[name]}\n`);
  const cc = spawnSync('gcc', ['-static', '-O0', '-g', src, '-o', exe], { encoding: 'utf8' });
  expect(cc.status, cc.stderr).toBe(0);
  const supp = join(work, VALGRIND_SUPPRESSIONS_FILE);
  writeFileSync(supp, VALGRIND_SUPPRESSIONS);
  const args = ['-q', '--vgdb=no', '--error-exitcode=99', ...(suppressions ? [`--suppressions=${supp}`] : []), exe];
  const r = spawnSync('valgrind', args, { encoding: 'utf8', cwd: work });
  return { status: r.status, stderr: r.stderr };
}

describe('valgrind on static binaries (gcc -static, the host glibc)', () => {
  it('reports glibc itself without the suppressions, so the check below means something', () => {
    requireTool('gcc');
    requireTool('valgrind');
    const r = memcheck('clean', false);
    expect(r.status).toBe(99);
    expect(parseValgrind(r.stderr, ['clean.c'])).toBeDefined();
  });

  it('is silent on a clean program with them', () => {
    const r = memcheck('clean', true);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it("still reports the program's own uses of uninitialised values", () => {
    const branch = memcheck('branch', true);
    expect(branch.status).toBe(99);
    expect(parseValgrind(branch.stderr, ['branch.c'])).toMatchObject({ line: 2 });
    const printed = memcheck('printed', true);
    expect(printed.status).toBe(99);
    expect(printed.stderr).toContain('write(buf) points to uninitialised byte(s)');
  });
});

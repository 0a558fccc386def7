// Profile-guided configurations end to end: a campaign on gcc-12 and clang-14 with the true and a
// perturbed profile at -O2 (every program prints its expected line), and a fake compiler that
// miscompiles only when it reads a profile: its finding stores the perturbed profile, its repro.sh
// reproduces it, and its reduction keeps a profile of the reduced program. Bounded by counts.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reduceAndBundle } from '../../src/campaign/reduce-finding.js';
import { resolveCompilers } from '../../src/harness/compilers.js';
import { testConfiguration } from '../../src/harness/execute.js';
import { buildMatrix, DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { requireTool } from '../support/cc.js';
import { runKiln } from './support/cli.js';

// biome-ignore format: embedded text
const FAKE = `#!/bin/sh
# gcc-12, except that a build reading a profile prints a wrong checksum (its initial value + 1).
use=
for a; do case $a in -fprofile-use|-fprofile-use=*|-fprofile-instr-use=*) use=1;; esac; done
if [ -n "$use" ]; then
  for a; do case $a in *.c) sed -i 's/\\(kiln_crc = 0x[0-9A-F]*ULL\\)/\\1 + 1/' "$a" || exit 1;; esac; done
fi
exec gcc-12 "$@"
`;

describe('profile-guided configurations in a campaign', () => {
  let work: string;

  beforeAll(() => {
    for (const tool of ['gcc-12', 'clang-14', 'llvm-profdata-14', 'base64']) requireTool(tool);
    work = mkdtempSync(join(tmpdir(), 'kiln-profile-'));
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('gcc-12 and clang-14 at -O2 with the true and a perturbed profile print every expected line', async () => {
    const out = join(work, 'clean');
    const r = await runKiln([
      'fuzz',
      '--compilers',
      'gcc-12,clang-14',
      '--opts',
      '-O2 +profile;-O2 +profile=perturbed',
      '--tests',
      '2',
      '--size',
      'small',
      '--mode',
      'csmith',
      '--jobs',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr + r.stdout).toMatch(/2 programs, 0 findings, 0 internal/);
    expect(existsSync(join(out, 'findings')) ? readdirSync(join(out, 'findings')) : []).toEqual([]);
  });

  it('perturbs the real profiles of gcc-12 and clang-14 the same way on every run', async () => {
    const program = [
      '#include <stdio.h>',
      'static int f(int x) { return x % 3 == 0 ? 2 * x : x + 1; }',
      'int main(void) {',
      '  long s = 0;',
      '  for (int i = 0; i < 1000; i++) s += (i & 1) ? f(i) : -i;',
      '  printf("checksum = %ld\\n", s);',
      '  return 0;',
      '}',
      '',
    ].join('\n');
    const temp = TempRoot.create();
    try {
      const configs = buildMatrix(await resolveCompilers(['gcc-12', 'clang-14']), ['-O2 +profile=perturbed']);
      for (const c of configs) {
        const runs = [];
        for (let i = 0; i < 2; i++)
          runs.push(await testConfiguration(program, 'checksum = 84500', c, DEFAULT_LIMITS, temp));
        for (const r of runs) expect(r.judgement, c.slug).toEqual({ outcome: 'ok' });
        expect(runs[0]!.profile?.files?.length, c.slug).toBe(1);
        expect(runs[1]!.profile?.files).toEqual(runs[0]!.profile?.files);
      }
    } finally {
      temp.dispose();
    }
  });

  it('refuses a profile configuration of tcc before starting', async () => {
    requireTool('tcc');
    const r = await runKiln(['fuzz', '--compilers', 'tcc', '--opts', '-O2 +profile', '--tests', '1', '--out', work]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/error\[KILN_PROFILE_UNSUPPORTED\]/);
  });

  it('a miscompilation seen only with a profile: stored, reproduced and reduced with its profile', async () => {
    const bin = join(work, 'bin');
    mkdirSync(bin, { recursive: true });
    const fake = join(bin, 'pgo-cc');
    writeFileSync(fake, FAKE);
    chmodSync(fake, 0o755);
    const out = join(work, 'fault');
    const r = await runKiln([
      'fuzz',
      '--compilers',
      fake,
      '--opts',
      '-O2 +profile=perturbed',
      '--tests',
      '1',
      '--seed-start',
      '2',
      '--size',
      'small',
      '--mode',
      'csmith',
      '--jobs',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const ids = readdirSync(join(out, 'findings'));
    expect(ids).toEqual(['1-2-pgo-cc-O2-profile-perturbed']);
    const dir = join(out, 'findings', ids[0]!);
    expect(readdirSync(dir).sort()).toEqual(['finding.json', 'prog.c', 'prog.gcda.base64', 'repro.sh']);
    const json = JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as Record<string, unknown>;
    expect(json).toMatchObject({
      outcome: 'wrong-code',
      options: '-O2 +profile=perturbed',
      profile: { kind: 'perturbed', stage: 'use', files: ['prog.gcda.base64'] },
    });
    expect(json.command).toMatch(/-O2 -fprofile-use -fprofile-correction prog\.c -o prog -lm$/);
    expect(spawnSync('sh', [join(dir, 'repro.sh')], { cwd: tmpdir(), encoding: 'utf8' }).status).toBe(0);

    const reduced = await reduceAndBundle(dir, { triage: false, maxCandidates: 3, jobs: 2 });
    expect(reduced.reduction.failing.profile?.stage).toBe('use');
    const folder = join(dir, 'reduced');
    expect(readdirSync(folder)).toContain('prog.gcda.base64');
    // The reduced folder's profile is the reduced program's own, not the original's.
    expect(readFileSync(join(folder, 'prog.gcda.base64'), 'utf8')).not.toBe(
      readFileSync(join(dir, 'prog.gcda.base64'), 'utf8'),
    );
    expect(spawnSync('sh', [join(folder, 'repro.sh')], { cwd: tmpdir(), encoding: 'utf8' }).status).toBe(0);
  });
});

// End to end: `kiln fuzz --mode yarpgen` with fault-injecting fake compilers. A program of
// several files must be compiled as all of them, its finding folder must hold every file, and
// its repro.sh must reproduce the failure alone and work as an interestingness test in a folder
// holding the files (or only the file being reduced).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/gen/policy.js';
import { campaignFiles } from '../../src/harness/program.js';
import { generateProgram } from '../../src/repair/generate.js';
import { requireTool } from '../support/cc.js';
import { runKiln, type CliResult } from './support/cli.js';
import { writeFake } from './support/fakes.js';

interface FindingJson {
  id: string;
  outcome: string;
  compiler: string;
  seed: string;
  dir: string;
}

const SPLIT = ['init.h', 'init.c', 'func.c', 'driver.c'];

describe('kiln fuzz --mode yarpgen with fault-injecting compilers', () => {
  let work: string;
  let out: string;
  let run: CliResult;
  let findings: FindingJson[];

  beforeAll(async () => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-multi-'));
    out = join(work, 'out');
    const wrong = writeFake(join(work, 'bin'), 'fake-wrong', 'wrong-code', [2]);
    const ice = writeFake(join(work, 'bin'), 'fake-ice', 'ice', [1]);
    run = await runKiln([
      'fuzz',
      '--mode',
      'yarpgen',
      '--size',
      'small',
      '--compilers',
      ['gcc', wrong, ice].join(','),
      '--opts',
      '-O0',
      '--tests',
      '2',
      '--seed-start',
      '1',
      '-j',
      '2',
      '--out',
      out,
    ]);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    findings = JSON.parse(listed.stdout) as FindingJson[];
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds exactly the injected faults (gcc compiles every program of several files correctly)', () => {
    expect(run.status, run.stderr).toBe(0);
    expect(findings.map((f) => `${f.seed} ${f.compiler} ${f.outcome}`).sort()).toEqual([
      '1 fake-ice compiler-crash',
      '2 fake-wrong wrong-code',
    ]);
  });

  it('keeps every file of the program in the finding folder, exactly as the campaign generated it', () => {
    for (const f of findings) {
      expect(readdirSync(f.dir).sort()).toEqual([...SPLIT, 'finding.json', 'repro.sh'].sort());
      const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as {
        mode: string;
        files: string[];
        command: string;
        policy: unknown;
        seed: string;
      };
      expect(j.mode).toBe('yarpgen');
      expect(j.files).toEqual(SPLIT);
      expect(j.command).toMatch(/ -O0 init\.c func\.c driver\.c -o prog/);
      const g = generateProgram(j.seed, parsePolicy(j.policy), 'yarpgen');
      if (!g.ok) expect.unreachable(g.reason);
      for (const file of campaignFiles(g, parsePolicy(j.policy)))
        expect(readFileSync(join(f.dir, file.name), 'utf8')).toBe(file.content);
    }
  });

  it('gives each finding a repro.sh that reproduces it from anywhere (exit 0)', () => {
    for (const f of findings) {
      const r = spawnSync(join(f.dir, 'repro.sh'), [], { cwd: work, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, `${f.id}: ${r.stderr}`).toBe(0);
    }
  });

  it('has repro scripts that work as interestingness tests in a folder holding the files', () => {
    for (const f of findings) {
      // All files present, unchanged: still interesting.
      const same = mkdtempSync(join(work, 'cand-'));
      for (const n of SPLIT) copyFileSync(join(f.dir, n), join(same, n));
      expect(
        spawnSync(join(f.dir, 'repro.sh'), [], { cwd: same, encoding: 'utf8', timeout: 60_000 }).status,
        f.id,
      ).toBe(0);
      // Only the file being reduced is present (the others come from the finding folder), and it
      // no longer triggers the fake's fault (another seed in its header): not interesting.
      const one = mkdtempSync(join(work, 'cand-'));
      writeFileSync(
        join(one, 'driver.c'),
        readFileSync(join(f.dir, 'driver.c'), 'utf8').replace(/, seed \d+\./, ', seed 99.'),
      );
      const r = spawnSync(join(f.dir, 'repro.sh'), [], { cwd: one, encoding: 'utf8', timeout: 60_000 });
      expect(r.status, `${f.id}: ${r.stderr}`).toBe(1);
    }
  });

  it('compiles the candidate’s files, not the finding’s: a broken candidate unit is not the wrong-code bug', () => {
    const f = findings.find((x) => x.outcome === 'wrong-code')!;
    const dir = mkdtempSync(join(work, 'cand-'));
    writeFileSync(join(dir, 'func.c'), '#include "init.h"\nthis is not C;\n');
    expect(spawnSync(join(f.dir, 'repro.sh'), [], { cwd: dir, encoding: 'utf8', timeout: 60_000 }).status).toBe(1);
  });
});

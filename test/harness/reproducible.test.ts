// Findings that reproduce: the campaign, its re-run, repro.sh and the reducer start a binary the
// same way (no address randomisation, a fixed environment, argv[0] and folder length), so a binary
// whose behaviour depends on its start-up state does the same everywhere; a failure that still
// varies between runs is kept as nondeterministic, and its repro.sh and reduction accept any of
// the behaviours it showed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reduceAndBundle } from '../../src/campaign/reduce-finding.js';
import { detectCompilers } from '../../src/harness/compilers.js';
import { BINARY_PATH, RUN_DIR_LENGTH } from '../../src/harness/sandbox.js';
import { ValidityChecker, validityCompilers } from '../../src/reduce/validity.js';
import { requireTool } from '../support/cc.js';
import { runKiln } from './support/cli.js';
import { writeFake } from './support/fakes.js';

interface FindingJson {
  id: string;
  outcome: string;
  compiler: string;
  seed: string;
  dir: string;
  nondeterministic: boolean;
  hangStatus: string | null;
}

/** Runs a finding's repro.sh `n` times; returns how many said "reproduced". */
function reproductions(dir: string, n: number, cwd: string): number {
  let yes = 0;
  for (let i = 0; i < n; i++) {
    const r = spawnSync(join(dir, 'repro.sh'), [], { cwd, encoding: 'utf8', timeout: 60_000 });
    if (r.status === 0) yes++;
  }
  return yes;
}

describe('findings that depend on how the binary is started', () => {
  let work: string;
  let out: string;
  let findings: FindingJson[];
  let bin: string;

  beforeAll(async () => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-repro-e2e-'));
    bin = join(work, 'bin');
    const fakes = [
      writeFake(bin, 'fake-stack', 'stack', [1]),
      writeFake(bin, 'fake-alt', 'alternating', [1]),
      writeFake(bin, 'fake-env', 'report-env', [2]),
    ];
    out = join(work, 'out');
    // The fakes only (each is gcc on the seeds it leaves alone): every compiler costs its checks.
    const r = await runKiln([
      'fuzz',
      '--mode',
      'csmith',
      '--compilers',
      fakes.join(','),
      '--opts',
      '-O0',
      '--tests',
      '2',
      '--seed-start',
      '1',
      '--size',
      'small',
      '-j',
      '2',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const listed = await runKiln(['findings', '--out', out, '--json']);
    expect(listed.status, listed.stderr).toBe(0);
    findings = JSON.parse(listed.stdout) as FindingJson[];
  }, 120_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('runs the binary exactly the same way in the campaign, its re-run and repro.sh', () => {
    const f = findings.find((x) => x.compiler === 'fake-env')!;
    expect(f.outcome).toBe('binary-crash');
    expect(spawnSync(join(f.dir, 'repro.sh'), [], { cwd: work, timeout: 60_000 }).status).toBe(0);
    const entries = readFileSync(join(bin, 'fake-env.state', 'env.log'), 'utf8')
      .split('---\n')
      .filter((e) => e.trim() !== '');
    expect(entries).toHaveLength(3); // the campaign's test, its re-run, repro.sh
    expect(new Set(entries).size).toBe(1);
    const lines = entries[0]!.trim().split('\n');
    expect(lines).toEqual([
      'argv0=./prog',
      expect.stringMatching(/^personality=0*4\d{4}$/), // ADDR_NO_RANDOMIZE (0x0040000)
      `cwdlen=${RUN_DIR_LENGTH + 1}`,
      'KILN_TAG=<tag>',
      'LC_ALL=C',
      `PATH=${BINARY_PATH}`,
    ]);
  });

  it('keeps a stack-dependent failure as one reproducible finding that repro.sh shows 10 times in 10', () => {
    // One seed: under address randomisation its binary would trap in about half the runs.
    const stack = findings.filter((x) => x.compiler === 'fake-stack');
    expect(stack.map((x) => x.seed)).toEqual(['1']);
    const f = stack[0]!;
    expect(['wrong-code', 'binary-crash']).toContain(f.outcome);
    expect(f.nondeterministic).toBe(false);
    expect(reproductions(f.dir, 10, work)).toBe(10);
  });

  it('keeps a failure that varies between runs, marked nondeterministic with every behaviour seen', () => {
    const f = findings.find((x) => x.compiler === 'fake-alt')!;
    expect(f).toMatchObject({ outcome: 'wrong-code', nondeterministic: true });
    const j = JSON.parse(readFileSync(join(f.dir, 'finding.json'), 'utf8')) as {
      nondeterministic: boolean;
      behaviours: { outcome: string; output?: string; signal?: string }[];
    };
    expect(j.nondeterministic).toBe(true);
    expect(j.behaviours).toEqual([
      expect.objectContaining({ outcome: 'wrong-code', output: 'checksum = 0000000000000000' }),
      expect.objectContaining({ outcome: 'binary-crash', signal: 'SIGSEGV' }),
    ]);
    const db = new Database(join(out, 'kiln.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT nondeterministic FROM findings WHERE id = ?').get(f.id)).toEqual({
        nondeterministic: 1,
      });
      expect(db.prepare("SELECT flaky FROM tests WHERE compiler = 'fake-alt' AND seed = 1").all()).toEqual([
        { flaky: 0 },
      ]);
    } finally {
      db.close();
    }
    // Every run shows one of the two behaviours, so the script accepts every run (they alternate
    // from run to run: four runs show each twice).
    expect(reproductions(f.dir, 4, work)).toBe(4);
  });

  // A reduced nondeterministic finding's repro.sh must accept each behaviour it showed (a crash by
  // its signal), so it reproduces in every run, not only in the runs that show the first one.
  it('reduces both kinds of finding', { timeout: 600_000 }, async () => {
    // The default validity check (the newest gcc and clang on PATH), detected once for both.
    const validity = new ValidityChecker(validityCompilers(await detectCompilers()));
    for (const [f, runs] of [
      // Alternating behaviours: four runs show each twice; a stack-dependent one: ten runs, as above.
      [findings.find((x) => x.compiler === 'fake-alt')!, 4],
      [findings.find((x) => x.compiler === 'fake-stack')!, 10],
    ] as const) {
      // A budget of candidates (a bound by work): the first rounds shrink it; a whole reduction is
      // tested in test/reduce/finding.test.ts. No triage of the reduced program: what is checked is
      // the bundle's repro.sh (triage is tested there too).
      const { reduction: r, bundle } = await reduceAndBundle(f.dir, {
        jobs: 2,
        maxCandidates: 8,
        triage: false,
        validity,
      });
      expect(r.lines).toBeLessThan(r.original.lines);
      expect(readdirSync(bundle.folder)).toContain('repro.sh');
      expect(reproductions(bundle.folder, runs, work), `${f.compiler} seed ${f.seed}`).toBe(runs);
    }
  });
});

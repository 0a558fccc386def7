// Reduction of Kiln findings end to end: a campaign with fault-injecting compilers makes real
// finding folders; the IR reducer must shrink each to a few lines that keep the outcome and bucket,
// stay UB-free (interpreter and clang's sanitizers) and, for wrong code, still fail only under the
// failing compiler; the bundle must be complete and its repro.sh must reproduce the bug.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reduceAndBundle, type ReducedFinding } from '../../src/campaign/reduce-finding.js';
import { checkCandidate } from '../../src/reduce/ir/candidate.js';
import { ValidityChecker, validityCompilers } from '../../src/reduce/validity.js';
import { detectCompilers } from '../../src/harness/compilers.js';
import { requireTool } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';
import { writeFake } from '../harness/support/fakes.js';

interface FindingJson {
  mode: string;
  outcome: string;
  bucket: string;
  compiler: string;
}

describe('kiln reduce FINDING_DIR', () => {
  let work: string;
  let findings: string[];
  const reduced = new Map<string, ReducedFinding>();

  beforeAll(async () => {
    requireTool('gcc');
    requireTool('clang');
    work = mkdtempSync(join(tmpdir(), 'kiln-redf-'));
    const bin = join(work, 'bin');
    // One program (seed 2) that each fake fails in its own way: one finding per fake.
    const fakes = [
      writeFake(bin, 'fake-wrong', 'wrong-code', [2]),
      writeFake(bin, 'fake-ice', 'ice', [2]),
      writeFake(bin, 'fake-bincrash', 'binary-crash', [2]),
    ];
    const out = join(work, 'out');
    const r = await runKiln([
      'fuzz',
      '--compilers',
      ['gcc', ...fakes].join(','),
      '--opts',
      '-O0',
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
    // The other modes: in mixed mode seed 16 is a yarpgen program (several translation units) and
    // seed 17 an arith program (self-checking, several output lines).
    const modes = join(work, 'out-modes');
    const fake = writeFake(bin, 'fake-wrong-m', 'wrong-code', [16, 17]);
    const m = await runKiln([
      'fuzz',
      '--compilers',
      `gcc,${fake}`,
      '--opts',
      '-O0',
      '--tests',
      '2',
      '--seed-start',
      '16',
      '--size',
      'small',
      '--mode',
      'mixed',
      '--jobs',
      '2',
      '--out',
      modes,
    ]);
    expect(m.status, m.stderr).toBe(0);
    findings = [
      ...readdirSync(join(out, 'findings')).map((d) => join(out, 'findings', d)),
      ...readdirSync(join(modes, 'findings')).map((d) => join(modes, 'findings', d)),
    ];
    // One job: the first success in pass order wins, so the result is the same as with more (the
    // CLI test below reduces with two and compares), without the CPU of candidates that a success
    // makes moot. One validity checker (the default one) for the five reductions. No triage here:
    // nothing below reads it; the CLI test checks the triage of a reduction, the last test the
    // version line.
    const validity = new ValidityChecker(validityCompilers(await detectCompilers()));
    for (const dir of findings) reduced.set(dir, await reduceAndBundle(dir, { jobs: 1, validity, triage: false }));
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const finding = (dir: string): FindingJson =>
    JSON.parse(readFileSync(join(dir, 'finding.json'), 'utf8')) as FindingJson;

  it('found one finding per injected fault', () => {
    expect(findings.map((d) => `${finding(d).compiler} ${finding(d).outcome} ${finding(d).mode}`).sort()).toEqual([
      'fake-bincrash binary-crash csmith',
      'fake-ice compiler-crash csmith',
      'fake-wrong wrong-code csmith',
      'fake-wrong-m wrong-code arith',
      'fake-wrong-m wrong-code yarpgen',
    ]);
  });

  it('reduces every finding to at most 15 lines, keeping its outcome and bucket', () => {
    for (const dir of findings) {
      const { reduction: r, bundle } = reduced.get(dir)!;
      const f = finding(dir);
      expect(r.lines).toBeLessThanOrEqual(15);
      expect(r.lines).toBeLessThan(r.original.lines);
      expect(r.failing.judgement.outcome).toBe(f.outcome);
      if (f.outcome !== 'wrong-code') expect(r.failing.judgement.bucket).toBe(f.bucket);
      const json = JSON.parse(readFileSync(join(bundle.folder, 'reduced.json'), 'utf8')) as {
        outcome: string;
        bucket: string;
        lines: number;
      };
      expect(json).toMatchObject({ outcome: f.outcome, bucket: f.bucket, lines: r.lines });
      expect(readFileSync(join(dir, 'reduced.c'), 'utf8')).toBe(r.source);
    }
  });

  it('keeps reduced programs UB-free: the interpreter agrees, and so do UBSan and ASan', () => {
    for (const dir of findings) {
      const { reduction: r, bundle } = reduced.get(dir)!;
      const c = checkCandidate(r.program, { maxSteps: 1_000_000 });
      expect(c?.expected).toBe(r.expected);
      expect(bundle.sanitizers.status).toBe('clean');
    }
  });

  it('keeps a wrong-code program failing under the failing compiler only, in every mode', () => {
    for (const dir of findings.filter((d) => finding(d).outcome === 'wrong-code')) {
      const { reduction: r } = reduced.get(dir)!;
      expect(r.reference?.compiler.name).toBe('gcc');
      expect(r.failing.output).not.toBe(r.expected);
      // The reference compiler prints the recomputed expected output.
      const bin = join(work, 'ref');
      const cc = spawnSync('gcc', ['-O0', '-w', '-x', 'c', '-', '-o', bin], {
        input: r.files.length === 1 ? r.source : '',
      });
      expect(r.files.length, 'a split program the fake miscompiles as one file too is reported as one file').toBe(1);
      expect(cc.status).toBe(0);
      expect(spawnSync(bin, [], { encoding: 'utf8' }).stdout.trimEnd()).toBe(r.expected);
      if (finding(dir).mode === 'arith') expect(r.expected).toMatch(/^(@OK@\n)*checksum = [0-9A-F]{16}$/);
    }
  });

  it('writes a bundle whose repro.sh reproduces the bug and whose report states the facts', () => {
    for (const dir of findings) {
      const { bundle, reduction: r } = reduced.get(dir)!;
      for (const f of ['prog.c', 'repro.sh', 'report.md', 'reduced.json'])
        expect(existsSync(join(bundle.folder, f)), f).toBe(true);
      const repro = spawnSync('sh', [join(bundle.folder, 'repro.sh')], { cwd: work, encoding: 'utf8' });
      expect(repro.status, repro.stderr).toBe(0);
      expect(bundle.report).toContain(r.config.compiler.version);
      expect(bundle.report).toContain('```c');
      if (r.finding.outcome === 'wrong-code') expect(bundle.report).toContain(r.expected);
    }
  });

  it('reduces through the CLI and refuses a folder that is not a finding', async () => {
    const dir = findings.find((d) => finding(d).outcome === 'compiler-crash')!;
    // A budget of candidates: the beforeAll reduced this finding whole already.
    const r = await runKiln(['reduce', dir, '--jobs', '2', '--max-candidates', '30', '-o', join(work, 'cli.c')]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/→ \d+ lines/);
    expect(readFileSync(join(work, 'cli.c'), 'utf8')).toBe(readFileSync(join(dir, 'reduced.c'), 'utf8'));
    // The store of the output folder knows the reduced size and the fingerprint (the crash bucket).
    const listed = await runKiln(['findings', '--out', join(dir, '..', '..'), '--json']);
    const rows = JSON.parse(listed.stdout) as {
      id: string;
      reducedLines: number | null;
      fingerprint: string | null;
      bucket: string;
    }[];
    const row = rows.find((x) => dir.endsWith(x.id))!;
    expect(row.reducedLines).toBe(
      readFileSync(join(dir, 'reduced.c'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length,
    );
    expect(row.fingerprint).toBe(row.bucket);
    expect(existsSync(join(dir, 'reduced', 'triage.json'))).toBe(true);
    const bad = await runKiln(['reduce', work]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('KILN_NOT_A_FINDING');
  }, 300_000);

  it('kiln fuzz --reduce reduces each new bucket in the background and waits for it at a natural end', async () => {
    const bin = join(work, 'bin2');
    const fake = writeFake(bin, 'fake-ice2', 'ice', [2, 3]);
    const out = join(work, 'out-reduce');
    const r = await runKiln([
      'fuzz',
      '--compilers',
      `gcc,${fake}`,
      '--opts',
      '-O0',
      '--tests',
      '2',
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
      '--reduce',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const dirs = readdirSync(join(out, 'findings'));
    expect(dirs.length).toBe(2);
    // Both crashes share one bucket: only the first is reduced.
    const reducedDirs = dirs.filter((d) => existsSync(join(out, 'findings', d, 'reduced.c')));
    expect(reducedDirs.length).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`reduced ${reducedDirs[0]}: \\d+ → \\d+ lines`));
    const json = JSON.parse(
      readFileSync(join(out, 'findings', reducedDirs[0]!, 'reduced', 'reduced.json'), 'utf8'),
    ) as { complete: boolean; lines: number };
    expect(json.complete).toBe(true);
    expect(json.lines).toBeLessThanOrEqual(15);
    // Before it was reduced, the finding was placed on its version line (which versions are
    // installed differs between machines; its own compiler is always tried, and fails).
    const versions = JSON.parse(readFileSync(join(out, 'findings', reducedDirs[0]!, 'versions.json'), 'utf8')) as {
      label: string;
      tried: { compiler: string; result: string; own: boolean }[];
    };
    expect(['live', 'regression', 'fixed', 'untested']).toContain(versions.label);
    expect(versions.tried.find((t) => t.own)).toMatchObject({ compiler: 'fake-ice2', result: 'fails' });
  }, 300_000);
});

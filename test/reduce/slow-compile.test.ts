// A compile the campaign's short limit flagged that finishes within the configured limit is a slow
// compile, not a hang. When it is far slower than the same compiler at -O0 (a compile-time hog,
// like pcc -O1 taking 86 s on a program it compiles in 0.6 s at -O0), `kiln reduce` reduces it as
// one: a candidate is kept while it still takes 20 times its -O0 time (at least 2 s).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTool } from '../support/cc.js';
import { runKiln } from '../harness/support/cli.js';
import { writeFake } from '../harness/support/fakes.js';

describe('kiln reduce on a suspected compile hang that is a slow compile', () => {
  let work: string;
  let finding: string;

  beforeAll(async () => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-slowc-'));
    // Optimising a program with a for loop takes 15 s: over the 10 s short limit, within 60 s, and
    // far over 20 times gcc -O0's time even on a loaded machine (each kept candidate costs that
    // much: 25 s made this the longest test of the suite).
    const fake = writeFake(join(work, 'bin'), 'fake-slow', 'slow-opt', [1]);
    const out = join(work, 'out');
    const r = await runKiln([
      'fuzz',
      '--compilers',
      fake,
      '--opts',
      '-O2',
      '--tests',
      '1',
      '--seed-start',
      '1',
      '--size',
      'small',
      '--mode',
      'csmith',
      '--compile-timeout',
      '60s',
      '--jobs',
      '1',
      '--out',
      out,
    ]);
    expect(r.status, r.stderr).toBe(0);
    const dirs = readdirSync(join(out, 'findings'));
    expect(dirs).toHaveLength(1);
    finding = join(out, 'findings', dirs[0]!);
  }, 120_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the campaign flagged it as a suspected compile hang', () => {
    expect(JSON.parse(readFileSync(join(finding, 'finding.json'), 'utf8'))).toMatchObject({
      outcome: 'compiler-hang',
      hangStatus: 'suspected',
    });
  });

  it('reduces it to a program that is still slow to optimise, and says so in the report', async () => {
    // Stopped after a budget of candidates to keep the test short (a bound by work, so the result
    // does not depend on the machine's speed): a stopped reduction still writes its bundle.
    const r = await runKiln(['reduce', finding, '--jobs', '2', '--max-candidates', '8']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr + r.stdout).toMatch(/reducing as a slow compile: \d+\.\d s against \d\.\d\d s at -O0/);
    const reduced = readFileSync(join(finding, 'reduced.c'), 'utf8');
    // The fake is slow only on a for loop: the reducer kept one.
    expect(reduced).toContain('for (');
    const json = JSON.parse(readFileSync(join(finding, 'reduced', 'reduced.json'), 'utf8')) as {
      outcome: string;
      lines: number;
      originalLines: number;
      slowCompile: { ms: number; baselineMs: number; limitMs: number };
    };
    expect(json.outcome).toBe('compiler-hang');
    expect(json.lines).toBeLessThan(json.originalLines / 2);
    expect(json.slowCompile.ms).toBeGreaterThanOrEqual(15_000);
    // 20 times the -O0 time, at least 2 s, at most the campaign's 10 s short limit.
    expect(json.slowCompile.limitMs).toBeGreaterThanOrEqual(2_000);
    expect(json.slowCompile.limitMs).toBeLessThanOrEqual(10_000);
    const report = readFileSync(join(finding, 'reduced', 'report.md'), 'utf8');
    expect(report).toMatch(/^# fake-slow -O2: slow compile \(compile-time hog\)/);
    expect(report).toMatch(/It still takes more than \d+\.\d+ s on the reduced program/);
    expect(existsSync(join(finding, 'reduced', 'repro.sh'))).toBe(true);
    // The check with the configured limit settled the suspected hang: kiln findings says so.
    expect(JSON.parse(readFileSync(join(finding, 'finding.json'), 'utf8'))).toMatchObject({
      hangStatus: 'cleared',
      hangCheck: { verdict: 'cleared', limitMs: 60_000 },
    });
    const listed = await runKiln(['findings', '--out', join(work, 'out')]);
    expect(listed.stdout).toContain('cleared: finished within the configured limit (a slow compile)');
    expect(listed.stdout).not.toContain('suspected hang');
  }, 300_000);
});

// Hangs must not stall a campaign: a compile or run is first given a short limit derived from the
// configuration's typical duration; a test that hits it is a suspected hang, reported at once and
// checked in the background with the configured (long) limit. Also: a campaign's own time limit
// holds for any duration (no timer overflow).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HangConfirmation, ProgramReport } from '../../src/harness/runner.js';
import { runCampaign, shortStep } from '../../src/harness/scheduler.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { buildMatrix, type Configuration, type Limits } from '../../src/harness/matrix.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { policyForCompilers, requireTool } from '../support/cc.js';
import { writeFake } from './support/fakes.js';

// runCampaign as a session calls it: with the policy lowered to what gcc accepts.
const policy = await policyForCompilers(parsePolicy({}, 'small'), 'gcc');
const seedsFrom = function* (n: bigint): Generator<bigint> {
  for (;;) yield n++;
};

describe('short hang limits', () => {
  it('use the floor until enough samples, then 20x the median, never above the configured limit', () => {
    const long = { timeoutMs: 120_000, memoryMb: 2048 };
    expect(shortStep(long, [100, 100], 10_000).timeoutMs).toBe(10_000);
    expect(shortStep(long, [100, 200, 300, 400, 5000], 10_000).timeoutMs).toBe(10_000);
    expect(shortStep(long, [1000, 2000, 3000, 4000, 5000], 10_000).timeoutMs).toBe(60_000);
    expect(shortStep(long, [9000, 9000, 9000, 9000, 9000], 10_000)).toBe(long);
    expect(shortStep({ timeoutMs: 3000, memoryMb: undefined }, [], 10_000).timeoutMs).toBe(3000);
  });
});

describe('a campaign with a compiler that hangs on every program', () => {
  let work: string;
  let gcc: Configuration;

  beforeAll(async () => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-hang-'));
    gcc = buildMatrix([await resolveCompiler('gcc')], ['-O0'])[0]!;
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const fakeConfig = async (
    name: string,
    fault: Parameters<typeof writeFake>[2],
    seeds: number[],
  ): Promise<Configuration> =>
    buildMatrix([await resolveCompiler(writeFake(join(work, 'bin'), name, fault, seeds))], ['-O0'])[0]!;

  it('tests many programs with -j 2, not one, and leaves the unchecked hangs suspected', async () => {
    const hang = await fakeConfig(
      'hang-all',
      'hang',
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
    const limits: Limits = {
      compile: { timeoutMs: 60_000, memoryMb: 2048 },
      run: { timeoutMs: 10_000, memoryMb: 2048 },
    };
    const reports: ProgramReport[] = [];
    const summary = await runCampaign(
      {
        configurations: [gcc, hang],
        limits,
        policy,
        mode: 'csmith',
        jobs: 2,
        seeds: seedsFrom(1n),
        // Bounded by count, not time: with the 60 s limit alone these four would take four minutes
        // (past the test's limit); with the short limit each hang is suspected after a second.
        maxPrograms: 4,
        hangFloor: { compileMs: 1000, runMs: 1000 },
      },
      { onProgram: (r) => void reports.push(r) },
    );
    expect(summary.programs).toBe(4);
    const hangs = reports.flatMap((r) => r.results.filter((x) => x.config === hang));
    expect(hangs.length).toBe(summary.programs);
    for (const h of hangs) expect(h).toMatchObject({ outcome: 'compiler-hang', hang: 'suspected' });
    // One was being checked with the long limit when the programs ran out; the rest waited. On a
    // loaded machine the real gcc's compiles can pass the one-second floor too and be suspected as
    // well: every suspected hang, of any configuration, stays unconfirmed.
    const suspected = reports.flatMap((r) => r.results.filter((x) => x.hang === 'suspected'));
    expect(suspected.length).toBeGreaterThanOrEqual(hangs.length);
    expect(summary.unconfirmed).toBe(suspected.length);
  }, 60_000);

  it('confirms hangs and clears slow compiles in the background while the campaign carries on', async () => {
    const hang = await fakeConfig('hang-one', 'hang', [1]);
    const slow = await fakeConfig('slow-one', 'slow', [1]);
    const binhang = await fakeConfig('binhang-one', 'binary-hang', [1]);
    const limits: Limits = { compile: { timeoutMs: 6000, memoryMb: 2048 }, run: { timeoutMs: 5000, memoryMb: 2048 } };
    const reports: ProgramReport[] = [];
    const checks: HangConfirmation[] = [];
    // The campaign runs until the three checks are done (then stops as Ctrl-C would), however
    // long they take on a busy machine: bounded by events, not by a time budget.
    const stop = new AbortController();
    const summary = await runCampaign(
      {
        configurations: [gcc, hang, slow, binhang],
        limits,
        policy,
        mode: 'csmith',
        jobs: 2,
        seeds: seedsFrom(1n),
        signal: stop.signal,
        hangFloor: { compileMs: 1000, runMs: 1000 },
      },
      {
        onProgram: (r) => void reports.push(r),
        onConfirm: (c) => {
          // Only findings already reported are checked.
          expect(reports.some((r) => r.seed === c.seed)).toBe(true);
          checks.push(c);
          if (checks.filter((x) => x.seed === 1n).length === 3) stop.abort();
        },
      },
    );
    const first = reports.find((r) => r.seed === 1n)!;
    const of = (c: Configuration) => first.results.find((x) => x.config === c)!;
    expect(of(hang)).toMatchObject({ outcome: 'compiler-hang', hang: 'suspected' });
    expect(of(slow)).toMatchObject({ outcome: 'compiler-hang', hang: 'suspected' });
    expect(of(binhang)).toMatchObject({ outcome: 'binary-hang', hang: 'suspected' });
    const verdict = (c: Configuration) => checks.find((x) => x.config === c && x.seed === 1n)?.verdict;
    expect(verdict(hang)).toBe('confirmed');
    expect(verdict(slow)).toBe('cleared');
    expect(verdict(binhang)).toBe('confirmed');
    // Meanwhile other programs were tested (the three checks take some 14 s: hang 6, slow 3, binary 5).
    expect(summary.programs).toBeGreaterThan(1);
  }, 90_000);

  it('runs for the time asked even when it exceeds what a Node timer holds (600 h)', async () => {
    const limits: Limits = {
      compile: { timeoutMs: 600 * 3_600_000, memoryMb: 2048 },
      run: { timeoutMs: 10_000, memoryMb: 2048 },
    };
    const reports: ProgramReport[] = [];
    const summary = await runCampaign(
      {
        configurations: [gcc],
        limits,
        policy,
        mode: 'csmith',
        jobs: 1,
        seeds: seedsFrom(1n),
        timeMs: 600 * 3_600_000,
        maxPrograms: 1,
      },
      { onProgram: (r) => void reports.push(r) },
    );
    expect(summary.stoppedBy).toBe('tests');
    expect(reports[0]!.results[0]!.outcome).toBe('ok');
  }, 60_000);
});

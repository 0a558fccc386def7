// Hang findings reduce under the campaign's short hang limits: every candidate that still hangs
// costs the whole limit, so the configured 120 s compile limit made one reduction take hours.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KilnError } from '../../src/diag/errors.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { DEFAULT_HANG_FLOOR } from '../../src/harness/scheduler.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { buildMatrix, DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import { campaignFiles } from '../../src/harness/program.js';
import { TempRoot } from '../../src/harness/tempdir.js';
import { calibratedHangLimit, confirmHang, reductionLimits, type FindingManifest } from '../../src/reduce/finding.js';
import { generateProgram } from '../../src/repair/generate.js';
import { requireTool, plainC } from '../support/cc.js';
import { writeFake } from '../harness/support/fakes.js';

describe('reductionLimits', () => {
  it('shortens only the hanging step of a hang, to the short hang limit', () => {
    const c = reductionLimits('compiler-hang', DEFAULT_LIMITS);
    expect(c.compile.timeoutMs).toBe(DEFAULT_HANG_FLOOR.compileMs);
    expect(c.compile.timeoutMs).toBeLessThan(DEFAULT_LIMITS.compile.timeoutMs);
    expect(c.run).toEqual(DEFAULT_LIMITS.run);
    const r = reductionLimits('binary-hang', DEFAULT_LIMITS);
    expect(r.run.timeoutMs).toBe(DEFAULT_HANG_FLOOR.runMs);
    expect(r.compile).toEqual(DEFAULT_LIMITS.compile);
    expect(r.run.memoryMb).toBe(DEFAULT_LIMITS.run.memoryMb);
  });

  it('keeps the limits of other outcomes, never lengthens a shorter limit, and obeys --timeout', () => {
    expect(reductionLimits('wrong-code', DEFAULT_LIMITS)).toEqual(DEFAULT_LIMITS);
    const tight = { compile: { timeoutMs: 3_000, memoryMb: 512 }, run: { timeoutMs: 500, memoryMb: 512 } };
    expect(reductionLimits('compiler-hang', tight)).toEqual(tight);
    expect(reductionLimits('binary-hang', tight)).toEqual(tight);
    expect(reductionLimits('compiler-hang', DEFAULT_LIMITS, 30_000).compile.timeoutMs).toBe(30_000);
  });

  it("calibrates a compile-hang limit on the compiler's -O0 time: 20×, at least 2 s, at most the floor", () => {
    expect(calibratedHangLimit(50, 10_000)).toBe(2_000);
    expect(calibratedHangLimit(200, 10_000)).toBe(4_000);
    expect(calibratedHangLimit(3_000, 10_000)).toBe(10_000);
    expect(calibratedHangLimit(200, 3_000)).toBe(3_000);
  });
});

describe('a suspected hang is checked with the configured limit before it is reduced', () => {
  // Built by gcc (12: no `_BitInt`).
  const policy = plainC(parsePolicy({}, 'small'));
  const g = generateProgram(1n, policy);
  if (!g.ok) throw new Error('seed 1 gives no program');
  const files = campaignFiles(g, policy);
  const manifest = (compileMs: number) =>
    ({
      outcome: 'compiler-hang',
      limits: { compile: { timeoutMs: compileMs, memoryMb: 2048 }, run: { timeoutMs: 5000, memoryMb: 2048 } },
    }) as unknown as FindingManifest;
  let work: string;
  let temp: TempRoot;
  beforeAll(() => {
    requireTool('gcc');
    work = mkdtempSync(join(tmpdir(), 'kiln-confirm-'));
    temp = TempRoot.create();
  });
  afterAll(() => {
    temp?.dispose();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('gives the time of a compile that finishes within it, for the caller to judge as a slow compile', async () => {
    const slow = buildMatrix(
      [await resolveCompiler(writeFake(join(work, 'bin'), 'slow-one', 'slow', [1]))],
      ['-O0'],
    )[0]!;
    const ms = await confirmHang(manifest(20_000), 'F', files, g.expected, slow, temp);
    expect(ms).toBeGreaterThanOrEqual(3_000);
    expect(ms).toBeLessThan(20_000);
  }, 60_000);

  it('refuses a run that finishes within it, saying how long it took', async () => {
    const gcc = buildMatrix([await resolveCompiler('gcc')], ['-O0'])[0]!;
    const runHang = { ...manifest(20_000), outcome: 'binary-hang' } as FindingManifest;
    const err = await confirmHang(runHang, 'F', files, g.expected, gcc, temp).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(KilnError);
    expect((err as KilnError).code).toBe('KILN_STATE');
    expect((err as KilnError).message).toMatch(
      /^F: not a hang: gcc -O0 ran in \d+\.\d s, within the configured limit of 5 s \(ok\)/,
    );
  }, 60_000);

  it('lets a compile that still hangs go on to the reduction', async () => {
    const hang = buildMatrix(
      [await resolveCompiler(writeFake(join(work, 'bin'), 'hang-one', 'hang', [1]))],
      ['-O0'],
    )[0]!;
    await expect(confirmHang(manifest(2_000), 'F', files, g.expected, hang, temp)).resolves.toBeUndefined();
  }, 60_000);
});

// Hang findings reduce under the campaign's short hang limits: every candidate that still hangs
// costs the whole limit, so the configured 120 s compile limit made one reduction take hours.
import { describe, expect, it } from 'vitest';
import { DEFAULT_HANG_FLOOR } from '../../src/harness/campaign.js';
import { DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import { calibratedHangLimit, reductionLimits } from '../../src/reduce/finding.js';

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

  it('calibrates a compile-hang limit on the compiler\'s -O0 time: 20×, at least 2 s, at most the floor', () => {
    expect(calibratedHangLimit(50, 10_000)).toBe(2_000);
    expect(calibratedHangLimit(200, 10_000)).toBe(4_000);
    expect(calibratedHangLimit(3_000, 10_000)).toBe(10_000);
    expect(calibratedHangLimit(200, 3_000)).toBe(3_000);
  });
});

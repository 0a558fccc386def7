// A campaign gives each compiler only the programs it accepts: gcc-12 has `__int128` but no
// `_BitInt`, clang-16 has both, so `_BitInt` programs are tested by clang-16 and skipped (never
// a finding) by gcc-12, and the campaign's policy draws no `_BitInt` wider than clang-16 takes.
import { describe, expect, it } from 'vitest';
import { withCapabilities, type FuzzSettings } from '../../src/campaign/settings.js';
import { parsePolicy } from '../../src/gen/policy.js';
import { accepts, compilerCapabilities, policyFor } from '../../src/harness/capabilities.js';
import { resolveCompiler } from '../../src/harness/compilers.js';
import { gccClangCampaign } from './support/skip.js';

// No vectors: clang-16 would skip the programs with GCC's __builtin_shuffle.
const policy = parsePolicy({ features: { int128: true, bitInt: true, vectors: false } }, 'small');

describe('compilers without _BitInt', () => {
  it('are probed once: gcc-12 has __int128 only, clang-16 both, with its width limit', async () => {
    const gcc = await compilerCapabilities(await resolveCompiler('gcc-12'));
    const clang = await compilerCapabilities(await resolveCompiler('clang-16'));
    expect(gcc).toMatchObject({ int128: true, bitIntMaxWidth: 0, labelValues: true });
    expect(clang).toMatchObject({ int128: true, bitIntMaxWidth: 8_388_608, labelValues: true });
    expect(accepts(gcc, { int128: true, bitIntWidth: 0, labelValues: false })).toBe(true);
    expect(accepts(gcc, { int128: false, bitIntWidth: 7, labelValues: false })).toBe(false);
    expect(accepts(clang, { int128: true, bitIntWidth: 256, labelValues: false })).toBe(true);
    // A campaign of gcc-12 alone draws no _BitInt; with clang-16, widths up to the policy's own limit.
    const settings = (compilers: FuzzSettings['compilers']) =>
      ({ compilers, policy, resume: undefined }) as unknown as FuzzSettings;
    const alone = await withCapabilities(settings([await resolveCompiler('gcc-12')]));
    expect(alone.policy.features).toMatchObject({ bitInt: false, int128: true });
    const both = await withCapabilities(settings([await resolveCompiler('gcc-12'), await resolveCompiler('clang-16')]));
    expect(both.policy.features).toMatchObject({ bitInt: true, int128: true });
    expect(both.policy.limits.maxBitIntWidth).toBe(policy.limits.maxBitIntWidth);
    // What every one of them accepts (sanitizer and queued campaigns, kiln gen --for): no _BitInt.
    expect(policyFor(policy, [gcc, clang], 'every').features).toMatchObject({ bitInt: false, int128: true });
    expect(policyFor(policy, [clang], 'every').limits.maxBitIntWidth).toBe(policy.limits.maxBitIntWidth);
  }, 120_000);

  it('skip _BitInt programs, which clang-16 tests; other programs both test', async () => {
    const { reports, gcc: g, clang: c } = await gccClangCampaign(policy, 6);
    const tested = reports.filter((r) => r.status === 'tested');
    expect(tested.length).toBeGreaterThanOrEqual(5);
    let skipped = 0;
    for (const r of tested) {
      const bitInt = r.files!.some((f) => f.content.includes('_BitInt('));
      const outcome = (cfg: typeof g) => r.results.find((x) => x.config === cfg)?.outcome;
      expect(outcome(g), `seed ${r.seed}`).toBe(bitInt ? 'skipped' : 'ok');
      expect(outcome(c), `seed ${r.seed}`).toBe('ok');
      if (bitInt) skipped++;
    }
    expect(skipped).toBeGreaterThan(0);
    expect(skipped).toBeLessThan(tested.length);
  }, 900_000);
});

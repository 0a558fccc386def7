// The order test files start in: the longest first. Vitest starts files largest first when it has
// no timings of its own (a clean checkout, as on CI), and the longest files are small ones that
// start a few compilers: they started last and ran alone at the end while the other worker idled,
// 13% of a run's wall time. Started first, they finish while the short files fill the gaps.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first: per-file times of one run of the suite (two workers), in
 * seconds on a busy machine (load 6 to 9). Only the order matters; a file not listed runs after
 * these, in Vitest's own order. Re-measure with `npx vitest run --reporter=json --outputFile=F` after
 * adding a long test.
 */
const LONGEST: readonly string[] = [
  'test/edge/check.test.ts', // 220
  'test/edge/sanitizers.test.ts', // 215
  'test/reduce/finding.test.ts', // 188
  'test/harness/reproducible.test.ts', // 170
  'test/gen/shape.test.ts', // 148
  'test/reduce/slow-compile.test.ts', // 141
  'test/bench/smoke-3.test.ts', // 138
  'test/harness/profile-campaign.test.ts', // 133
  'test/queue/loopback.test.ts', // 128
  'test/reduce/text/orion-file.test.ts', // 128
  'test/reduce/layout.test.ts', // 127
  'test/bench/smoke-2.test.ts', // 125
  'test/edge/inject.test.ts', // 121
  'test/gen/arith-cc.test.ts', // 119
  'test/mutate/campaign.test.ts', // 114
  'test/edge/verdicts.test.ts', // 109
  'test/mutate/compile.test.ts', // 105
  'test/harness/resume.test.ts', // 102
  'test/c/boundary.test.ts', // 100
  'test/c/exhaustive8.test.ts', // 96
  'test/harness/roots.test.ts', // 96
  'test/gen/census.test.ts', // 87
  'test/campaign/layout-fallback.test.ts', // 82
  'test/cli/campaign-guards.test.ts', // 80
  'test/edge/shared-line.test.ts', // 76
  'test/interp/differential.test.ts', // 76
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification): number => {
      const i = LONGEST.findIndex((p) => f.moduleId.endsWith(p));
      return i < 0 ? LONGEST.length : i;
    };
    // A stable sort: the files not listed keep Vitest's order.
    return [...(await super.sort(files))].sort((a, b) => rank(a) - rank(b));
  }
}

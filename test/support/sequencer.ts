// The order test files start in: the longest first. Vitest starts files largest first when it has
// no timings of its own (a clean checkout, as on CI), and the longest files are small ones that
// start a few compilers: they started last and ran alone at the end while the other worker idled,
// 13% of a run's wall time. Started first, they finish while the short files fill the gaps.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first: per-file times of one run of `.ci/run` on a clean clone
 * (three workers, two cores), in seconds. Only the order matters; a file not listed runs after
 * these, in Vitest's own order. Re-measure with `npx vitest run --reporter=json --outputFile=F`
 * after adding a long test.
 */
const LONGEST: readonly string[] = [
  'test/edge/check.test.ts', // 336
  'test/reduce/finding.test.ts', // 249
  'test/edge/sanitizers.test.ts', // 166
  'test/campaign/layout-fallback.test.ts', // 128
  'test/reduce/slow-compile.test.ts', // 115
  'test/reduce/layout.test.ts', // 113
  'test/edge/shared-line.test.ts', // 113
  'test/harness/reproducible.test.ts', // 112
  'test/edge/inject.test.ts', // 96
  'test/mutate/campaign.test.ts', // 90
  'test/harness/campaign.test.ts', // 84
  'test/reduce/validity.test.ts', // 83
  'test/mutate/compile.test.ts', // 78
  'test/edge/verdicts.test.ts', // 71
  'test/queue/loopback.test.ts', // 60
  'test/c/exhaustive8.test.ts', // 56
  'test/harness/resume.test.ts', // 54
  'test/harness/roots.test.ts', // 52
  'test/gen/arith-cc.test.ts', // 48
  'test/c/boundary.test.ts', // 48
  'test/reduce/text/orion-file.test.ts', // 46
  'test/harness/profile-campaign.test.ts', // 45
  'test/gen/generated.test.ts', // 45
  'test/harness/hangs.test.ts', // 44
  'test/triage/triage.test.ts', // 42
  'test/c/ubsan.test.ts', // 42
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

// The order test files start in: the longest first. Vitest starts files largest first when it has
// no timings of its own (a clean checkout, as on CI), and the longest files are small ones that
// start a few compilers: they started last and ran alone at the end while the other worker idled,
// 13% of a run's wall time. Started first, they finish while the short files fill the gaps.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files, longest first: per-file times of one run of the suite (two workers), in
 * seconds on a busy machine. Only the order matters; a file not listed runs after these, in
 * Vitest's own order. Re-measure with `npx vitest run --reporter=json --outputFile=F` after
 * adding a long test.
 */
const LONGEST: readonly string[] = [
  'test/campaign/layout-fallback.test.ts', // 310
  'test/edge/shared-line.test.ts', // 328
  'test/bench/smoke-2.test.ts', // 325
  'test/edge/check.test.ts', // 315
  'test/bench/smoke-1.test.ts', // 304
  'test/bench/smoke-3.test.ts', // 257
  'test/mutate/compile.test.ts', // 218
  'test/harness/reproducible.test.ts', // 181
  'test/edge/sanitizers.test.ts', // 180
  'test/interp/differential.test.ts', // 177
  'test/edge/inject.test.ts', // 176
  'test/reduce/layout.test.ts', // 173
  'test/reduce/slow-compile.test.ts', // 165
  'test/mutate/campaign.test.ts', // 165
  'test/reduce/finding.test.ts', // 154
  'test/queue/loopback.test.ts', // 141
  'test/c/exhaustive8.test.ts', // 131
  'test/gen/census.test.ts', // 126
  'test/edge/verdicts.test.ts', // 124
  'test/gen/shape.test.ts', // 123
  'test/gen/arith-cc.test.ts', // 115
  'test/harness/resume.test.ts', // 109
  'test/harness/profile-campaign.test.ts', // 100
  'test/gen/generated.test.ts', // 86
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

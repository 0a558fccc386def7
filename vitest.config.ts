import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.js';

export default defineConfig({
  test: {
    // The benchmarks' smoke runs (test/bench/) are `npm run test:bench`, not `npm test`: each starts
    // a whole benchmark, five minutes of two cores in all, and the type check already covers their
    // code. Run them after changing a benchmark or what it drives.
    include: process.env.KILN_BENCH_SMOKE ? ['test/bench/**/*.test.ts'] : ['test/**/*.test.ts'],
    exclude: process.env.KILN_BENCH_SMOKE ? [...configDefaults.exclude] : [...configDefaults.exclude, 'test/bench/**'],
    // One build of the command for every `kiln` process a test starts (test/support/build.ts).
    globalSetup: ['test/support/build.ts'],
    // Several suites compile C with real compilers; two cores are the norm on CI machines, so the
    // file-level parallelism stays modest and the timeouts generous. Three workers, not two: the
    // longest files mostly wait (fake compilers that sleep past a hang limit, reductions that wait
    // on their candidates' compiles), and a third file uses the core they leave idle.
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 120_000,
    // The tests see only the compilers on PATH: a sid root this machine holds in its own cache
    // (npm run setup -- --profile latest) would add a dozen compilers to every default campaign.
    // Tests of the root compilers set KILN_CACHE_DIR themselves. The folder does keep the compilers'
    // capability probes (src/harness/capabilities.ts), keyed by each compiler file, as a user's does.
    env: { KILN_CACHE_DIR: join(tmpdir(), 'kiln-test-cache-none') },
    hookTimeout: 120_000,
    // The longest files start first (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});

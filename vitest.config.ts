import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One build of the command for every `kiln` process a test starts (test/support/build.ts).
    globalSetup: ['test/support/build.ts'],
    // Several suites compile C with real compilers; two cores are the norm on CI machines,
    // so keep the file-level parallelism modest and the timeouts generous.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});

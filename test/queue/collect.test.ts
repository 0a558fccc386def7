// The coordinator's collection path in one process: workers whose batches only sleep, a session
// stand-in that records what the hooks receive. Checks that batches are recorded whole through
// onPrograms, every seed once, and that the queue's depth grows with the workers seen, so a
// cluster larger than the configured depth is not starved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSMITH_POLICY } from '../../src/gen/policy.js';
import type { ProgramReport } from '../../src/harness/runner.js';
import type { Compiler } from '../../src/harness/compilers.js';
import { buildMatrix, DEFAULT_LIMITS } from '../../src/harness/matrix.js';
import { queueRunner } from '../../src/queue/coordinator.js';
import type { WireReport } from '../../src/queue/protocol.js';
import { parseQueueUrl } from '../../src/queue/redis.js';
import { runWorker } from '../../src/queue/worker.js';
import { startRedis, type TestRedis } from '../support/redis.js';

let redis: TestRedis;

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await redis?.stop();
});

const compiler: Compiler = {
  name: 'gcc',
  command: '/usr/bin/gcc',
  realPath: '/usr/bin/gcc',
  family: 'gcc',
  version: 'gcc (test) 1',
};
const optionSets = ['-O0', '-O2'];
const configurations = buildMatrix([compiler], optionSets);

describe('queue coordinator', () => {
  it('records whole batches once each, and keeps every worker busy beyond the configured depth', async () => {
    const address = parseQueueUrl(redis.url);
    const seeds = Array.from({ length: 48 }, (_, i) => BigInt(i + 1));
    let running = 0;
    let mostRunning = 0;
    const stop = new AbortController();
    const workers = ['w1', 'w2', 'w3'].map((id) =>
      runWorker({
        address,
        id,
        jobs: 1,
        verbose: false,
        say: () => undefined,
        signal: stop.signal,
        resolve: async (meta) => ({ meta, configurations }),
        execute: async (c, batch) => {
          running++;
          mostRunning = Math.max(mostRunning, running);
          await new Promise((r) => setTimeout(r, 300));
          running--;
          const programs: WireReport[] = batch.map((seed) => ({
            seed: String(seed),
            status: 'tested',
            genMs: 0,
            mode: 'csmith',
            expected: 'checksum = 0',
            results: c.configurations.map((config) => {
              const step = {
                command: [],
                status: 0,
                signal: null,
                timedOut: false,
                durationMs: 1,
                stdout: '',
                stderr: '',
              };
              return {
                slug: config.slug,
                outcome: 'ok' as const,
                flaky: false,
                result: {
                  judgement: { outcome: 'ok' as const },
                  compile: step,
                  run: step,
                  output: 'checksum = 0',
                  durationMs: 1,
                  aborted: false,
                },
              };
            }),
          }));
          return { programs, confirmations: [], tests: programs.length * c.configurations.length };
        },
      }),
    );

    const recorded = new Set<bigint>();
    const pages: number[] = [];
    let single = 0;
    // One batch (4 seeds) in the queue at least: without growing with the workers, only one of
    // the three would ever run.
    const runner = queueRunner({
      address,
      configurations,
      owner: (id) => `test campaign ${id}`,
      ahead: 4,
      settings: {
        compilers: [{ name: compiler.name, command: compiler.command, version: compiler.version }],
        optionSets,
        limits: DEFAULT_LIMITS,
        policy: CSMITH_POLICY,
        mode: 'csmith',
        rerun: false,
      },
    });
    const record = (r: ProgramReport): void => {
      expect(recorded.has(r.seed), `seed ${r.seed} recorded twice`).toBe(false);
      recorded.add(r.seed);
    };
    try {
      const summary = await runner.run(
        { seeds: seeds[Symbol.iterator](), campaignId: 1, recorded: (s) => recorded.has(s) },
        {
          onProgram: (r) => {
            single++;
            record(r);
          },
          onPrograms: (rs) => {
            pages.push(rs.length);
            for (const r of rs) record(r);
          },
        },
      );
      expect(summary).toMatchObject({ stoppedBy: 'seeds', programs: 48, tests: 96 });
    } finally {
      stop.abort();
      await Promise.all(workers);
    }
    expect([...recorded].sort((a, b) => (a < b ? -1 : 1))).toEqual(seeds);
    // Batches are recorded through onPrograms, whole (4 seeds each, several batches per page possible).
    expect(single).toBe(0);
    expect(pages.every((n) => n > 0 && n % 4 === 0)).toBe(true);
    expect(pages.reduce((a, b) => a + b, 0)).toBe(48);
    expect(mostRunning).toBe(3);
  });
});

// A `kiln worker` whose tests only sleep (bench:scale): it takes batches from the queue like a real
// worker and returns well-formed "ok" results of a real one's size, but generates nothing and compiles nothing, so a
// machine can host dozens of them and the figures measure the queue and the coordinator alone.
//
//   tsx bench/lib/sleep-worker.ts REDIS_URL SLEEP_MS
import type { Compiler } from '../../src/harness/compilers.js';
import { buildMatrix } from '../../src/harness/matrix.js';
import type { WireReport } from '../../src/queue/protocol.js';
import { parseQueueUrl } from '../../src/queue/redis.js';
import { runWorker } from '../../src/queue/worker.js';

const [url, sleepText] = process.argv.slice(2);
const sleepMs = Number(sleepText ?? '100');
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
process.on('SIGINT', () => stop.abort());

const nap = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

await runWorker({
  address: parseQueueUrl(url!),
  jobs: 1,
  verbose: false,
  signal: stop.signal,
  say: (line) => void process.stderr.write(`${line}\n`),
  // The campaign's compilers are taken as they are: nothing runs them.
  resolve: async (meta) => ({
    meta,
    configurations: buildMatrix(
      meta.settings.compilers.map(
        (c): Compiler => ({ name: c.name, command: c.command, realPath: c.command, family: 'gcc', version: c.version }),
      ),
      meta.settings.optionSets,
    ),
  }),
  execute: async (c, seeds) => {
    const programs: WireReport[] = [];
    for (const seed of seeds) {
      const results = [];
      for (const config of c.configurations) {
        await nap(sleepMs);
        // Steps the size of a real worker's: the sandbox's argv around the compile and the run, and
        // the checksum line the binary prints, so the coordinator decodes and stores as much.
        const sandbox = [
          'timeout',
          '-s',
          'KILL',
          '10',
          'setarch',
          '-R',
          'prlimit',
          '--as=1073741824',
          'env',
          '-i',
          'LC_ALL=C',
          'PATH=/usr/local/bin:/usr/bin:/bin',
          `KILN_TAG=kiln-${process.pid}-000000000000`,
        ];
        const compile = {
          command: [...sandbox, config.compiler.command, ...config.options, 'prog.c', '-o', 'prog', '-lm'],
          status: 0,
          signal: null,
          timedOut: false,
          durationMs: sleepMs / 2,
          stdout: '',
          stderr: '',
        };
        const run = {
          command: [...sandbox, './prog'],
          status: 0,
          signal: null,
          timedOut: false,
          durationMs: sleepMs / 2,
          stdout: 'checksum = 0x5d3f8a21\n',
          stderr: '',
        };
        results.push({
          slug: config.slug,
          outcome: 'ok' as const,
          flaky: false,
          result: {
            judgement: { outcome: 'ok' as const },
            compile,
            run,
            output: 'checksum = 0x5d3f8a21',
            durationMs: sleepMs,
            aborted: false,
          },
        });
      }
      programs.push({
        seed: String(seed),
        status: 'tested',
        genMs: 0,
        mode: 'csmith',
        expected: 'checksum = 0',
        results,
      });
    }
    return { programs, confirmations: [], tests: programs.length * c.configurations.length };
  },
});

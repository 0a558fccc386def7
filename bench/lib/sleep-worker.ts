// A `kiln worker` whose tests only sleep (bench:scale): it takes batches from the queue like a real
// worker and returns well-formed "ok" results, but generates nothing and compiles nothing, so a
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
  say: (line) => void process.stderr.write(line + '\n'),
  // The campaign's compilers are taken as they are: nothing runs them.
  resolve: async (meta) => ({
    meta,
    configurations: buildMatrix(
      meta.settings.compilers.map((c): Compiler => ({ name: c.name, command: c.command, realPath: c.command, family: 'gcc', version: c.version })),
      meta.settings.optionSets,
    ),
  }),
  execute: async (c, seeds) => {
    const programs: WireReport[] = [];
    for (const seed of seeds) {
      const results = [];
      for (const config of c.configurations) {
        await nap(sleepMs);
        const step = { command: [], status: 0, signal: null, timedOut: false, durationMs: sleepMs / 2, stdout: '', stderr: '' };
        results.push({ slug: config.slug, outcome: 'ok' as const, flaky: false, result: { judgement: { outcome: 'ok' as const }, compile: step, run: step, output: 'checksum = 0', durationMs: sleepMs, aborted: false } });
      }
      programs.push({ seed: String(seed), status: 'tested', genMs: 0, mode: 'csmith', expected: 'checksum = 0', results });
    }
    return { programs, confirmations: [], tests: programs.length * c.configurations.length };
  },
});
